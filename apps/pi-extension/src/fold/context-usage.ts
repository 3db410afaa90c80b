// Pi's context usage figure (`ctx.getContextUsage()`), kept per session from the entries appended since
// the last call. In Pi 1.6 every `getContextUsage()` projects the whole session and walks the whole
// branch (150–200 ms a call on a 100 MB session), and the fold ladder and the compaction gate need the
// figure on every model call and at every run's end. Yet the figure depends only on the branch's tail:
// Pi reports the usage of the last assistant that reported one, plus its chars/4 estimate of every
// context message after it; null when a compaction came after the last such assistant; and a fresh
// estimate of the whole context when a context edit came after it (or none ever reported usage). So the
// tracker walks back from the leaf to the first entry that decides the figure (or to the leaf it last
// saw) and keeps the tally at the new leaf: a call costs the entries appended since the one before.
// The two cases it cannot settle from the tail (a context edit after the last usage, no usage on the
// whole branch) and a virtual model (whose window is the routed model's) are asked of Pi itself.
import {
  type ContextUsage,
  calculateContextTokens,
  estimateTokens,
  type ExtensionContext,
  type SessionEntry,
  sessionEntryToContextMessages,
} from "@earendil-works/pi-coding-agent";

/** What the branch up to an entry makes Pi report. */
type Tally =
  /** The last assistant usage (after every compaction and context edit) plus the estimate of what followed it. */
  | { readonly kind: "usage"; readonly tokens: number }
  /** A compaction with no assistant usage after it: Pi reports `tokens: null`. */
  | { readonly kind: "unknown" }
  /** A context edit after the last usage, or no usage on the branch: only Pi's own projection says. */
  | { readonly kind: "pi" };

const UNKNOWN: Tally = { kind: "unknown" };
const ASK_PI: Tally = { kind: "pi" };

/** Pi's rule for an assistant whose usage counts (`getAssistantUsage`): not aborted, not failed, non-zero. */
function reportedTokens(entry: SessionEntry): number | undefined {
  if (entry.type !== "message") return undefined;
  const message = entry.message as { role?: unknown; stopReason?: unknown; usage?: Parameters<typeof calculateContextTokens>[0] };
  if (message.role !== "assistant" || message.stopReason === "aborted" || message.stopReason === "error" || message.usage == null) return undefined;
  const tokens = calculateContextTokens(message.usage);
  return tokens > 0 ? tokens : undefined;
}

/** The tally an entry sets whatever came before it, if it is one that does. */
function resetBy(entry: SessionEntry): Tally | undefined {
  const tokens = reportedTokens(entry);
  if (tokens !== undefined) return { kind: "usage", tokens };
  if (entry.type === "compaction") return UNKNOWN;
  if (entry.type === "context_edit") return ASK_PI;
  return undefined;
}

/** The tally after `entry`, given the tally before it. */
function step(tally: Tally, entry: SessionEntry): Tally {
  const reset = resetBy(entry);
  if (reset !== undefined) return reset;
  if (tally.kind !== "usage") return tally;
  // The messages Pi projects the entry into (a custom message, a branch summary, …), estimated as Pi does.
  let tokens = tally.tokens;
  for (const message of sessionEntryToContextMessages(entry)) tokens += estimateTokens(message);
  return { kind: "usage", tokens };
}

export type UsageContext = Pick<ExtensionContext, "sessionManager" | "model" | "getContextUsage">;

/** Pi's `getContextUsage()` figure for one session, at the cost of the entries appended since the last call. */
export class ContextUsageTracker {
  /** The tally at the leaf of the last call (entries never change once appended, so it holds for that id). */
  #at: { readonly leafId: string; readonly tally: Tally } | undefined;

  /** What `ctx.getContextUsage()` returns now (the same figure; Pi is asked only where the tail cannot say). */
  usage(ctx: UsageContext): ContextUsage | undefined {
    const model = ctx.model;
    if (model === undefined) return undefined;
    // A virtual model's limits are those of the model it routed the last response to: Pi knows which.
    if (model.api === "pi-virtual") return ctx.getContextUsage();
    const contextWindow = model.contextWindow;
    if (!(contextWindow > 0)) return undefined;
    const tally = this.#tally(ctx.sessionManager);
    if (tally.kind === "pi") return ctx.getContextUsage();
    if (tally.kind === "unknown") return { tokens: null, contextWindow, percent: null };
    return { tokens: tally.tokens, contextWindow, percent: (tally.tokens / contextWindow) * 100 };
  }

  #tally(manager: UsageContext["sessionManager"]): Tally {
    const leaf = manager.getLeafEntry();
    if (leaf === undefined) return ASK_PI;
    // Walk back to the last call's leaf or to an entry that sets the tally; then forward over the rest.
    const after: SessionEntry[] = [];
    let tally: Tally = ASK_PI;
    for (let entry: SessionEntry | undefined = leaf; entry !== undefined; entry = entry.parentId === null ? undefined : manager.getEntry(entry.parentId)) {
      if (entry.id === this.#at?.leafId) {
        tally = this.#at.tally;
        break;
      }
      const reset = resetBy(entry);
      if (reset !== undefined) {
        tally = reset;
        break;
      }
      after.push(entry);
    }
    for (let i = after.length - 1; i >= 0; i--) tally = step(tally, after[i] as SessionEntry);
    this.#at = { leafId: leaf.id, tally };
    return tally;
  }
}
