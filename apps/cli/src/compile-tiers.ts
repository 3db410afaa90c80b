// How soon V8 optimizes this process's code, and how far its young generation grows. A search of a
// history already up to date is a process of a few hundred ms: with V8's defaults, TurboFan (on threads
// of its own, counted in the process's CPU) compiles the ranking's functions for a process about to
// end, at more CPU than the optimized code saves.
// TurboFan is kept for code run far more often (a function called 20,000 times, not 3,000; a loop OSR'd
// after 5,000 iterations' worth, not 800): a search that ranks a few dozen sessions stays on baseline
// code, one ranking hundreds still has its hot loops optimized (turning TurboFan off altogether made such a
// search some 10% dearer). An update that indexes sessions (seconds; minutes on a first build) gets V8's
// defaults back (history-index.ts onUpdateWork). Set through node:v8 while the process runs: the counts are
// read at each tier-up decision, and the modules already loaded keep their compile cache. A module
// compiled while they are changed does not: V8 refuses a code cache made under other flags (it checks a
// hash of them), so a built-in module loaded then is compiled from source (node:crypto's sixteen modules,
// some 4 ms of a start), and one the process will load is best loaded first (`builtins`).
// The young generation likewise: a warm history search at 1,000 sessions allocates some 20 MB, little
// of it alive at the next scavenge. V8 grows the young generation as it fills it, and each page it grows
// into is faulted in the first time it is written: a third of such a search's CPU was system time, with
// ~7,500 page faults against a bare Node's ~2,300. Kept at its first size, the same pages are written
// again after each scavenge (more scavenges, each copying only what survives): ~1,500 faults fewer and
// ~9% less CPU (perf stat). An update's work (indexing: seconds to minutes, more of it surviving) gets
// V8's growth back with its thresholds.
const v8 = (): typeof import("node:v8") => process.getBuiltinModule("node:v8");

/** Defers TurboFan to the hottest code and keeps the young generation at its size from now on (a short search); `builtins` (that it will load) are loaded first. */
export function keepCompilersLight(builtins: readonly string[] = []): void {
  for (const name of builtins) process.getBuiltinModule(name);
  v8().setFlagsFromString("--invocation-count-for-turbofan=20000 --invocation-count-for-osr=5000 --semi-space-growth-factor=1");
}

/** V8's own thresholds and young-generation growth again (Node 22's V8 defaults), for a long run of work: indexing sessions. */
export function letCompilersWork(): void {
  v8().setFlagsFromString("--invocation-count-for-turbofan=3000 --invocation-count-for-osr=800 --semi-space-growth-factor=2");
}
