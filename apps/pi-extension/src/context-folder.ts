// The per-call fold engine: apply the frozen folds, ask the ladder whether to fold more, and if so
// record one fold event and apply it. Independent of Pi's runtime (the bench drives it directly).
import { applyFolds } from "./apply-folds.js";
import { estimateTokens, tokensOfChars } from "./estimate.js";
import { recordFold, type RecordedFold } from "./fold-recorder.js";
import { planFold, STUB_TOKENS, type UsageView } from "./fold-planner.js";
import type { FoldState } from "./fold-state.js";
import type { LedgerTracker } from "./ledger-tracker.js";
import type { ContextMessage } from "./message-view.js";
import type { FoldOptions } from "./options.js";

/** Where fold events go: the session's ledger and seed index. */
export interface FoldTarget {
  readonly sessionId: string;
  readonly seedIndex: string;
  readonly cwd?: string | undefined;
  readonly ledger: LedgerTracker;
}

/** Usage as Pi reports it (`ctx.getContextUsage()`): tokens may be null (e.g. right after a compaction). */
export interface ReportedUsage {
  readonly tokens: number | null;
  readonly contextWindow: number;
}

export class ContextFolder {
  readonly state: FoldState;
  readonly options: FoldOptions;
  readonly target: FoldTarget | undefined;
  /** Why new fold events are off (no session file, an earlier failure); existing folds still apply. */
  #blocked: string | undefined;
  #lastUsage: UsageView | undefined;
  #lastFold: RecordedFold | undefined;

  constructor(state: FoldState, options: FoldOptions, target: FoldTarget | undefined, blocked?: string) {
    this.state = state;
    this.options = options;
    this.target = target;
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
  get lastFold(): RecordedFold | undefined {
    return this.#lastFold;
  }

  /**
   * Usage for the ladder: Pi's count when it has one, else an estimate of the outgoing messages plus
   * `floorTokens` (system prompt and tools). Undefined without a context window (no model).
   */
  usageOf(reported: ReportedUsage | undefined, outgoing: readonly ContextMessage[], floorTokens: number): UsageView | undefined {
    if (reported === undefined || !(reported.contextWindow > 0)) return undefined;
    if (reported.tokens !== null && Number.isFinite(reported.tokens)) {
      return { tokens: reported.tokens, contextWindow: reported.contextWindow, estimated: false };
    }
    return { tokens: estimateTokens(outgoing) + floorTokens, contextWindow: reported.contextWindow, estimated: true };
  }

  /** The messages to send for one model call: undefined when they go out unchanged. */
  async process<M extends ContextMessage>(messages: readonly M[], reported: ReportedUsage | undefined, floorTokens = 0): Promise<M[] | undefined> {
    const folded = applyFolds(messages, this.state);
    const outgoing = folded ?? messages;
    const usage = this.usageOf(reported, outgoing, floorTokens);
    if (usage !== undefined) this.#lastUsage = usage;
    if (usage === undefined || this.#blocked !== undefined || this.target === undefined) return folded;
    const plan = planFold(outgoing, usage, this.state, this.options);
    if (plan === undefined) return folded;
    const session = await this.target.ledger.current();
    if (session === undefined) return folded; // Pi has not written the file yet: fold on a later call
    const recorded = await recordFold({
      session,
      state: this.state,
      plan,
      sessionId: this.target.sessionId,
      seedIndex: this.target.seedIndex,
      cwd: this.target.cwd,
    });
    if (recorded === undefined) return folded;
    this.#lastFold = recorded;
    return applyFolds(messages, this.state);
  }

  /** Estimated tokens the folds keep out of the context (block bytes / 4 minus a stub each). */
  maskedTokens(): number {
    let masked = 0;
    for (const span of this.state.spans()) masked += Math.max(0, tokensOfChars(span.bytes) - STUB_TOKENS);
    return masked;
  }
}
