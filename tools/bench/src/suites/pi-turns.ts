// A real headless Pi (issue 29's measurement): pi-ai's faux model, Pi's auto-compaction on, a 64k
// window, TURNS turns that each run a bash command printing OUTPUT_LINES lines. Each run is a fresh
// Node process (`runFresh`): Pi alone and Pi with context-fold in PAIRS pairs, the order alternated
// pair by pair (alone first, then context-fold first, …), and Pi with context-fold and folding off
// once. In one process a later run paid for the earlier ones (a grown heap, their garbage, code
// compiled for them): the folded run, always in the middle, paid most. Per run: wall
// time per turn (session.prompt until Pi is idle again, so a compaction an extension starts after a
// run counts in its turn), the largest context the model was billed for (the prompt tokens the faux
// provider reports: every message's role and text, chars / 4 — what a provider is sent), how many
// compactions happened and how many summary requests a model answered (Pi's summary requests carry
// no tools). The largest context as the messages' JSON is in the note: that JSON also carries Pi's
// bookkeeping per message (usage, timestamps, provider and model names) that no provider is sent.
// The CPU row's note says what Pi held after each turn (mean and peak: the list Pi structuredClones
// before every model call, with or without an extension), the wall time inside those copies
// (`watchCopies`), the minor page faults per turn (`Run.faults`) and the collections during the turns:
// with folds Pi compacts less often, so it holds and copies more per call, and what our process keeps
// adds up.
// A configuration's rows are the median of its runs' figures; the added cost is the median over the
// pairs of the folded run's p50 minus Pi alone's in the same pair (each pair's in the note). A variant
// (BENCH_PI_TURNS_VARIANT: another option value or build) runs in each pair too, compared with the
// default folded run the same way.
// Floors: ≤ 5 ms per turn at p50 over Pi alone, the folded context peaking at ≤ 0.7× Pi alone's, no
// model-written compaction.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { type AssistantMessage, fauxAssistantMessage, fauxProvider, fauxText, fauxToolCall } from "@earendil-works/pi-ai";
import {
  createAgentSession,
  DefaultResourceLoader,
  estimateTokens as piEstimateTokens,
  type ExtensionUIContext,
  type LoadExtensionsResult,
  ModelRuntime,
  SessionManager,
  SettingsManager,
} from "@earendil-works/pi-coding-agent";
import { startProfile } from "../profile.js";
import { describeGc, type GcTally, watchGc } from "../gc.js";
import type { BenchRow, BenchSuite } from "../types.js";

const TURNS = 150;
const OUTPUT_LINES = 360;
const WINDOW = 64_000;
/**
 * Which configurations to run (comma-separated: alone, fold, off, alone-uncompacted); alone, fold and
 * off by default. alone and fold run PAIRS times each (see `PAIRS`), the others once.
 */
const RUNS = new Set((process.env["BENCH_PI_TURNS_RUNS"] ?? "alone,fold,off").split(",").map((name) => name.trim()));
/**
 * Pairs of runs (Pi alone, Pi with context-fold), each run a fresh process, the order alternated pair by
 * pair: 12 unless BENCH_PI_TURNS_PAIRS says. One pair's difference moves by several ms (Pi alone's own
 * p50 does), so the median of a few pairs moved across the 5 ms floor from one batch to the next.
 */
const PAIRS = Number(process.env["BENCH_PI_TURNS_PAIRS"] ?? "") >= 1 ? Math.floor(Number(process.env["BENCH_PI_TURNS_PAIRS"])) : 12;
/**
 * A second Pi + context-fold configuration, as variables (`KEY=VALUE`, space-separated: an option such as
 * `CONTEXT_FOLD_COMPACT_HELD_PAID=1`, or `BENCH_PI_TURNS_EXTENSION=<path>` for another build), run in each
 * pair beside the default one. Compared pair by pair with the default folded run, Pi alone's own spread
 * drops out, not all of the rest: the pairs have spread over ±4 ms on a noisy day (see the README).
 */
const VARIANT = variantEnv(process.env["BENCH_PI_TURNS_VARIANT"]);

/** `KEY=VALUE` words as variables; undefined when none is given. Throws on a word that is not one. */
function variantEnv(text: string | undefined): Record<string, string> | undefined {
  const words = (text ?? "").split(/\s+/).filter((word) => word !== "");
  if (words.length === 0) return undefined;
  const env: Record<string, string> = {};
  for (const word of words) {
    const at = word.indexOf("=");
    if (at <= 0) throw new Error(`BENCH_PI_TURNS_VARIANT: "${word}" is not KEY=VALUE`);
    env[word.slice(0, at)] = word.slice(at + 1);
  }
  return env;
}

/** Set in a run's own process (`runFresh`): the run to make, as JSON (`RunSpec`). */
const ONE_RUN = process.env["BENCH_PI_TURNS_ONE"];
/** A folder for a V8 CPU profile of each run's turns (`pi-turns-<run>.cpuprofile`): Pi's work and ours, one process. */
const PROFILE_DIR = process.env["BENCH_PI_TURNS_PROFILE"];
/**
 * A folder for each run's turns (`pi-turns-<run>.json`: wall and CPU per turn, the CPU inside the
 * extension's handlers per turn, in all and by event, and each turn's start and end on the monotonic
 * clock in µs, the clock of a CPU profile's samples, to split a profile by turn).
 */
const DUMP_DIR = process.env["BENCH_PI_TURNS_DUMP"];
/** The monotonic clock in µs (the clock of a V8 CPU profile's timestamps). */
const nowMicros = (): number => Number(process.hrtime.bigint() / 1000n);

/**
 * apps/pi-extension, loaded by Pi from its package directory as `pi install` would; BENCH_PI_TURNS_EXTENSION
 * names another extension path instead (another build's entry file, to alternate builds run by run).
 */
function extensionDir(): string {
  const other = process.env["BENCH_PI_TURNS_EXTENSION"];
  if (other !== undefined && other !== "") return other;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++, dir = dirname(dir)) {
    const candidate = join(dir, "apps", "pi-extension");
    if (existsSync(join(candidate, "package.json"))) return candidate;
  }
  throw new Error("apps/pi-extension not found above the bench");
}

/**
 * A UI whose methods do nothing. Pi copies the object's own methods into each extension's context, so
 * every method must be an own property (a Proxy has none: `ctx.ui.notify` would be undefined and throw).
 */
function uiStub(): ExtensionUIContext {
  const noop = (): undefined => undefined;
  const names = [
    "notify", "onTerminalInput", "setStatus", "setWorkingMessage", "setWorkingVisible", "setWorkingIndicator", "setHiddenThinkingLabel",
    "setWidget", "setFooter", "setHeader", "setTitle", "custom", "pasteToEditor", "setEditorText", "addAutocompleteProvider",
    "setEditorComponent", "getEditorComponent", "getTheme", "setTheme", "setToolsExpanded",
  ];
  const ui: Record<string, unknown> = Object.fromEntries(names.map((name) => [name, noop]));
  for (const name of ["select", "confirm", "input", "editor"]) ui[name] = () => Promise.resolve(undefined);
  ui["getEditorText"] = () => "";
  ui["getAllThemes"] = () => [];
  ui["getToolsExpanded"] = () => false;
  return ui as unknown as ExtensionUIContext;
}

/**
 * CPU spent inside the loaded extensions' event handlers (awaited to the end, so the async work a handler
 * awaits counts, and the Pi calls it makes): the time while at least one handler runs, so handlers that
 * overlap are counted once. The rest of a turn's CPU is Pi's own work (and the GC's), which the
 * extension may still cause: e.g. Pi copying a branch it holds because nothing compacted it.
 */
class HandlerClock {
  #active = 0;
  #since: NodeJS.CpuUsage | undefined;
  #spentMicros = 0;
  /** The event of the outermost handler running (overlapping handlers are charged to it). */
  #event = "";
  /** CPU by event (µs), for the dump. */
  readonly byEvent = new Map<string, number>();

  /** Wrap every event handler of every loaded extension (a resource loader's `extensionsOverride`). */
  readonly wrap = (base: LoadExtensionsResult): LoadExtensionsResult => {
    for (const extension of base.extensions) {
      for (const [event, handlers] of extension.handlers) {
        extension.handlers.set(
          event,
          handlers.map((handler) => async (...args: unknown[]) => {
            this.#enter(event);
            try {
              return await handler(...args);
            } finally {
              this.#leave();
            }
          }),
        );
      }
    }
    return base;
  };

  #enter(event: string): void {
    if (this.#active++ > 0) return;
    this.#event = event;
    this.#since = process.cpuUsage();
  }

  #leave(): void {
    if (--this.#active === 0 && this.#since !== undefined) {
      const spent = process.cpuUsage(this.#since);
      this.#spentMicros += spent.user + spent.system;
      this.byEvent.set(this.#event, (this.byEvent.get(this.#event) ?? 0) + spent.user + spent.system);
    }
  }

  /** CPU spent in handlers so far, in ms (a handler still running is not counted yet). */
  get spentMs(): number {
    return this.#spentMicros / 1000;
  }
}

/** The prompt tokens an assistant message was billed for (the faux provider counts role and text / 4). */
function promptTokens(message: unknown): number {
  const usage = (message as { role?: unknown; usage?: { input?: number; cacheRead?: number; cacheWrite?: number } }).usage;
  if ((message as { role?: unknown }).role !== "assistant" || usage === undefined) return 0;
  return (usage.input ?? 0) + (usage.cacheRead ?? 0) + (usage.cacheWrite ?? 0);
}

interface Run {
  readonly turnMs: number[];
  /** CPU of the whole process per turn (Pi's work and every extension's, this process only). */
  readonly turnCpuMs: number[];
  /** CPU inside the extensions' event handlers per turn (see HandlerClock). */
  readonly handlerCpuMs: number[];
  /** The largest prompt the model was billed for, in tokens. */
  readonly peakTokens: number;
  /** The largest context as the messages' JSON (with Pi's per-message bookkeeping). */
  readonly peakChars: number;
  /** Calls in which Pi asked the model for a summary (one compaction may make two). */
  readonly summaryCalls: number;
  readonly compactions: number;
  /**
   * Resident set and V8 heap in use (after a full GC when exposed) at the run's end, in MB. Forking each
   * bash command grows with the resident set: about 0.5 ms per 110 MB on the 2-core machine measured.
   */
  readonly rssMb: number;
  readonly heapMb: number;
  /**
   * What Pi holds after each turn (its built context, Pi's estimate in tokens): the message list it
   * structuredClones before every model call (its runner copies it whether or not an extension listens),
   * so a larger one costs every call a larger copy and the collector the garbage.
   */
  readonly heldTokens: number[];
  /** Collections while the turns ran (wall ms, by kind): Pi's copies and everything else allocated. */
  readonly gc: GcTally;
  /**
   * Wall ms per turn inside `structuredClone` (see `watchCopies`): Pi's copy of what it holds before each
   * model call, and any collection that copy sets off.
   */
  readonly copyMs: number[];
  /**
   * Minor page faults per turn (the whole process). Each bash command is forked from this process, and
   * after a fork every page the process writes again faults once: the kernel write-protects them all
   * for the child. On the 2-core VM measured, such a fault costs about 17 µs.
   */
  readonly faults: number[];
}

/**
 * Times every `structuredClone` call while the turns run. Pi's runner copies the messages it holds with
 * it before each model call (whether or not an extension listens); its settings manager clones its small
 * settings too; context-fold calls it nowhere. Pi looks the global up at each call, so wrapping it here
 * times Pi's copies without touching Pi.
 */
function watchCopies(): { readonly ms: number; stop(): void } {
  const original = globalThis.structuredClone;
  let ms = 0;
  globalThis.structuredClone = ((value: unknown, options?: Parameters<typeof structuredClone>[1]): unknown => {
    const start = performance.now();
    try {
      return original(value, options);
    } finally {
      ms += performance.now() - start;
    }
  }) as typeof structuredClone;
  return {
    get ms(): number {
      return ms;
    },
    stop: (): void => {
      globalThis.structuredClone = original;
    },
  };
}

async function run(name: string, dir: string, withExtension: boolean, env: Record<string, string>, piCompaction = true): Promise<Run> {
  // A clean folder: the extension scaffolds its config file here on first load, and a file an earlier
  // build wrote would pin that build's defaults (and earlier runs' sessions would pile up).
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const [key, value] of Object.entries(env)) process.env[key] = value;
  process.env["PI_CODING_AGENT_DIR"] = dir;
  let peakChars = 0;
  // The contexts the model was sent this turn: measured as JSON after the turn's clock stops (stringifying
  // each one inside the turn would bill the bench's own note to the run, the more so the larger it sends).
  let sentThisTurn: (readonly unknown[])[] = [];
  let summaryCalls = 0;
  let responses = 0;
  const reply = (content: Parameters<typeof fauxAssistantMessage>[0], toolUse: boolean): AssistantMessage =>
    fauxAssistantMessage(content, { responseId: `resp_${String((responses += 1))}`, stopReason: toolUse ? "toolUse" : "stop" });
  // The agent's calls declare bash (a system message's toolsAdded); Pi's summary requests declare no
  // tool. Our prompts are "step N"; any other last message (e.g. a digest an extension re-injected)
  // gets a plain answer.
  const step = (context: { messages: readonly unknown[] }): AssistantMessage => {
    const messages = context.messages as readonly Record<string, unknown>[];
    const declaresTools = messages.some((m) => m["role"] === "system" && Array.isArray(m["toolsAdded"]) && m["toolsAdded"].length > 0);
    if (!declaresTools) {
      summaryCalls += 1;
      return reply(fauxText("## Goal\nBuild the project step by step.\n## Progress\nSteps ran and built."), false);
    }
    sentThisTurn.push(messages);
    const last = messages[messages.length - 1];
    if (last?.["role"] === "toolResult") return reply(fauxText("built"), false);
    const content = last?.["content"];
    const text = typeof content === "string" ? content : Array.isArray(content) ? content.map((p: { text?: string }) => p.text ?? "").join("\n") : "";
    const m = /^step (\d+)$/.exec(text.trim());
    if (m === null) return reply(fauxText("noted"), false);
    const command = `seq -f 'step ${m[1] ?? ""} line %g: compiled src/module.ts ok, 0 warnings, cached' 1 ${String(OUTPUT_LINES)}`;
    return reply([fauxToolCall("bash", { command }, { id: `call_${m[1] ?? ""}` })], true);
  };
  const faux = fauxProvider({ models: [{ id: "faux-64k", contextWindow: WINDOW, reasoning: false, maxTokens: 4096 }] });
  faux.setResponses(Array.from({ length: 4 * TURNS + 100 }, () => step));
  const runtime = await ModelRuntime.create({ authPath: join(dir, "auth.json"), modelsPath: null });
  runtime.registerNativeProvider(faux.provider);
  await runtime.setRuntimeApiKey(faux.provider.id, "faux-key");
  const clock = new HandlerClock();
  const loader = new DefaultResourceLoader({ cwd: dir, agentDir: dir, additionalExtensionPaths: withExtension ? [extensionDir()] : [], extensionsOverride: clock.wrap });
  await loader.reload();
  const manager = SessionManager.create(dir, join(dir, "sessions"));
  const { session } = await createAgentSession({
    cwd: dir,
    agentDir: dir,
    model: faux.getModel(),
    thinkingLevel: "off",
    modelRuntime: runtime,
    resourceLoader: loader,
    sessionManager: manager,
    settingsManager: SettingsManager.inMemory({ compaction: { enabled: piCompaction }, retry: { enabled: false } }),
    tools: ["bash"],
  });
  await session.bindExtensions({ uiContext: uiStub() });
  const turnMs: number[] = [];
  const turnCpuMs: number[] = [];
  const handlerCpuMs: number[] = [];
  /** Per turn, the handlers' CPU by event (ms), for the dump. */
  const handlerEvents: Record<string, number>[] = [];
  const turnMicros: [number, number][] = [];
  const heldTokens: number[] = [];
  const copyMs: number[] = [];
  const faults: number[] = [];
  const stopGc = watchGc();
  const copies = watchCopies();
  const stopProfile = await startProfile(PROFILE_DIR, `pi-turns-${name}`, 100);
  for (let turn = 1; turn <= TURNS; turn++) {
    const startMicros = nowMicros();
    const start = performance.now();
    const cpu = process.cpuUsage();
    const inHandlers = clock.spentMs;
    const byEvent = new Map(clock.byEvent);
    const copiedMs = copies.ms;
    const faultsBefore = process.resourceUsage().minorPageFault;
    await session.prompt(`step ${String(turn)}`);
    // A compaction an extension started at the run's end begins after this macrotask; wait for it,
    // as a user's next prompt would (Pi refuses a prompt while one runs).
    await new Promise((resolve) => setImmediate(resolve));
    await session.waitForIdle();
    turnMs.push(performance.now() - start);
    const spent = process.cpuUsage(cpu);
    turnCpuMs.push((spent.user + spent.system) / 1000);
    handlerCpuMs.push(clock.spentMs - inHandlers);
    copyMs.push(copies.ms - copiedMs);
    faults.push(process.resourceUsage().minorPageFault - faultsBefore);
    handlerEvents.push(Object.fromEntries([...clock.byEvent].map(([event, micros]) => [event, (micros - (byEvent.get(event) ?? 0)) / 1000])));
    turnMicros.push([startMicros, nowMicros()]);
    for (const sent of sentThisTurn) peakChars = Math.max(peakChars, JSON.stringify(sent).length);
    sentThisTurn = [];
    let held = 0;
    for (const message of manager.buildSessionContext().messages) held += piEstimateTokens(message);
    heldTokens.push(held);
  }
  await stopProfile();
  copies.stop();
  const gc = await stopGc();
  if (DUMP_DIR !== undefined && DUMP_DIR !== "") {
    mkdirSync(DUMP_DIR, { recursive: true });
    writeFileSync(join(DUMP_DIR, `pi-turns-${name}.json`), JSON.stringify({ turnMs, turnCpuMs, handlerCpuMs, handlerEvents, turnMicros, heldTokens, copyMs, faults, gc }));
  }
  (globalThis as { gc?: () => void }).gc?.();
  const memory = process.memoryUsage();
  const entries = manager.getEntries();
  const compactions = entries.filter((e) => e.type === "compaction").length;
  let peakTokens = 0;
  for (const entry of entries) if (entry.type === "message") peakTokens = Math.max(peakTokens, promptTokens(entry.message));
  session.dispose();
  for (const key of Object.keys(env)) Reflect.deleteProperty(process.env, key);
  return { turnMs, turnCpuMs, handlerCpuMs, peakTokens, peakChars, summaryCalls, compactions, rssMb: Math.round(memory.rss / 1e6), heapMb: Math.round(memory.heapUsed / 1e6), heldTokens, gc, copyMs, faults };
}

function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}
const round = (n: number): number => Number(n.toFixed(2));

/** What Pi held after each turn: its mean and peak, in thousands of tokens. */
function heldNote(held: readonly number[]): string {
  const mean = held.reduce((sum, tokens) => sum + tokens, 0) / Math.max(1, held.length);
  return `${String(Math.round(mean / 1000))}k tokens on average, ${String(Math.round(Math.max(0, ...held) / 1000))}k at most`;
}

/** One run, as its own process is told it (`ONE_RUN`): `run`'s arguments, and the file it writes the `Run` to. */
interface RunSpec {
  readonly name: string;
  readonly dir: string;
  readonly withExtension: boolean;
  readonly env: Record<string, string>;
  readonly piCompaction: boolean;
  readonly out: string;
}

/**
 * `run` in a fresh Node process (this bench's entry, `--suite pi-turns`, told the run by ONE_RUN): no
 * run pays for another's heap, garbage or compiled code. Throws when the process fails.
 */
function runFresh(spec: Omit<RunSpec, "out">, sizes: readonly string[], benchOut: string): Run {
  const out = `${spec.dir}.run.json`;
  rmSync(out, { force: true });
  const entry = process.argv[1];
  if (entry === undefined) throw new Error("pi-turns: the bench's entry script is unknown");
  const child = spawnSync(process.execPath, ["--expose-gc", entry, "--suite", "pi-turns", "--sizes", sizes.join(","), "--out", benchOut], {
    env: { ...process.env, BENCH_PI_TURNS_ONE: JSON.stringify({ ...spec, out }) },
    stdio: ["ignore", "ignore", "inherit"],
  });
  if (child.status !== 0 || !existsSync(out)) throw new Error(`pi-turns: the ${spec.name} run failed (exit ${String(child.status)})`);
  return JSON.parse(readFileSync(out, "utf8")) as Run;
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};
const p50 = (values: readonly number[]): number => quantile(values, 0.5);
/** Per pair, `runs`' p50 minus `base`'s in the same pair (wall, CPU, and the wall inside Pi's copies). */
const pairDifferences = (runs: readonly Run[], base: readonly Run[]): { wall: number[]; cpu: number[]; copy: number[] } => ({
  wall: runs.map((r, i) => p50(r.turnMs) - p50((base[i] as Run).turnMs)),
  cpu: runs.map((r, i) => p50(r.turnCpuMs) - p50((base[i] as Run).turnCpuMs)),
  copy: runs.map((r, i) => p50(r.copyMs) - p50((base[i] as Run).copyMs)),
});
const listed = (values: readonly number[]): string => values.map((v) => String(round(v))).join(" / ");

export const piTurnsSuite: BenchSuite = async (ctx) => {
  if (ONE_RUN !== undefined && ONE_RUN !== "") {
    const spec = JSON.parse(ONE_RUN) as RunSpec;
    const made = await run(spec.name, spec.dir, spec.withExtension, spec.env, spec.piCompaction);
    writeFileSync(spec.out, JSON.stringify(made));
    return [];
  }
  // The bench's --out folder (the work folder is <out>/work/<suite>).
  const benchOut = dirname(dirname(ctx.workDir));
  const fresh = (name: string, withExtension: boolean, env: Record<string, string> = {}, piCompaction = true): Run =>
    runFresh({ name, dir: join(ctx.workDir, name), withExtension, env, piCompaction }, ctx.sizes, benchOut);
  const groups: { label: string; runs: Run[] }[] = [];
  const group = (label: string): Run[] => {
    const runs: Run[] = [];
    groups.push({ label, runs });
    return runs;
  };
  const alone = RUNS.has("alone") ? group("Pi alone") : undefined;
  const fold = RUNS.has("fold") ? group("Pi + context-fold") : undefined;
  const variantLabel = VARIANT === undefined ? "" : Object.entries(VARIANT).map(([key, value]) => `${key}=${value}`).join(" ");
  const variant = VARIANT === undefined ? undefined : group(`Pi + context-fold, variant (${variantLabel})`);
  // Pairs, the order alternated: alone first in the first pair, context-fold first in the second, …
  // (a variant runs after context-fold in the first, before it in the second, …).
  for (let pair = 1; pair <= PAIRS; pair++) {
    const order: [Run[] | undefined, string, boolean, Record<string, string>][] = [
      [alone, "alone", false, {}],
      [fold, "fold", true, {}],
      [variant, "variant", true, VARIANT ?? {}],
    ];
    if (pair % 2 === 0) order.reverse();
    for (const [runs, name, withExtension, env] of order) runs?.push(fresh(`${name}-${String(pair)}`, withExtension, env));
  }
  if (RUNS.has("off")) group("Pi + context-fold, folding off").push(fresh("off", true, { CONTEXT_FOLD_ENABLED: "false" }));
  // On request only: Pi alone with its compaction off, so its session grows as it does under our folds
  // (Pi clones and projects the whole session on each call): Pi's own share of the folded run's cost.
  if (RUNS.has("alone-uncompacted")) group("Pi alone, compaction off").push(fresh("alone-uncompacted", false, {}, false));
  const rows: BenchRow[] = [];
  const size = `${String(TURNS)} turns`;
  for (const { label, runs } of groups) {
    if (runs.length === 0) continue;
    const walls = runs.map((r) => p50(r.turnMs));
    // The run whose wall p50 is the median's (the lower middle one of an even count) gives the details.
    const middle = [...runs].sort((a, b) => p50(a.turnMs) - p50(b.turnMs))[Math.floor((runs.length - 1) / 2)] as Run;
    const each = runs.length > 1 ? `runs: ${listed(walls)} ms; ` : "";
    rows.push(
      {
        suite: "pi-turns",
        case: `${label}: turn p50 (wall)`,
        size,
        value: round(median(walls)),
        unit: "ms",
        note: `${each}p95 ${String(round(median(runs.map((r) => quantile(r.turnMs, 0.95)))))} ms; context peak ${String(middle.peakTokens)} prompt tokens (${String(middle.peakChars)} chars of message JSON); ${String(middle.compactions)} compactions, ${String(Math.max(...runs.map((r) => r.summaryCalls)))} summary requests to the model`,
      },
      {
        suite: "pi-turns",
        case: `${label}: turn p50 (CPU, whole process)`,
        size,
        value: round(median(runs.map((r) => p50(r.turnCpuMs)))),
        unit: "ms",
        note: `p95 ${String(round(median(runs.map((r) => quantile(r.turnCpuMs, 0.95)))))} ms; at the end RSS ${String(middle.rssMb)} MB, heap ${String(middle.heapMb)} MB; Pi holds (and copies before each call) ${heldNote(middle.heldTokens)}, its copies taking p50 ${String(round(median(runs.map((r) => p50(r.copyMs)))))} ms per turn; minor page faults p50 ${String(round(median(runs.map((r) => p50(r.faults)))))} per turn; collections during the turns: ${describeGc(middle.gc)}`,
      },
    );
    // With an extension: the turn's CPU split into its handlers' and the rest (Pi's own work and the GC's).
    if (middle.handlerCpuMs.some((ms) => ms > 0)) {
      const rest = (r: Run): number[] => r.turnCpuMs.map((ms, i) => ms - (r.handlerCpuMs[i] ?? 0));
      rows.push({
        suite: "pi-turns",
        case: `${label}: CPU in the extension's handlers, p50 per turn`,
        size,
        value: round(median(runs.map((r) => p50(r.handlerCpuMs)))),
        unit: "ms",
        note: `p95 ${String(round(median(runs.map((r) => quantile(r.handlerCpuMs, 0.95)))))} ms; the rest of the turn (Pi and GC) p50 ${String(round(median(runs.map((r) => p50(rest(r))))))} ms, p95 ${String(round(median(runs.map((r) => quantile(rest(r), 0.95)))))} ms`,
      });
    }
  }
  if (alone !== undefined && fold !== undefined && alone.length > 0 && alone.length === fold.length) {
    const { wall, cpu, copy } = pairDifferences(fold, alone);
    const first = fold[0] as Run;
    const base = alone[0] as Run;
    rows.push(
      {
        suite: "pi-turns",
        case: "added per turn by context-fold (p50 over Pi alone)",
        size,
        value: round(median(wall)),
        unit: "ms",
        target: "≤ 5 ms",
        note: `median over ${String(wall.length)} pairs of fresh processes (order alternated): ${listed(wall)} ms; CPU ${String(round(median(cpu)))} ms (${listed(cpu)}); of the wall, Pi's larger copy of what it holds: ${String(round(median(copy)))} ms (${listed(copy)})`,
      },
      { suite: "pi-turns", case: "context peak, folded / Pi alone (prompt tokens)", size, value: round(first.peakTokens / base.peakTokens), unit: "ratio", target: "≤ 0.7", note: `message JSON: ${String(round(first.peakChars / base.peakChars))}` },
    );
  }
  if (fold !== undefined && variant !== undefined && fold.length > 0 && fold.length === variant.length) {
    const { wall, cpu, copy } = pairDifferences(variant, fold);
    rows.push({
      suite: "pi-turns",
      case: "variant over context-fold (p50 wall, negative: the variant is cheaper)",
      size,
      value: round(median(wall)),
      unit: "ms",
      note: `${variantLabel}; median over ${String(wall.length)} pairs of fresh processes: ${listed(wall)} ms; CPU ${String(round(median(cpu)))} ms (${listed(cpu)}); in Pi's copies ${String(round(median(copy)))} ms (${listed(copy)})`,
    });
  }
  if (fold !== undefined && fold.length > 0) rows.push({ suite: "pi-turns", case: "summary requests a model answered, Pi + context-fold", size, value: Math.max(...fold.map((r) => r.summaryCalls)), unit: "count", target: "0" });
  return rows;
};
