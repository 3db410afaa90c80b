// The extension's compaction hook on generated ≈4 MB sessions, one with earlier compactions (the bench's
// own session) and one never compacted, with facts accumulated during a replay (fed turn by turn, as the
// extension does between runs, and prepared at each turn's end on the session as it stood then: a copy
// grown turn by turn and read on with `updateSession`). The hook's own work (cut, top-up, summary, digest,
// compact record) is timed as CPU beside wall, each run once as the hook meets it in a live session
// (after warm-up runs until V8 stopped compiling it: steady state) and once after a forced GC whose own
// concurrent work (sweeping) is let finish before the clock starts (so garbage left by earlier runs is
// not collected on some runs only, and the collection is not charged to the hook; warmed by runs each
// after a forced GC, the code as full GCs leave it: see `hookRows`); the
// process's CPU (every thread, GC helpers included) beside the main thread's alone, and the p95 of the
// runs the scheduler did not preempt beside the p95 of all (see `unpreemptedP95`). The figures of the
// method used before (5 warm-up runs; the clock started right after the forced GC) are reported in each
// row's note, and the first run on each session (code not yet compiled, on the first) as a row of its own. Then the same with its I/O
// (artifacts written atomically with fsync, record appended). Beside each session's no-GC row, the machine's own
// spread at that scale: a loop as long as the hook that allocates nothing, timed the same way. Targets (issue 25): CPU median ≤ 3 ms
// without a forced GC, ≤ 6 ms with one, p95 ≤ 2× the median; the turn-end work (facts fed, and near a
// compaction the parts the hook builds from, prepared) ≤ 2 ms per turn.
import { appendFileSync, copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { performance } from "node:perf_hooks";
import { getHeapCodeStatistics, setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { lineageBlocks, readSession, type Session, updateSession } from "@context-fold/ledger-reader";
import { CompactionFacts, CompactionSession, computeHookCompaction, DEFAULT_COMPACTION_OPTIONS, LedgerTracker } from "@context-fold/pi-extension";
import { CodeAssigner, type FoldIndexRecord, seedIndexPath } from "@context-fold/seed-index-format";
import { generateSession } from "@context-fold/session-gen";
import { percentile, round } from "../measure.js";
import type { BenchRow, BenchSuite } from "../types.js";

/** Timed runs per row: a p95 of 40 runs was their second slowest; of 200, their tenth. */
const RUNS = 200;
const SUMMARY_BUDGET = 4000;
const IO_RUNS = 20;
/** Warm-up runs of the method used before: V8 was still compiling the hook's code for some 30 runs after. */
const OLD_WARMUP = 5;
/**
 * Warm-up runs at most, and the window of runs in which V8 may have made no new code for the hook to be
 * warm. Functions the hook calls once per run reach V8's optimizing compiler only after 600-3000 runs
 * (traced on 2026-12-02 with --trace-opt: one compile every 50-150 runs until then, none of them undoing
 * another), each compiled on a helper thread whose CPU lands in the runs beside it: a window of 10 quiet
 * runs ended the warm-up amid them, and 11 of a row's 200 runs came with a compile.
 */
const MAX_WARMUP = 8000;
const QUIET_RUNS = 2 * RUNS;
/** Runs between reads of V8's code size (a read walks the code space: ~9 ms on the 4 MB session). */
const CODE_CHECK = 50;

/** A forced full GC: `gc` when Node runs with --expose-gc (as `pnpm bench` starts suites), else exposed now. */
function gcFunction(): () => void {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (typeof exposed === "function") return exposed;
  setFlagsFromString("--expose-gc");
  return runInNewContext("gc") as () => void;
}

/** CPU time used by threads other than the calling one since `since` (V8's GC helpers and compiler threads). */
function otherThreadsCpu(since: { all: NodeJS.CpuUsage; main: NodeJS.CpuUsage }): number {
  const all = process.cpuUsage(since.all);
  const main = process.threadCpuUsage(since.main);
  return (all.user + all.system - main.user - main.system) / 1000;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * After a forced GC: wait until the other threads stop using CPU (the collection's concurrent sweeping,
 * compiles it caused), at most ~1 s. Returns the CPU ms they used meanwhile (the GC's own tail).
 */
async function settle(): Promise<number> {
  let spent = 0;
  for (let i = 0; i < 100; i++) {
    const since = { all: process.cpuUsage(), main: process.threadCpuUsage() };
    await sleep(10);
    const other = otherThreadsCpu(since);
    spent += other;
    if (other < 0.1) break;
  }
  return spent;
}

/**
 * Wall and CPU time of `runs` calls of `work`, each after `before` (untimed) and, with `settled`, once the
 * other threads went quiet. `cpu` is the process's (every thread: V8's GC helpers and compiler included),
 * the figure the targets are set on; `mainCpu` is the calling thread's alone, so a row shows how much of
 * the CPU went to collecting garbage beside the hook.
 */
async function timeRuns(runs: number, work: () => void, before?: () => void, settled = false): Promise<{ wall: number[]; cpu: number[]; mainCpu: number[]; preempted: boolean[] }> {
  const wall: number[] = [];
  const cpu: number[] = [];
  const mainCpu: number[] = [];
  const preempted: boolean[] = [];
  for (let run = 0; run < runs; run++) {
    before?.();
    if (settled) await settle();
    const switches = process.resourceUsage().involuntaryContextSwitches;
    const used = process.cpuUsage();
    const usedHere = process.threadCpuUsage();
    const start = performance.now();
    work();
    wall.push(performance.now() - start);
    // The process's clock first: reading it books the running thread's time, which the thread's own
    // clock (getrusage RUSAGE_THREAD) reads only as last booked (at a scheduler tick or switch). Read the
    // other way round, the main thread's figure was 0 for most runs (its median 0 ms beside 0.6 ms of wall).
    const spent = process.cpuUsage(used);
    const spentHere = process.threadCpuUsage(usedHere);
    preempted.push(process.resourceUsage().involuntaryContextSwitches !== switches);
    cpu.push((spent.user + spent.system) / 1000);
    mainCpu.push((spentHere.user + spentHere.system) / 1000);
  }
  return { wall, cpu, mainCpu, preempted };
}

/**
 * The CPU p95 of the runs the scheduler did not preempt (no involuntary context switch while the run
 * ran), beside their count: on a loaded machine a preempted run comes back to caches other processes
 * filled, and reads slower for it. Reported next to the p95 of every run, never instead of it: a run
 * that waited for the GC's helper threads switched voluntarily and stays in.
 */
function unpreemptedP95(cpu: readonly number[], preempted: readonly boolean[]): string {
  const kept = cpu.filter((_, i) => preempted[i] !== true);
  if (kept.length === 0) return "every run was preempted";
  const p95 = percentile(kept, 0.95);
  return `CPU p95 of the ${String(kept.length)} runs not preempted ${ms(p95)} (${String(round(p95 / median(cpu), 2))}× the median of all)`;
}

/** Bytes of code V8 holds (every tier: baseline, optimized); grows when it compiles. */
const codeBytes = (): number => getHeapCodeStatistics().code_and_metadata_size;

/**
 * Warm the hook up until V8 stopped compiling for it: runs until its code did not grow for QUIET_RUNS runs
 * (read every CODE_CHECK runs), at most MAX_WARMUP. Returns the number of runs it took, and whether the
 * code was still growing when it stopped.
 */
function warmUp(work: () => void): { runs: number; compiling: boolean } {
  let last = codeBytes();
  let grewAt = 0;
  let run = 0;
  while (run < MAX_WARMUP) {
    work();
    run++;
    if (run % CODE_CHECK !== 0) continue;
    const now = codeBytes();
    if (now > last) grewAt = run;
    last = now;
    if (run - grewAt >= QUIET_RUNS) return { runs: run, compiling: false };
  }
  return { runs: run, compiling: true };
}

const median = (values: readonly number[]): number => percentile(values, 0.5);
/**
 * The mean: what the runs cost together, outliers included. Both clocks advance in microseconds once
 * read in the order `timeRuns` reads them (the process's first; see there).
 */
const mean = (values: readonly number[]): number => values.reduce((sum, v) => sum + v, 0) / Math.max(1, values.length);
const ms = (n: number): string => `${String(round(n, 2))} ms`;

/**
 * Replay the session as it grew, turn by turn: at each turn's end the file holds every entry before the
 * next user message (a copy in `dir`, appended to and read on with `updateSession`, as the extension's
 * ledger does); the facts are fed up to the turn's user message (what `agent_end` does) and then take
 * the parts a compaction is built from (what a turn's end near a compaction does, `prepare`), each on
 * the session as it stood. Both are timed per turn, the prepare on its own. The hook
 * is timed on the session and facts as the last turn left them.
 */
async function replay(file: string, dir: string, codes: CodeAssigner): Promise<{ session: Session; facts: CompactionFacts; perTurn: number[]; prepare: number[] }> {
  const whole = await readSession(file);
  const bytes = readFileSync(file);
  // Entry k is line k + 1 (the header first): checked below, by the grown copy ending as the file does.
  const lineStarts = [0];
  for (let at = bytes.indexOf(10); at >= 0 && at + 1 < bytes.length; at = bytes.indexOf(10, at + 1)) lineStarts.push(at + 1);
  const endOf = (position: number | undefined): number => (position === undefined ? bytes.length : (lineStarts[position + 1] ?? bytes.length));
  const copy = join(dir, "replay.jsonl");
  const users = lineageBlocks(whole).filter((block) => block.role === "user");
  let written = endOf(users[0]?.entryPosition);
  writeFileSync(copy, bytes.subarray(0, written));
  let session = await readSession(copy);
  const facts = new CompactionFacts(session.header.cwd, codes);
  const perTurn: number[] = [];
  const prepare: number[] = [];
  for (let turn = 0; turn < users.length; turn++) {
    const block = users[turn] as (typeof users)[number];
    const end = endOf(users[turn + 1]?.entryPosition);
    appendFileSync(copy, bytes.subarray(written, end));
    written = end;
    session = await updateSession(session);
    let used = process.cpuUsage();
    facts.feed(session, block.entryPosition);
    let spent = process.cpuUsage(used);
    perTurn.push((spent.user + spent.system) / 1000);
    used = process.cpuUsage();
    facts.prepare(session, SUMMARY_BUDGET);
    spent = process.cpuUsage(used);
    prepare.push((spent.user + spent.system) / 1000);
  }
  if (session.byteLength !== whole.byteLength || session.entries.length !== whole.entries.length || session.leafId !== whole.leafId)
    throw new Error(`${file}: the replayed copy did not grow into the file (${String(session.byteLength)} of ${String(whole.byteLength)} bytes)`);
  return { session, facts, perTurn, prepare };
}

/** The bench's session regenerated without compactions (named after it, so a new generator makes a new one). */
async function neverCompacted(source: string, dir: string): Promise<string> {
  const file = join(dir, basename(source).replace(/\.jsonl$/, "-never-compacted.jsonl"));
  if (!existsSync(file)) await generateSession(file, { seed: 7, size: 4 << 20, compactions: 0 });
  return file;
}

async function hookRows(file: string, size: string, label: string, workDir: string, coldProcess: boolean): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const dir = join(workDir, `compaction-hook-${size}-${label.replace(/\W+/g, "-")}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  // The session's code assigner lives as long as the session (the fold state's), as in the extension.
  const codes = new CodeAssigner();
  const { session, facts, perTurn, prepare } = await replay(file, dir, codes);
  const kind = `${label} (${String(session.compactions.length)} earlier compactions)`;
  const input = { session, facts, sessionId: session.header.id, seq: 1, codes, summaryBudget: SUMMARY_BUDGET, digestBudget: 1500 };
  const work = (): void => void computeHookCompaction(input);
  // The first run on this session (on the first session, the hook's code not compiled yet: a live session's first compaction).
  const firstUsed = process.cpuUsage();
  const hook = computeHookCompaction(input);
  const firstSpent = process.cpuUsage(firstUsed);
  const first = (firstSpent.user + firstSpent.system) / 1000;
  const shape = `${String(hook.details.summarizedMessages)} messages summarized into ~${String(hook.details.summaryTokens)} tok, ${String(hook.record.spans.length)} record spans`;
  const gc = gcFunction();
  // The method used before: OLD_WARMUP runs, then timed runs (V8 still compiling for most of them), the
  // forced GC's concurrent sweeping running into the timed run. Kept for comparison, in the notes.
  for (let run = 1; run < OLD_WARMUP; run++) work();
  const oldNoGc = await timeRuns(RUNS, work);
  const oldGc = await timeRuns(RUNS, work, gc);
  // Each row warmed in its own regime. With a forced GC before each run: right after the method before's
  // 200 such runs, the hook's code as full GCs leave it (each full GC deoptimizes code the optimizing
  // compiler made for it, e.g. buildDigest's, traced with --trace-deopt: "weak objects", so a longer
  // warm-up without GCs only adds a recompile to every run of this row). Without: warm until V8 made no
  // new code for QUIET_RUNS runs in a row (steady state).
  const gcWarmRuns = OLD_WARMUP + 2 * RUNS;
  const timedGc = await timeRuns(RUNS, work, gc, true);
  const warmed = warmUp(work);
  const warmRuns = gcWarmRuns + RUNS + warmed.runs;
  const timedNoGc = await timeRuns(RUNS, work);
  rows.push({
    suite: "compaction-hook",
    case: `hook CPU, first run on this session, ${kind}`,
    size,
    value: round(first, 2),
    unit: "ms",
    note: `${coldProcess ? "the first in this process: the hook's code not yet compiled" : "the code compiled by the rows above"} (each later row is warm); process CPU`,
  });
  const noGcWall = median(timedNoGc.wall);
  for (const [name, timed, target, old, warmNote] of [
    ["no forced GC", timedNoGc, 3, oldNoGc, `after ${String(warmRuns)} warm runs (${warmed.compiling ? `V8 still compiling at ${String(MAX_WARMUP)}` : `the last ${String(QUIET_RUNS)} made no new code`})`],
    ["forced GC before each run", timedGc, 6, oldGc, `after ${String(gcWarmRuns)} warm runs (the last ${String(RUNS)} each after a forced GC), each forced GC's concurrent work let finish first`],
  ] as const) {
    const { wall, cpu, mainCpu, preempted } = timed;
    const p95 = percentile(cpu, 0.95);
    const oldCpu = median(old.cpu);
    const forced = old === oldGc;
    rows.push({
      suite: "compaction-hook",
      case: `hook CPU, ${name}, ${kind} (median)`,
      size,
      value: round(median(cpu), 2),
      unit: "ms",
      target: `≤ ${String(target)} ms, p95 ≤ 2×`,
      note:
        `CPU mean ${ms(mean(cpu))} (main thread's ${ms(mean(mainCpu))}); CPU p95 ${ms(p95)} (${String(round(p95 / median(cpu), 2))}× median); ${unpreemptedP95(cpu, preempted)}; main thread's CPU median ${ms(median(mainCpu))}, p95 ${ms(percentile(mainCpu, 0.95))}; ` +
        `wall median ${ms(median(wall))}, p95 ${ms(percentile(wall, 0.95))}; ${warmNote}; ` +
        `method before (${String(OLD_WARMUP)} warm-up runs${forced ? ", clock started right after the GC" : ""}): CPU median ${ms(oldCpu)}, mean ${ms(mean(old.cpu))}, p95 ${ms(percentile(old.cpu, 0.95))}, main thread's median ${ms(median(old.mainCpu))}; ${shape}`,
    });
  }
  // What this machine adds to any run this short: a loop that allocates nothing and calls nothing but the
  // clock, as long as the hook's no-GC wall median, timed the same way. Its CPU p95 against its median is
  // the spread of the machine's CPU accounting and scheduling alone, to read the hook's p95 against.
  const spinFor = noGcWall;
  const clockReads: number[] = [];
  const spin = (): void => {
    const end = performance.now() + spinFor;
    let reads = 1;
    while (performance.now() < end) reads++;
    clockReads.push(reads);
  };
  const idle = await timeRuns(RUNS, spin);
  const idleP95 = percentile(idle.cpu, 0.95);
  rows.push({
    suite: "compaction-hook",
    case: `machine's spread: a no-allocation loop as long as the no-GC hook, ${kind} (CPU median)`,
    size,
    value: round(median(idle.cpu), 2),
    unit: "ms",
    note: `CPU p95 ${ms(idleP95)} (${String(round(idleP95 / median(idle.cpu), 2))}× median); ${unpreemptedP95(idle.cpu, idle.preempted)}; main thread's CPU median ${ms(median(idle.mainCpu))}, p95 ${ms(percentile(idle.mainCpu, 0.95))}; wall median ${ms(median(idle.wall))}, ${String(median(clockReads))} clock reads per run; ${String(RUNS)} runs: no code of ours, the accounting's own spread`,
  });
  rows.push({
    suite: "compaction-hook",
    case: `turn-end facts feed, ${kind} (CPU median per turn)`,
    size,
    value: round(median(perTurn), 2),
    unit: "ms",
    target: "≤ 2 ms",
    note: `mean ${ms(mean(perTurn))}; p95 ${ms(percentile(perTurn, 0.95))}, max ${ms(Math.max(...perTurn))} over ${String(perTurn.length)} turns`,
  });
  // Near a compaction a turn's end also prepares; nothing is redone while no new user message settled.
  const nearEnd = perTurn.map((feed, i) => feed + (prepare[i] ?? 0));
  rows.push({
    suite: "compaction-hook",
    case: `turn-end feed + prepare near a compaction, ${kind} (CPU median per turn)`,
    size,
    value: round(median(nearEnd), 2),
    unit: "ms",
    target: "≤ 2 ms",
    note: `mean ${ms(mean(nearEnd))}; p95 ${ms(percentile(nearEnd, 0.95))}; prepare alone mean ${ms(mean(prepare))}, median ${ms(median(prepare))}, p95 ${ms(percentile(prepare, 0.95))}, last 20 turns' median ${ms(median(prepare.slice(-20)))}`,
  });

  // The hook inside a live session, with its I/O: the artifacts file (temp + fsync + rename + folder
  // fsync) and the record append; cold (computed in the hook) and prepared ahead at the turn's end.
  const copy = join(dir, "session.jsonl");
  copyFileSync(file, copy);
  const seedIndex = seedIndexPath(copy, session.header.id);
  let seq = 0;
  const seqSource = { get nextSeq() { return seq; }, codes: new CodeAssigner(), claim: (record: FoldIndexRecord) => void (seq = record.seq + 1) };
  const live = new CompactionSession({ sessionId: session.header.id, seedIndex, cwd: session.header.cwd, ledger: new LedgerTracker(copy) }, seqSource, DEFAULT_COMPACTION_OPTIONS);
  await live.sync();
  const cold: number[] = [];
  const ahead: number[] = [];
  const warm: number[] = [];
  for (let run = 0; run < IO_RUNS; run++) {
    let start = performance.now();
    await live.prepare(undefined);
    cold.push(performance.now() - start);
    await live.failed("bench: every run is retracted");
    start = performance.now();
    await live.prepareAhead();
    ahead.push(performance.now() - start);
    start = performance.now();
    await live.prepare(undefined);
    warm.push(performance.now() - start);
    await live.failed("bench: every run is retracted");
  }
  const io = `wall; ledger re-read per run (nothing appended); fsync cost depends on the disk`;
  rows.push({ suite: "compaction-hook", case: `hook incl. artifacts fsync + record append, cold, ${kind} (median)`, size, value: round(median(cold), 2), unit: "ms", note: io });
  rows.push({ suite: "compaction-hook", case: `hook incl. I/O, prepared ahead, ${kind} (median)`, size, value: round(median(warm), 2), unit: "ms", note: `${String(live.draftHits)}/${String(IO_RUNS)} drafts used; ${io}` });
  rows.push({ suite: "compaction-hook", case: `prepare ahead near the limit, ${kind} (median, off the hook's path)`, size, value: round(median(ahead), 2), unit: "ms", note: "wall" });
  return rows;
}

export const compactionHookSuite: BenchSuite = async (ctx) => {
  const rows: BenchRow[] = [];
  for (const size of ctx.sizes) {
    if (size !== "4mb" && size !== "1mb") continue;
    const source = ctx.sessions[size];
    if (source === undefined) continue;
    rows.push(...(await hookRows(source, size, "bench session", ctx.workDir, rows.length === 0)));
    // The targets are set on ≈4 MB sessions of both kinds.
    if (size === "4mb") rows.push(...(await hookRows(await neverCompacted(source, ctx.workDir), size, "never-compacted session", ctx.workDir, false)));
  }
  return rows;
};
