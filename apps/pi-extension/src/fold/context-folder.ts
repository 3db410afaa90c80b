// The per-call fold engine: apply the frozen folds, ask the ladder whether to fold more, and if so
// record one fold event and apply it. Nearing the threshold, it feeds the fold stretch in the background,
// between calls. Everything it reads from the ledger (the stretch, the blocks it folds) lies before the
// protected tail, so the snapshot another handler already read (the gate reads the appended bytes at
// every run's end) almost always holds it: the file is read here only when that snapshot falls short.
// Independent of Pi's runtime (the bench drives it directly).
import { assistantPartAnchor, assistantView, type PiMessage, type Session, toolResultView } from "@context-fold/ledger-reader";
import type { SeedScanCache } from "@context-fold/extractors";
import type { AppendTail } from "@context-fold/seed-index-format";
import { applyFolds, refoldAt } from "./apply-folds.js";
import { estimateTokens, tokensOfChars } from "./estimate.js";
import { assessFold, protectedFrom, STUB_TOKENS, type UsageView } from "./fold-planner.js";
import { blockFor, recordFold, type RecordedFold } from "./fold-recorder.js";
import type { FoldState } from "./fold-state.js";
import { FoldStretch } from "./fold-stretch.js";
import type { LedgerTracker } from "../ledger-tracker.js";
import type { FoldOptions } from "../options.js";

/** Where fold events go: the session's ledger and seed index. */
export interface FoldTarget {
  readonly sessionId: string;
  readonly seedIndex: string;
  readonly cwd?: string | undefined;
  readonly ledger: LedgerTracker;
  /**
   * Seed scans shared by every accumulator of this session fed the ledger tracker's block objects (the
   * fold stretch's and the compaction's): a block is scanned once, not once per accumulator.
   */
  readonly scans?: SeedScanCache | undefined;
}

/** Usage as Pi reports it (`ctx.getContextUsage()`): tokens may be null (e.g. right after a compaction). */
export interface ReportedUsage {
  readonly tokens: number | null;
  readonly contextWindow: number;
}

/** Fraction of the threshold from which the ledger is read and the stretch fed ahead of a fold. */
const PREPARE_AT = 0.8;

/**
 * The session holding every one of `anchors`: the ledger's last snapshot when it does (no I/O), else the
 * file read anew (its appended bytes only). Undefined while Pi has not written the file.
 */
async function sessionHolding(ledger: LedgerTracker, anchors: readonly string[]): Promise<Session | undefined> {
  const settled = ledger.settled;
  if (settled !== undefined && anchors.every((anchor) => blockFor(settled, anchor) !== undefined)) return settled;
  return ledger.current();
}

/** Anchor of the newest anchorable message before `end` (where the stretch may be fed up to). */
function lastAnchorBefore(messages: readonly PiMessage[], end: number): string | undefined {
  for (let i = end - 1; i >= 0; i--) {
    const message = messages[i] as PiMessage;
    const result = toolResultView(message);
    if (result !== undefined) {
      if (result.anchor !== undefined) return result.anchor;
      continue;
    }
    const assistant = assistantView(message);
    const anchor = assistant === undefined || assistant.content.length === 0 ? undefined : assistantPartAnchor(assistant, assistant.content.length - 1);
    if (anchor !== undefined) return anchor;
  }
  return undefined;
}

export class ContextFolder {
  readonly state: FoldState;
  readonly options: FoldOptions;
  readonly target: FoldTarget | undefined;
  readonly #stretch: FoldStretch;
  /** Why new fold events are off (no session file, an earlier failure); existing folds still apply. */
  #blocked: string | undefined;
  #lastUsage: UsageView | undefined;
  #lastFold: RecordedFold | undefined;
  /** A deferred fold was told to the user already (once per session). */
  #deferTold = false;
  /** A message for the user, taken once by the hook. */
  #notice: string | undefined;
  /** The background ledger read + stretch feed, if one runs. */
  #preparing: Promise<void> | undefined;
  /** The anchor the stretch was last fed up to: the next call with the same boundary has nothing to feed. */
  #preparedTo: string | undefined;
  /** The last call found the ladder's floor: folding alone can no longer keep the context under the threshold. */
  #floorReached = false;
  /** The seed index as our last fold append left it (the next append skips reading its tail when nothing changed). */
  readonly #appendTail: AppendTail = {};
  /** `maskedTokens` as of a fold-state version. */
  #masked: { readonly version: number; readonly tokens: number } | undefined;
  /** Estimated tokens of the messages Pi handed the last call, folds not applied (undefined: folding off, or no call yet). */
  #heldTokens: number | undefined;
  /** `#heldTokens` summed over the calls so far: what Pi's copies before each call have cost, in tokens. */
  #heldCopied = 0;

  constructor(state: FoldState, options: FoldOptions, target: FoldTarget | undefined, blocked?: string) {
    this.state = state;
    this.options = options;
    this.target = target;
    this.#stretch = new FoldStretch(target?.cwd, target?.scans);
    this.#blocked = target === undefined ? (blocked ?? "the session has no file to recall from") : blocked;
  }

  get blocked(): string | undefined {
    return this.#blocked;
  }
  /** Stop new fold events (after a failure); the folds made so far keep applying, frozen. */
  block(reason: string): void {
    this.#blocked = reason;
  }
  get lastUsage(): UsageView | undefined {
    return this.#lastUsage;
  }
  /** A message for the user (e.g. a deferred fold), returned once. */
  takeNotice(): string | undefined {
    const notice = this.#notice;
    this.#notice = undefined;
    return notice;
  }

  /**
   * The seed index as the last append of this session's writers left it (fold records here, `compact`
   * records by the compaction side, which shares it): an append right after another of ours skips
   * reading the file's tail back (a `compact` record of a long session can be megabytes).
   */
  get appendTail(): AppendTail {
    return this.#appendTail;
  }

  /** The last `#N` the next fold record's stretch has been fed through (-1: nothing yet). */
  get preparedThrough(): number {
    return this.#stretch.fedThrough;
  }

  get lastFold(): RecordedFold | undefined {
    return this.#lastFold;
  }

  /**
   * The last model call found the context at or over the fold threshold even with everything foldable
   * folded (stubs and the protected tail fill it): the compaction gate takes the threshold as its limit
   * then, so our compaction runs long before Pi's own threshold would ask a model for a summary.
   */
  get floorReached(): boolean {
    return this.#floorReached;
  }

  /**
   * What Pi held at the last model call: the branch since its last compaction, before our folds
   * (estimated tokens of the messages the call was given; system prompt and tools left out). Folds
   * shrink what is sent, not this: Pi keeps it in memory and copies it before every call, so the
   * compaction gate bounds it. Undefined while folding is off (then what is sent is what Pi holds).
   */
  get heldTokens(): number | undefined {
    return this.#heldTokens;
  }

  /**
   * What Pi held at each model call so far, summed (estimated tokens, folds not applied): Pi copies all
   * it holds before every call, so this is what those copies cost. The gate compares what they added up
   * to since the last compaction with what a compaction costs (see `evaluateGate`).
   */
  get heldCopied(): number {
    return this.#heldCopied;
  }

  /**
   * Usage for the ladder: Pi's count when it has one, else an estimate of the outgoing messages plus
   * `floorTokens` (system prompt and tools). Undefined without a context window (no model).
   */
  usageOf(reported: ReportedUsage | undefined, outgoing: readonly PiMessage[], floorTokens: number): UsageView | undefined {
    if (reported === undefined || !(reported.contextWindow > 0)) return undefined;
    if (reported.tokens !== null && Number.isFinite(reported.tokens)) {
      return { tokens: reported.tokens, contextWindow: reported.contextWindow, estimated: false };
    }
    return { tokens: estimateTokens(outgoing) + floorTokens, contextWindow: reported.contextWindow, estimated: true };
  }

  /** The messages to send for one model call: undefined when they go out unchanged. */
  async process<M extends PiMessage>(messages: readonly M[], reported: ReportedUsage | undefined, floorTokens = 0): Promise<M[] | undefined> {
    const folded = applyFolds(messages, this.state);
    const outgoing = folded ?? messages;
    this.#heldTokens = this.options.enabled ? estimateTokens(messages) : undefined;
    this.#heldCopied += this.#heldTokens ?? 0;
    const usage = this.usageOf(reported, outgoing, floorTokens);
    if (usage !== undefined) this.#lastUsage = usage;
    const target = this.target;
    this.#floorReached = false;
    if (usage === undefined || this.#blocked !== undefined || target === undefined || !this.options.enabled) return folded;
    // Prepare (read the ledger, feed the stretch) once usage nears the threshold, and from the first
    // fold event on, so that a fold right after a compaction does not find a long unfed stretch.
    const near = usage.tokens >= PREPARE_AT * this.options.threshold * usage.contextWindow;
    if (!near && this.state.events === 0) return folded;
    // Everything before the threshold tail is what the next fold event's record describes.
    const feedAnchor = lastAnchorBefore(outgoing, protectedFrom(outgoing, usage.contextWindow, this.options, "threshold"));
    const assessment = near ? assessFold(outgoing, usage, this.state, this.options) : undefined;
    this.#floorReached = assessment?.floorReached ?? false;
    const plan = assessment?.plan;
    if (plan === undefined) {
      this.#prepare(target, feedAnchor);
      return folded;
    }
    await this.#preparing?.catch(() => undefined);
    const needed = plan.candidates.map((candidate) => candidate.anchor);
    if (feedAnchor !== undefined) needed.push(feedAnchor);
    const session = await sessionHolding(target.ledger, needed);
    if (session === undefined) return folded; // Pi has not written the file yet: fold on a later call
    const recorded = await recordFold({
      session,
      state: this.state,
      stretch: this.#stretch,
      plan,
      sessionId: target.sessionId,
      seedIndex: target.seedIndex,
      feedThrough: feedAnchor === undefined ? -1 : (blockFor(session, feedAnchor)?.index ?? -1),
      tail: this.#appendTail,
      onDeferred: () => {
        if (this.#deferTold) return;
        this.#deferTold = true;
        this.#notice = "context-fold: another writer held the seed index's lock; this fold is deferred to a later call (said once).";
      },
    });
    if (recorded === undefined) return folded;
    this.#lastFold = recorded;
    // Only the candidates' messages changed: fold those again instead of walking the whole context.
    return refoldAt(messages, folded, new Set(plan.candidates.map((candidate) => candidate.messageIndex)), this.state);
  }

  /** Feed the stretch up to `anchor`, in the background (one run at a time), reading the ledger only if needed. */
  #prepare(target: FoldTarget, anchor: string | undefined): void {
    if (this.#preparing !== undefined || anchor === undefined || anchor === this.#preparedTo) return;
    this.#preparing = (async () => {
      // After this call has gone out: the feed runs while the model works, off Pi's path while a real model
      // generates (a model that answers at once, like the bench's faux one, leaves it on the turn's wall
      // time). Without this yield a snapshot already read would be fed from before the hook returns.
      await new Promise((resolve) => setImmediate(resolve));
      const session = await sessionHolding(target.ledger, [anchor]);
      if (session === undefined) return;
      const block = blockFor(session, anchor);
      if (block === undefined) return;
      await this.#stretch.feedInSlices(session, this.state, block.index);
      this.#preparedTo = anchor;
    })()
      .catch(() => undefined) // a real problem surfaces at the fold event, which repeats the work
      .finally(() => {
        this.#preparing = undefined;
      });
  }

  /**
   * Estimated tokens the folds keep out of the context (block bytes / 4 minus a stub each). The footer
   * asks after every model call: summed again only when the folded spans changed.
   */
  maskedTokens(): number {
    const version = this.state.version;
    if (this.#masked?.version === version) return this.#masked.tokens;
    let masked = 0;
    for (const span of this.state.spans()) masked += Math.max(0, tokensOfChars(span.bytes) - STUB_TOKENS);
    this.#masked = { version, tokens: masked };
    return masked;
  }
}
