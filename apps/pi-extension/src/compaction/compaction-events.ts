// Pi's compaction events → our compaction: `session_before_compact` returns our summary (or cancels a
// premature one), `session_compact` re-injects the digest once, `session_compact_failed` retracts our
// record; `agent_end` / `model_select` run the gate and the per-model thresholds. Nothing of ours
// reaches Pi: on any failure the hook returns nothing (Pi's default runs) and the user is told once.
import type {
  ExtensionAPI,
  ExtensionCommandContext,
  ExtensionContext,
  SessionBeforeCompactEvent,
  SessionBeforeCompactResult,
} from "@earendil-works/pi-coding-agent";
import { DIGEST_MESSAGE_TYPE } from "@context-fold/recall-engine";
import type { Usage } from "@context-fold/seed-index-format";
import type { ContextFolder } from "../fold/context-folder.js";
import type { UsageContext } from "../fold/context-usage.js";
import { tokensOfChars } from "../fold/estimate.js";
import { thresholdTokens } from "../fold/fold-planner.js";
import type { RuntimeRegistry } from "../runtime-registry.js";
import type { SessionRuntime } from "../session-runtime.js";
import type { CompactionOptions } from "./compaction-options.js";
import { CompactionSession } from "./compaction-session.js";
import { evaluateGate, type GateVerdict, heldBound, softLimit } from "./gate.js";
import { nextStepMode } from "./next-step.js";
import { thresholdFor, type ResolvedThreshold } from "./thresholds.js";

/** customType of the digest message re-injected after a compaction (in context, not displayed; not history for recall). */
export const DIGEST_MESSAGE = DIGEST_MESSAGE_TYPE;

type Ctx = Pick<ExtensionContext, "sessionManager" | "cwd" | "ui" | "model" | "getContextUsage">;

function describe(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return typeof code === "string" ? `${code}: ${error.message}` : error.message;
  }
  return String(error);
}

/** The compaction side of each session runtime, opened on first use; undefined when it has no seed index. */
export class CompactionRegistry {
  readonly options: CompactionOptions;
  readonly #runtimes: RuntimeRegistry;
  readonly #sessions = new WeakMap<SessionRuntime, CompactionSession | null>();
  readonly #told = new WeakSet<SessionRuntime>();
  readonly #advised = new WeakSet<CompactionSession>();
  /** Our gate started the compaction about to run (Pi reports it as a manual one). */
  #gateStarted = false;
  /** The compaction in flight (or last run) was automatic: nobody asked for it. */
  #automatic = false;
  /** The folder's `heldCopied` at each session's last compaction (0 before one). */
  readonly #copiedAt = new WeakMap<SessionRuntime, number>();

  constructor(runtimes: RuntimeRegistry, options: CompactionOptions) {
    this.#runtimes = runtimes;
    this.options = options;
  }

  async get(ctx: Ctx): Promise<{ runtime: SessionRuntime; session: CompactionSession | undefined }> {
    const runtime = await this.#runtimes.get(ctx);
    let session = this.#sessions.get(runtime);
    if (session === undefined) {
      const target = runtime.folder.target;
      const state = runtime.folder.state;
      session =
        target === undefined || runtime.seedIndex === undefined
          ? null
          : new CompactionSession(
              { sessionId: runtime.sessionId, seedIndex: runtime.seedIndex, cwd: ctx.cwd, ledger: target.ledger, scans: target.scans },
              { get nextSeq() { return state.nextSeq; }, codes: state.codes, claim: (record) => void state.addRecord({ ...record, spans: [] }), tail: runtime.folder.appendTail },
              this.options,
            );
      this.#sessions.set(runtime, session);
    }
    return { runtime, session: session ?? undefined };
  }

  /** Tell the user about a failure of ours, once per session, with what it means for the session. */
  tellOnce(
    runtime: SessionRuntime | undefined,
    ctx: Pick<ExtensionContext, "ui">,
    where: string,
    error: unknown,
    consequence = "Pi continues with its own compaction; nothing was lost.",
  ): void {
    if (runtime !== undefined) {
      if (this.#told.has(runtime)) return;
      this.#told.add(runtime);
    }
    try {
      ctx.ui.notify(`context-fold: ${where} failed (${describe(error)}). ${consequence}`, "warning");
    } catch {
      // best effort: a broken UI must not turn our failure into Pi's
    }
  }

  /** Advise once per crossing (reset by a compaction). */
  adviseOnce(session: CompactionSession): boolean {
    if (this.#advised.has(session)) return false;
    this.#advised.add(session);
    return true;
  }
  resetAdvice(session: CompactionSession): void {
    this.#advised.delete(session);
  }

  /** A compaction went through: Pi's copies are counted from here. */
  noteCompacted(runtime: SessionRuntime): void {
    this.#copiedAt.set(runtime, runtime.folder.heldCopied);
  }
  /** What Pi held at each model call since the session's last compaction, summed (tokens). */
  copiedSinceCompaction(runtime: SessionRuntime): number {
    return runtime.folder.heldCopied - (this.#copiedAt.get(runtime) ?? 0);
  }

  /** Our gate is starting a compaction (automatic, though Pi sees `ctx.compact` as manual). */
  gateStarting(): void {
    this.#gateStarted = true;
  }
  /** The gate's compaction did not run: the next compaction is not the gate's. */
  gateFailed(): void {
    this.#gateStarted = false;
  }
  /** A compaction begins with Pi's reason: automatic unless asked for (and not started by our gate). */
  noteCompaction(reason: string): void {
    this.#automatic = reason !== "manual" || this.#gateStarted;
    this.#gateStarted = false;
  }
  get automatic(): boolean {
    return this.#automatic;
  }
}

function modelThreshold(options: CompactionOptions, ctx: Pick<ExtensionContext, "model">, contextWindow: number): ResolvedThreshold | undefined {
  const model = ctx.model;
  return model === undefined ? undefined : thresholdFor(options.thresholds, { provider: model.provider, id: model.id }, contextWindow);
}

/**
 * The limit the gate compacts over: the model's threshold, or the fold threshold once the fold ladder
 * reached its floor (folding alone no longer keeps the context under it), whichever is lower. Without
 * that floor the stubs folds leave behind grow with every turn until Pi's own threshold fires.
 */
function gateThreshold(options: CompactionOptions, ctx: Pick<ExtensionContext, "model">, folder: ContextFolder, contextWindow: number): ResolvedThreshold | undefined {
  const model = modelThreshold(options, ctx, contextWindow);
  if (!folder.floorReached) return model;
  const floor: ResolvedThreshold = { tokens: thresholdTokens(contextWindow, folder.options), source: "fold floor" };
  return model !== undefined && model.tokens <= floor.tokens ? model : floor;
}

function usageOf(runtime: SessionRuntime, ctx: UsageContext, fallbackTokens?: number): Usage | undefined {
  const usage = runtime.usage.usage(ctx);
  if (usage === undefined || !(usage.contextWindow > 0)) return undefined;
  const tokens = usage.tokens ?? fallbackTokens;
  if (tokens === undefined) return undefined;
  return { tokens: Math.round(tokens), contextWindow: usage.contextWindow, fraction: Number((tokens / usage.contextWindow).toFixed(4)) };
}

async function beforeCompact(
  registry: CompactionRegistry,
  event: SessionBeforeCompactEvent,
  ctx: ExtensionContext,
): Promise<SessionBeforeCompactResult | undefined> {
  let runtime: SessionRuntime | undefined;
  let session: CompactionSession | undefined;
  registry.noteCompaction(event.reason);
  try {
    ({ runtime, session } = await registry.get(ctx));
    const options = registry.options;
    const usage = usageOf(runtime, ctx, event.preparation.tokensBefore);
    // Compact later: Pi's automatic trigger fired below this model's threshold. Explicit requests
    // (`/compact`, our command) and overflow recovery always go through.
    if (event.reason === "threshold" && usage !== undefined) {
      const threshold = modelThreshold(options, ctx, usage.contextWindow);
      if (threshold !== undefined && usage.tokens <= threshold.tokens) {
        ctx.ui.notify(
          `context-fold: held off Pi's compaction at ${String(Math.round(usage.fraction * 100))}% (threshold ${threshold.source}: ${String(threshold.tokens)} tokens).`,
          "info",
        );
        return { cancel: true };
      }
    }
    if (session === undefined) return undefined;
    const branchIds = new Set(event.branchEntries.map((entry) => entry.id));
    const prepared = options.overrideDefaultCompaction
      ? await session.prepare(usage, branchIds, ctx.sessionManager.getLeafId())
      : await session.prepare(usage);
    const notice = session.takeNotice();
    if (notice !== undefined) ctx.ui.notify(notice, "info");
    if (prepared === undefined || !options.overrideDefaultCompaction) return undefined;
    return {
      compaction: {
        summary: prepared.result.summary,
        firstKeptEntryId: prepared.result.firstKeptEntryId,
        tokensBefore: event.preparation.tokensBefore,
        details: prepared.details,
      },
    };
  } catch (error) {
    registry.tellOnce(runtime, ctx, "compaction", error);
    if (session !== undefined) {
      try {
        await session.failed(`context-fold hook failed: ${describe(error)}`);
      } catch {
        session.abandon();
      }
    }
    return undefined;
  }
}

async function afterCompact(pi: ExtensionAPI, registry: CompactionRegistry, ctx: ExtensionContext): Promise<void> {
  let runtime: SessionRuntime | undefined;
  try {
    const got = await registry.get(ctx);
    runtime = got.runtime;
    registry.noteCompacted(runtime);
    const session = got.session;
    if (session === undefined) return;
    registry.resetAdvice(session);
    const again = await session.completed();
    if (again === undefined) return;
    const mode = nextStepMode(registry.options.nextStep, registry.automatic, ctx.mode === "tui");
    const next = mode === "off" ? undefined : again.next;
    const nextLine = next === undefined ? "" : `\nNext step (${next.source === "pending" ? "pending work" : next.source === "task" ? "last user task" : "last correction"}): ${next.text}\n`;
    const content = mode === "autonomous" && next !== undefined ? `${again.digest}${nextLine}Continue with the next step.` : again.digest;
    pi.sendMessage({ customType: DIGEST_MESSAGE, content, display: false }, mode === "autonomous" && next !== undefined ? { triggerTurn: true } : undefined);
    const accounting = again.digest.trimEnd().split("\n").pop() ?? "";
    ctx.ui.notify(`context-fold: compacted; digest re-injected (~${String(again.digestTokens)} tokens; ${accounting}).`, "info");
    if (mode === "advisory" && next !== undefined) ctx.ui.notify(`context-fold: ${nextLine.trim()}`, "info");
  } catch (error) {
    registry.tellOnce(runtime, ctx, "re-injecting the digest", error, "The compaction stands; the durable artifacts stay on disk (context-fold artifacts shows them).");
  }
}

async function compactFailed(registry: CompactionRegistry, ctx: ExtensionContext, reason: string): Promise<void> {
  let runtime: SessionRuntime | undefined;
  try {
    const got = await registry.get(ctx);
    runtime = got.runtime;
    await got.session?.failed(reason);
  } catch (error) {
    registry.tellOnce(runtime, ctx, "retracting the compact record", error, "The seed index may list a compaction that did not happen; recall still verifies every span against the session file.");
  }
}

/** Start a compaction through Pi (our hook then supplies the summary); reports the outcome. */
export function triggerCompaction(ctx: Pick<ExtensionContext, "compact" | "ui">, why: string, onFailed?: () => void): void {
  ctx.compact({
    onComplete: () => undefined,
    onError: (error) => {
      onFailed?.();
      // Pi calls this after the fact: the session may be gone by then (disposed or replaced), and its
      // stale ctx throws on use. Nothing of ours may become Pi's unhandled rejection.
      try {
        ctx.ui.notify(`context-fold: compaction (${why}) did not run: ${error.message}`, "warning");
      } catch {
        // no session left to tell
      }
    },
  });
}

/**
 * The gate after a run (or a model switch): over a model threshold → compact (both modes); over the
 * soft limit with enough to reclaim → advise, or compact in `actuate` mode. Returns the verdict.
 */
export async function checkGate(registry: CompactionRegistry, ctx: ExtensionContext, event: "agent_end" | "model_select"): Promise<GateVerdict | undefined> {
  const { runtime, session } = await registry.get(ctx);
  if (session === undefined || session.inFlight !== undefined) return undefined;
  if (event === "agent_end") session.noteRunEnded();
  // The session file's size by one stat (undefined: Pi has not created it yet); nothing is read here.
  const bytes = session.target.ledger.size();
  const reported = runtime.usage.usage(ctx);
  if (bytes === undefined || reported === undefined || !(reported.contextWindow > 0)) return undefined;
  const options = registry.options;
  const threshold = gateThreshold(options, ctx, runtime.folder, reported.contextWindow);
  // What Pi holds, folds not applied (known once folding ran a call): over its limit, the cut is planned
  // whatever the sent context's size. The limit falls to `paidHeldWindows` windows once Pi's copies since the last
  // compaction add up to the session file (what a compaction reads and re-lists): see `heldBound`.
  const held = runtime.folder.heldTokens;
  const copies = heldCopies(registry, runtime, bytes);
  const heldOver = held !== undefined && held > heldBound(reported.contextWindow, options, copies);
  // Far under the limit (Pi's count below PREPARE_AHEAD_AT of it) the verdict is "under the limit"
  // whatever a compaction would reclaim: no cut to plan, nothing to read, feed, prepare or write. The
  // facts wait in the session file: the first run near a compaction feeds what every run since appended
  // (the same facts, fed in one go), so a run far from one costs a stat, whatever it appended. Until
  // the facts hold anything (a session's first runs, or the history of a session resumed in this
  // process) the gate reads and feeds at every run: that first read is the session's, not a run's.
  const near = reported.tokens == null || isNear(options, reported.contextWindow, reported.tokens, threshold);
  if (!near && !heldOver) {
    if (session.facts.lastIndex < 0 && (await session.sync(false)) === undefined) return undefined;
    return evaluateGate({ tokens: reported.tokens ?? 0, contextWindow: reported.contextWindow, reclaimable: 0, runsSinceCompaction: session.runsSinceCompaction, threshold }, options);
  }
  const ledger = await session.sync(false);
  if (ledger === undefined) return undefined;
  await session.persist(ledger);
  let cut;
  try {
    // Planned once, kept in the facts' summary parts: the compaction this gate starts for this session
    // read (and `prepareAhead` below) finds the cut and the lineage listed instead of planning them again.
    cut = session.facts.cut(ledger);
  } catch {
    return { fire: false, reason: "nothing to compact" };
  }
  const tokens = reported.tokens ?? cut.tokensBefore;
  // The ledger's count is the context unfolded; Pi's count is what is sent (folds applied). A compaction
  // takes out what is sent before the cut, so with folds it reclaims at most Pi's count minus the kept
  // tail and the summary (otherwise the fold floor would compact again and again for nothing).
  const reclaimable = Math.max(0, Math.min(cut.tokensBefore, tokens) - cut.keptTokens - options.summaryBudget);
  // From what Pi holds, a compaction takes out everything before the cut (the ledger's count of it).
  const heldInput = heldOver ? { tokens: held, reclaimable: Math.max(0, cut.tokensBefore - cut.keptTokens - options.summaryBudget), ...copies } : undefined;
  // Only the sent context's nearing is worth drafting ahead: over the held limit the gate compacts now.
  if (isNear(options, reported.contextWindow, tokens, threshold)) await session.prepareAhead();
  const verdict = evaluateGate({ tokens, contextWindow: reported.contextWindow, reclaimable, runsSinceCompaction: session.runsSinceCompaction, threshold, held: heldInput }, options);
  if (!verdict.fire) return verdict;
  // Over a threshold or the held limit the gate compacts in both modes: Pi alone would have compacted
  // (with a model) long before; `advise` only governs the soft limit.
  if (verdict.trigger === "threshold" || verdict.trigger === "held" || options.mode === "actuate") {
    ctx.ui.notify(`context-fold: compacting (${verdict.reason}).`, "info");
    registry.gateStarting();
    triggerCompaction(ctx, verdict.reason, () => registry.gateFailed());
  } else if (registry.adviseOnce(session)) {
    ctx.ui.notify(`context-fold: a compaction is worth it now (${verdict.reason}); run /context-fold compact.`, "info");
  }
  return verdict;
}

/** Pi's copies since the last compaction, and the session file they are weighed against (`heldBound`), in tokens. */
function heldCopies(registry: CompactionRegistry, runtime: SessionRuntime, sessionBytes: number): { copied: number; history: number } {
  return { copied: registry.copiedSinceCompaction(runtime), history: tokensOfChars(sessionBytes) };
}

/** Fraction of the compaction limit from which the compaction is computed ahead, between turns. */
export const PREPARE_AHEAD_AT = 0.8;

function isNear(options: CompactionOptions, contextWindow: number, tokens: number, threshold: ResolvedThreshold | undefined): boolean {
  const limit = Math.min(threshold?.tokens ?? Number.POSITIVE_INFINITY, softLimit(contextWindow, options));
  return tokens >= PREPARE_AHEAD_AT * limit;
}

/**
 * At the model call after a turn with tool results (the context hook calls this with the usage it read):
 * near a compaction, prepare what the hook builds from (the facts' snapshots, the record's fields, the
 * earlier summaries folded), so a compaction Pi starts before a later response only cuts, renders and
 * writes. The whole compaction is not drafted per turn (it would cost each turn as much as the hook); the
 * gate at `agent_end` drafts it between runs. Not a `turn_end` handler: in Pi 1.6 `turn_end` is an
 * actionable boundary, and while any extension handles it Pi copies and projects the whole branch
 * before and after each handler and re-projects it after, on every turn, near a compaction or not.
 */
export async function prepareAfterToolTurn(
  registry: CompactionRegistry,
  messages: readonly { readonly role?: string }[],
  usage: { readonly tokens: number | null; readonly contextWindow: number } | undefined,
  ctx: ExtensionContext,
): Promise<void> {
  if (messages.at(-1)?.role !== "toolResult" || usage?.tokens == null || !(usage.contextWindow > 0)) return;
  let runtime: SessionRuntime | undefined;
  try {
    const got = await registry.get(ctx);
    runtime = got.runtime;
    const session = got.session;
    if (session === undefined || session.inFlight !== undefined) return;
    const threshold = gateThreshold(registry.options, ctx, runtime.folder, usage.contextWindow);
    if (isNear(registry.options, usage.contextWindow, usage.tokens, threshold)) await session.prepareParts();
  } catch (error) {
    registry.tellOnce(runtime, ctx, "preparing the compaction", error);
  }
}

/** `/context-fold compact`: compact now, whatever the gate and thresholds say. */
export function compactCommand(ctx: ExtensionCommandContext): void {
  ctx.ui.notify("context-fold: compacting on request.", "info");
  triggerCompaction(ctx, "requested");
}

export function registerCompaction(pi: ExtensionAPI, registry: CompactionRegistry): void {
  pi.on("session_before_compact", (event, ctx) => beforeCompact(registry, event, ctx));
  pi.on("session_compact", (_event, ctx) => afterCompact(pi, registry, ctx));
  pi.on("session_compact_failed", (event, ctx) =>
    compactFailed(registry, ctx, event.aborted ? "compaction cancelled" : `compaction failed: ${event.errorMessage ?? "unknown error"}`),
  );
  const gate = async (ctx: ExtensionContext, name: "agent_end" | "model_select"): Promise<void> => {
    let runtime: SessionRuntime | undefined;
    try {
      runtime = (await registry.get(ctx)).runtime;
      await checkGate(registry, ctx, name);
    } catch (error) {
      registry.tellOnce(runtime, ctx, `the compaction gate (${name})`, error, "No compaction was triggered; Pi's own thresholds still apply.");
    }
  };
  pi.on("agent_end", (_event, ctx) => gate(ctx, "agent_end"));
  pi.on("model_select", (_event, ctx) => gate(ctx, "model_select"));
}
