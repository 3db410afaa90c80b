// The extension's CPU per turn in a live session (issue 29): a generated session of each size is opened
// with Pi's own SessionManager and compacted at its end (a long session resumed: all its history on
// disk, a fresh context), then TURNS turns are appended the way Pi appends them, each one a command
// printing OUTPUT_LINES lines, and the extension's handlers (the real factory, on a recording `pi`) are
// called as Pi calls them: `context` before each model call (on a structuredClone of the context, as
// Pi's runner does), `turn_end` after each assistant message and its tool results, `agent_end` at the
// end. A compaction our gate asks for (`ctx.compact`) runs after the run, as Pi runs it: our
// `session_before_compact` answer appended as a compaction entry, then `session_compact`. CPU is
// measured around each handler (process.cpuUsage, this process only), plus the background
// work the handlers leave (drained before the next step, less the drain's own cost measured idle), and split by step. Pi's own work (appends,
// buildSessionContext, the clone) is measured apart and never counted as ours; Pi's work that only our
// handlers cause is ours: what `ctx.getContextUsage` does per call (the session's projection), and the
// `turn_end` boundary Pi builds when any extension handles `turn_end` (a copy of the branch and its
// projection, before and after each handler). Floors: p50 ≤ 3 ms,
// p95 ≤ 10 ms per turn, at 1 MB and at 100 MB alike.
import { copyFileSync, mkdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { convertToLlm, estimateTokens as piEstimateTokens, SessionManager } from "@earendil-works/pi-coding-agent";
import { contextFoldExtension, estimateTokens } from "@context-fold/pi-extension";
import { seedIndexPath } from "@context-fold/seed-index-format";
import { describeGc, type GcTally, watchGc } from "../gc.js";
import { startProfile } from "../profile.js";
import type { BenchRow, BenchSuite } from "../types.js";

/** 150 by default (the run); BENCH_TURN_REPLAY_TURNS runs longer, past the fold floor. */
const TURNS = Number(process.env["BENCH_TURN_REPLAY_TURNS"] ?? "") > 0 ? Math.floor(Number(process.env["BENCH_TURN_REPLAY_TURNS"])) : 150;
/** Turns run first, uncounted: the first read of the session file and JIT warm-up are not per-turn costs. */
const WARMUP = 10;
const OUTPUT_LINES = 360;
const WINDOW = 64_000;
const SYSTEM_PROMPT = "You are a coding agent. ".repeat(200);
/** BENCH_TURN_REPLAY_DUMP: a folder for each size's per-turn costs by step (`turn-replay-<size>.json`). */
/** A folder for a CPU profile of the counted turns only (warm-up and the first read left out). */
const PROFILE_DIR = process.env["BENCH_TURN_REPLAY_PROFILE"];
/** BENCH_TURN_REPLAY_PROFILE_US: the profile's sampling interval in µs (V8's default otherwise). */
const PROFILE_INTERVAL = Number(process.env["BENCH_TURN_REPLAY_PROFILE_US"] ?? "") > 0 ? Number(process.env["BENCH_TURN_REPLAY_PROFILE_US"]) : undefined;
/** The monotonic clock in µs (the clock of a V8 CPU profile's timestamps). */
const nowMicros = (): number => Number(process.hrtime.bigint() / 1000n);

type Handler = (event: unknown, ctx: unknown) => unknown;
type Step = "context" | "fold" | "turnEnd" | "background" | "compaction";

/** A `pi` that records handlers and accepts every registration (tools, commands, renderers). */
function recordingPi(): { pi: unknown; handlers: Map<string, Handler[]> } {
  const handlers = new Map<string, Handler[]>();
  const noop = (): void => undefined;
  const pi = new Proxy(
    {
      on: (name: string, handler: Handler) => handlers.set(name, [...(handlers.get(name) ?? []), handler]),
      getAllTools: () => [],
      getCommands: () => [],
      getActiveTools: () => [],
      events: { on: noop, emit: noop },
    } as Record<string, unknown>,
    { get: (target, key: string) => (key in target ? target[key] : noop) },
  );
  return { pi, handlers };
}

function cpuMs(since: NodeJS.CpuUsage): number {
  const spent = process.cpuUsage(since);
  return (spent.user + spent.system) / 1000;
}

const DRAIN_TICKS = 50;

/** CPU of DRAIN_TICKS event-loop turns with nothing queued (the median of many): the drain's own cost. */
let idleDrainMs = 0;

/**
 * DRAIN_TICKS event-loop turns (each a `setImmediate`, with the microtasks and I/O callbacks between),
 * chained by callbacks rather than a promise per turn: the drain's own allocations stay few, so a
 * collection they would start is not charged to the handlers measured around them.
 */
async function ticks(): Promise<number> {
  const used = process.cpuUsage();
  await new Promise<void>((resolve) => {
    let left = DRAIN_TICKS;
    const tick = (): void => {
      left -= 1;
      if (left === 0) resolve();
      else setImmediate(tick);
    };
    setImmediate(tick);
  });
  return cpuMs(used);
}

/** Measure `idleDrainMs` in this process, warmed, before the replay (so it is subtracted, never counted as ours). */
async function calibrateDrain(): Promise<void> {
  for (let i = 0; i < 50; i++) await ticks();
  const idle: number[] = [];
  for (let i = 0; i < 200; i++) idle.push(await ticks());
  idleDrainMs = quantile(idle, 0.5);
}

/**
 * Let the handlers' background work (the stretch feed, queued retains) run; return its CPU, less what
 * the same event-loop turns cost with nothing queued (the bench's own, ≈0.2 ms per drain here).
 */
async function drain(): Promise<number> {
  return Math.max(0, (await ticks()) - idleDrainMs);
}

/** The usage a provider reports for a response: the context it was sent and the tokens it wrote. */
function billed(input: number, output: number): object {
  return { input, output, cacheRead: 0, cacheWrite: 0, totalTokens: input + output, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
}

function commandOutput(turn: number): string {
  const lines: string[] = [];
  for (let i = 0; i < OUTPUT_LINES; i++) lines.push(`[turn ${String(turn)}] step ${String(i).padStart(4, "0")}: compiled src/module-${String(i % 37)}.ts in ${String((i * 7) % 90)} ms ok`);
  return lines.join("\n");
}

function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}
const round = (n: number): number => Number(n.toFixed(3));

interface TurnCost {
  /** Monotonic clock (µs, the CPU profile's clock) at the turn's start and end: slices a profile by turn. */
  readonly at: readonly [number, number];
  readonly total: number;
  readonly steps: Record<Step, number>;
  readonly folded: boolean;
  /** A compaction's CPU split (dump only): our `session_before_compact` hook, and our `session_compact` after it. */
  readonly compactionSplit?: { readonly hook: number; readonly after: number };
}

async function replay(source: string, dir: string, name: string): Promise<{ turns: TurnCost[]; piMs: number[]; folds: number; firstTurnMs: number; compactions: number; gc: GcTally }> {
  // A clean folder: a seed index left by an earlier run would restore its folds into this one.
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const file = join(dir, "session.jsonl");
  copyFileSync(source, file);
  const sm = SessionManager.open(file, dir);
  const leaf = sm.getLeafId();
  if (leaf !== null) sm.appendCompaction("Earlier work: the build was set up and passing.", leaf, 50_000);
  // A fold event appends one record to the seed index: its size, taken outside the handlers, tells.
  const seedIndex = seedIndexPath(file, sm.getSessionId());
  const seedBytes = (): number => {
    try {
      return statSync(seedIndex).size;
    } catch {
      return 0;
    }
  };
  process.env["PI_CODING_AGENT_DIR"] = join(dir, "agent");
  const { pi, handlers } = recordingPi();
  (contextFoldExtension as (pi: unknown) => void)(pi);
  let sent: readonly object[] = [];
  // Pi's count, kept the way Pi keeps it (the last call's input plus what was appended since), and
  // computed outside the handlers so its cost is Pi's, not ours.
  const systemTokens = Math.ceil(SYSTEM_PROMPT.length / 4);
  let tokens = systemTokens;
  const ctx = {
    cwd: "/home/dev/project",
    // Pi's interactive mode (where a user waits on each turn): the footer is drawn after every call.
    hasUI: true,
    sessionManager: sm,
    model: { id: "faux-64k", provider: "faux", contextWindow: WINDOW },
    ui: new Proxy({}, { get: () => () => undefined }),
    getSystemPrompt: () => SYSTEM_PROMPT,
    getContextUsage: () => {
      piContextUsageWork();
      return { tokens, contextWindow: WINDOW, percent: (100 * tokens) / WINDOW };
    },
    isIdle: () => true,
    signal: undefined,
    abort: () => undefined,
    // The gate asks Pi to compact (`ctx.compact`); Pi runs it after the run, through our hook. The
    // replay does the same after `agent_end` (see `compactNow`), so a long replay is compacted the way
    // a live session is, instead of staying over the limit and preparing the same compaction each turn.
    compact: () => {
      compactRequested = true;
    },
  };
  /**
   * What Pi's `getContextUsage` does on each call (AgentSession 1.6): project the session (every entry
   * since the last compaction), walk the branch, and estimate the messages after the last usage. It
   * runs inside the handler that calls it, so its CPU counts as ours: without our call Pi would not
   * do it. The count itself stays the bench's `tokens` (the same figure, kept cheaply).
   */
  const piContextUsageWork = (): void => {
    const projection = sm.buildSessionProjection();
    sm.getBranch();
    let last = -1;
    for (let i = projection.messages.length - 1; i >= 0 && last < 0; i--) if (projection.messages[i]?.role === "assistant") last = i;
    for (let i = last + 1; i < projection.messages.length; i++) piEstimateTokens(projection.messages[i] as never);
  };
  /**
   * Pi's `turn_end` is an actionable boundary (1.6): when any extension handles it, Pi builds the
   * boundary context (a SessionManager copy of the branch, its projection, the LLM messages) once
   * before the handlers and again after each one, then re-projects the session to commit their drafts.
   * None of it happens without a `turn_end` handler, so it counts as ours.
   */
  const piTurnEndBoundary = async (event: object): Promise<void> => {
    const turnEndHandlers = handlers.get("turn_end") ?? [];
    if (turnEndHandlers.length === 0) return;
    const header = sm.getHeader();
    const buildContext = (): void => {
      if (header === null) return;
      const preview = SessionManager.inMemory(ctx.cwd, undefined, [header, ...sm.getBranch()]);
      convertToLlm(preview.buildSessionProjection().messages);
    };
    buildContext();
    for (const handler of turnEndHandlers) {
      await handler({ ...event, entries: [], continue: false }, ctx);
      buildContext();
    }
    sm.buildSessionProjection();
  };
  let compactRequested = false;
  let compactions = 0;
  /** The last compaction's split between our hook and our after-step. */
  let lastSplit = { hook: 0, after: 0 };
  /** Pi's part of a compaction our gate started: the hook's answer appended as a compaction entry. */
  const compactNow = async (): Promise<number> => {
    compactRequested = false;
    // The event is Pi's to build (the branch it lists is a walk of Pi's session): not counted as ours.
    const signal = new AbortController().signal;
    const event = { type: "session_before_compact", preparation: { tokensBefore: tokens }, branchEntries: sm.getBranch(), reason: "manual", willRetry: false, signal };
    const used = process.cpuUsage();
    const out = (await call("session_before_compact", event)) as { compaction?: { summary: string; firstKeptEntryId: string; tokensBefore: number; details?: unknown } } | undefined;
    let spent = cpuMs(used);
    lastSplit = { hook: spent, after: 0 };
    const compaction = out?.compaction;
    if (compaction === undefined) return spent;
    sm.appendCompaction(compaction.summary, compaction.firstKeptEntryId, compaction.tokensBefore, compaction.details, true);
    compactions += 1;
    const entry = sm.getBranch().at(-1);
    const after = process.cpuUsage();
    await call("session_compact", { type: "session_compact", compactionEntry: entry, fromExtension: true, reason: "manual", willRetry: false });
    const afterMs = cpuMs(after);
    lastSplit = { hook: lastSplit.hook, after: afterMs };
    spent += afterMs;
    tokens = systemTokens + estimateTokens(sm.buildSessionContext().messages);
    return spent;
  };
  const call = async (name: string, event: unknown): Promise<unknown> => {
    let result: unknown;
    for (const handler of handlers.get(name) ?? []) {
      const out = await handler(event, ctx);
      if (out !== undefined) result = out;
    }
    return result;
  };
  await call("session_start", { type: "session_start", reason: "resume" });
  await calibrateDrain();

  const turns: TurnCost[] = [];
  const piMs: number[] = [];
  let folds = 0;
  let firstTurnMs = 0;
  let responses = 0;
  let stopProfile: (() => Promise<void>) | undefined;
  // Collections during the counted turns: Pi's allocations and ours alike (a scavenge lands in whichever
  // step is running when the young generation fills, and moves that turn by its pause).
  let stopGc: (() => Promise<GcTally>) | undefined;
  for (let turn = 0; turn < WARMUP + TURNS; turn++) {
    if (turn === WARMUP) {
      stopProfile = await startProfile(PROFILE_DIR, name, PROFILE_INTERVAL);
      stopGc = watchGc();
    }
    const startedAt = nowMicros();
    const steps: Record<Step, number> = { context: 0, fold: 0, turnEnd: 0, background: 0, compaction: 0 };
    let piCpu = 0;
    let folded = false;
    const append = (message: object): void => {
      const added = estimateTokens([message]);
      // A provider reports what it was sent plus what it wrote: Pi's count starts from that usage.
      const m = message as { role?: string; usage?: unknown };
      if (m.role === "assistant") m.usage = billed(tokens, added);
      sm.appendMessage(message as never);
      tokens += added;
    };
    const pi = (work: () => void): void => {
      const used = process.cpuUsage();
      work();
      piCpu += cpuMs(used);
    };
    /**
     * One event-loop turn before a handler is called, counted as Pi's: V8 runs a scavenge it scheduled
     * (a young generation nearly full: most are started this way, not by a failed allocation) at the next
     * turn of the loop. Without this turn, the scavenge that Pi's own work (the context clone, the appends)
     * scheduled would run inside the first await of our handler and count as ours. Ours still count:
     * what our handlers schedule runs in the drain after them, which is measured as theirs.
     */
    const settle = async (): Promise<void> => {
      const used = process.cpuUsage();
      await new Promise((resolve) => setImmediate(resolve));
      piCpu += cpuMs(used);
    };
    const modelCall = async (): Promise<void> => {
      let event: { type: "context"; messages: object[] } = { type: "context", messages: [] };
      pi(() => {
        event = { type: "context", messages: structuredClone(sm.buildSessionContext().messages) as object[] };
      });
      const recorded = seedBytes();
      await settle();
      const used = process.cpuUsage();
      const result = (await call("context", event)) as { messages?: object[] } | undefined;
      const spent = cpuMs(used);
      const didFold = seedBytes() !== recorded;
      if (didFold) {
        steps.fold += spent;
        folded = true;
      } else steps.context += spent;
      sent = result?.messages ?? event.messages;
      pi(() => {
        tokens = systemTokens + estimateTokens(sent);
      });
      steps.background += await drain();
    };
    const turnEnd = async (message: object, toolResults: object[]): Promise<void> => {
      await settle();
      const used = process.cpuUsage();
      await piTurnEndBoundary({ type: "turn_end", turnIndex: turn, message, toolResults });
      steps.turnEnd += cpuMs(used);
      steps.background += await drain();
    };
    const id = `call_${String(turn)}`;
    pi(() => append({ role: "user", content: `run the build, step ${String(turn)}`, timestamp: turn * 1000 }));
    await modelCall();
    const toolCall = { role: "assistant", content: [{ type: "text", text: "Running it." }, { type: "toolCall", id, name: "bash", arguments: { command: `./build.sh ${String(turn)}` } }], api: "faux", provider: "faux", model: "faux-64k", stopReason: "toolUse", responseId: `resp_${String((responses += 1))}`, timestamp: turn * 1000 + 1 };
    const result = { role: "toolResult", toolCallId: id, toolName: "bash", content: [{ type: "text", text: commandOutput(turn) }], isError: false, timestamp: turn * 1000 + 2 };
    pi(() => {
      append(toolCall);
      append(result);
    });
    await turnEnd(toolCall, [result]);
    await modelCall();
    const answer = { role: "assistant", content: [{ type: "text", text: `Step ${String(turn)} built.` }], api: "faux", provider: "faux", model: "faux-64k", stopReason: "stop", responseId: `resp_${String((responses += 1))}`, timestamp: turn * 1000 + 3 };
    pi(() => append(answer));
    await turnEnd(answer, []);
    const used = process.cpuUsage();
    await call("agent_end", { type: "agent_end", messages: [] });
    steps.turnEnd += cpuMs(used);
    steps.background += await drain();
    let compactionSplit: TurnCost["compactionSplit"];
    if (compactRequested) {
      steps.compaction += await compactNow();
      compactionSplit = lastSplit;
      steps.background += await drain();
    }
    const total = steps.context + steps.fold + steps.turnEnd + steps.background + steps.compaction;
    if (turn === 0) firstTurnMs = total;
    if (turn < WARMUP) continue;
    if (folded) folds += 1;
    turns.push({ at: [startedAt, nowMicros()], total, steps, folded, ...(compactionSplit === undefined ? {} : { compactionSplit }) });
    piMs.push(piCpu);
  }
  await stopProfile?.();
  const gc = await (stopGc ?? watchGc())();
  await call("session_shutdown", { type: "session_shutdown" });
  return { turns, piMs, folds, firstTurnMs, compactions, gc };
}

export const turnReplaySuite: BenchSuite = async (ctx) => {
  const rows: BenchRow[] = [];
  for (const size of ctx.sizes) {
    const source = ctx.sessions[size];
    if (source === undefined) continue;
    const { turns, piMs, folds, firstTurnMs, compactions, gc } = await replay(source, join(ctx.workDir, size), `turn-replay-${size}`);
    const totals = turns.map((t) => t.total);
    const dump = process.env["BENCH_TURN_REPLAY_DUMP"];
    if (dump !== undefined && dump !== "") writeFileSync(join(dump, `turn-replay-${size}.json`), JSON.stringify(turns.map((t) => ({ at: t.at, total: round(t.total), folded: t.folded, ...(t.compactionSplit === undefined ? {} : { compactionHook: round(t.compactionSplit.hook), compactionAfter: round(t.compactionSplit.after) }), ...Object.fromEntries(Object.entries(t.steps).map(([k, v]) => [k, round(v)])) }))));
    const stepRow = (step: Step, label: string): BenchRow => {
      const values = turns.map((t) => t.steps[step]);
      return { suite: "turn-replay", case: `${label} per turn (CPU p50)`, size, value: round(quantile(values, 0.5)), unit: "ms", note: `p95 ${String(round(quantile(values, 0.95)))} ms, max ${String(round(Math.max(...values)))} ms` };
    };
    const foldTurns = turns.filter((t) => t.folded).map((t) => t.steps.fold);
    rows.push(
      { suite: "turn-replay", case: "extension CPU per turn (p50)", size, value: round(quantile(totals, 0.5)), unit: "ms", target: "≤ 3 ms", note: `${String(TURNS)} turns of ${String(OUTPUT_LINES)}-line output, ${String(WINDOW / 1000)}k window, ${String(folds)} fold events, ${String(compactions)} compactions (our gate's, run through our hook)` },
      { suite: "turn-replay", case: "extension CPU per turn (p95)", size, value: round(quantile(totals, 0.95)), unit: "ms", target: "≤ 10 ms", note: `max ${String(round(Math.max(...totals)))} ms; first turn (reads the session file once) ${String(round(firstTurnMs))} ms; collections during the counted turns (Pi's work and ours): ${describeGc(gc)}` },
      stepRow("context", "context hook calls without a fold"),
      stepRow("turnEnd", "turn_end + agent_end handlers"),
      stepRow("background", "background work left by the handlers"),
      stepRow("compaction", "compaction our gate started (our hook and its after-step)"),
      { suite: "turn-replay", case: "fold event call (CPU p50)", size, value: foldTurns.length === 0 ? 0 : round(quantile(foldTurns, 0.5)), unit: "ms", note: `${String(foldTurns.length)} fold events; p95 ${String(round(quantile(foldTurns, 0.95)))} ms, max ${String(round(Math.max(0, ...foldTurns)))} ms (includes the record append)` },
      { suite: "turn-replay", case: "Pi's own work per turn, not ours (CPU p50)", size, value: round(quantile(piMs, 0.5)), unit: "ms", note: `appends, buildSessionContext, the context clone; not counted either: ${String(round(idleDrainMs))} ms per drain (the bench's own event-loop turns, measured idle)` },
    );
  }
  return rows;
};
