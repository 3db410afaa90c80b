// How far V8 may optimize this process's code. A search of a history already up to date is a process of a
// few hundred ms: V8's optimizing compilers (Maglev, TurboFan, on threads of their own, counted in the
// process's CPU) compile the ranking's hot functions for a process about to end, at more CPU than the
// optimized code saves. Kept to baseline (Sparkplug) code, a `recall --sessions` process on 1,000 generated
// sessions takes some 20% less CPU for most queries (a query ranking hundreds of sessions, whose loops do
// pay for optimizing, some 10% more). An update that indexes sessions (seconds; minutes on a first build)
// lets them work again (history-index.ts onUpdateWork). Set through node:v8 while the process runs: the
// flag is read at each tier-up decision, and the modules already loaded keep their compile cache.
const v8 = (): typeof import("node:v8") => process.getBuiltinModule("node:v8");

/** Keeps V8 to its baseline compiler from now on (a short search). */
export function keepCompilersLight(): void {
  v8().setFlagsFromString("--max-opt=1");
}

/** Lets V8 optimize as it does by default again (a long run of work: indexing sessions). */
export function letCompilersWork(): void {
  v8().setFlagsFromString("--max-opt=999");
}
