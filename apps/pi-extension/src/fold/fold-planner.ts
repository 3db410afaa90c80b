// The fold ladder's decision for one model call: is usage over the threshold (or the cap), which stale
// blocks outside the protected tail can fold, and is that enough to be worth a fold event. Pure.
import { assistantPartAnchor, assistantView, messageRole, type PiMessage, textPartsLength, thinkingText, toolResultView } from "@context-fold/ledger-reader";
import { joinTextParts, type SeedTrigger } from "@context-fold/seed-index-format";
import { estimateMessageTokens, tokensOfChars } from "./estimate.js";
import type { FoldState } from "./fold-state.js";
import type { FoldOptions } from "../options.js";

/** Context usage as the ladder sees it. `estimated`: Pi had no count, the engine estimated it. */
export interface UsageView {
  readonly tokens: number;
  readonly contextWindow: number;
  readonly estimated: boolean;
}

export type FoldCandidate =
  | { readonly kind: "toolResult"; readonly anchor: string; readonly messageIndex: number; readonly text: string; readonly tool: string | undefined }
  | { readonly kind: "thinking"; readonly anchor: string; readonly messageIndex: number; readonly partIndex: number; readonly text: string };

export interface FoldPlan {
  readonly trigger: Extract<SeedTrigger, "threshold" | "cap">;
  readonly usage: UsageView;
  readonly candidates: readonly FoldCandidate[];
  /** Estimated tokens the fold reclaims (block text minus its stub). */
  readonly reclaim: number;
}

/** What a stub costs in tokens, roughly (its fixed text plus a first line). */
export const STUB_TOKENS = 70;

/** Tokens at which the next threshold fold fires. */
export function thresholdTokens(contextWindow: number, options: FoldOptions): number {
  return Math.ceil(options.threshold * contextWindow);
}

/**
 * Index of the first protected message: the tail holding at most `tailFraction` of the window (half of
 * it for a cap fold), extended to cover the newest `keepRecentResults` tool results.
 */
export function protectedFrom(messages: readonly PiMessage[], contextWindow: number, options: FoldOptions, trigger: FoldPlan["trigger"]): number {
  const tailTokens = (trigger === "cap" ? options.tailFraction / 2 : options.tailFraction) * contextWindow;
  const keep = trigger === "cap" ? Math.min(options.keepRecentResults, 1) : options.keepRecentResults;
  let from = messages.length;
  let spent = 0;
  let results = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i] as PiMessage;
    const mustKeep = results < keep;
    if (messageRole(message) === "toolResult") results += 1;
    spent += estimateMessageTokens(message);
    if (spent > tailTokens && !mustKeep) break;
    from = i;
  }
  return from;
}

function lastUserIndex(messages: readonly PiMessage[]): number {
  for (let i = messages.length - 1; i >= 0; i--) if (messageRole(messages[i] as PiMessage) === "user") return i;
  return -1;
}

/** Blocks that may fold now: large, not folded or pinned, before `end`; thinking only before the current loop. */
export function foldCandidates(messages: readonly PiMessage[], end: number, state: FoldState, options: FoldOptions): FoldCandidate[] {
  const out: FoldCandidate[] = [];
  // Thinking of the current tool-use loop (after the last user message) is what the provider may
  // require back verbatim; it never folds.
  const thinkingEnd = Math.min(end, lastUserIndex(messages));
  for (let i = 0; i < end; i++) {
    const message = messages[i] as PiMessage;
    const result = toolResultView(message);
    if (result !== undefined) {
      const anchor = result.anchor;
      if (anchor === undefined) continue; // an id that makes no anchor: never folded (nothing could recall it)
      if (state.get(anchor) !== undefined || state.isPinned(anchor)) continue;
      // Size first: joining the parts of every small result on every call would cost O(context).
      if (textPartsLength(result.content) < options.minBlockChars) continue;
      const text = joinTextParts(result.content);
      out.push({ kind: "toolResult", anchor, messageIndex: i, text, tool: result.toolName });
      continue;
    }
    if (!options.foldThinking || i >= thinkingEnd) continue;
    const assistant = assistantView(message);
    if (assistant?.responseId === undefined) continue; // without a responseId a part is not anchorable
    for (let p = 0; p < assistant.content.length; p++) {
      const text = thinkingText(assistant.content[p]);
      if (text === undefined || text.length < options.minBlockChars) continue;
      const anchor = assistantPartAnchor(assistant, p);
      if (anchor === undefined) continue;
      if (state.get(anchor) !== undefined || state.isPinned(anchor)) continue;
      out.push({ kind: "thinking", anchor, messageIndex: i, partIndex: p, text });
    }
  }
  return out;
}

/**
 * What folding can do for one call: the fold to make now (if any), and whether the context stays at or
 * over the threshold even with every foldable block outside the protected tail folded. That second
 * case is the ladder's floor: the stubs and small messages that folds leave behind (they grow with
 * every turn) plus the protected tail fill the threshold by themselves, so no fold brings the context
 * back under it and only a compaction can.
 */
export interface FoldAssessment {
  readonly plan: FoldPlan | undefined;
  readonly floorReached: boolean;
}

/** `messages` are the ones going out (folds applied). Under the threshold: no plan, no floor. */
export function assessFold(messages: readonly PiMessage[], usage: UsageView, state: FoldState, options: FoldOptions): FoldAssessment {
  if (!options.enabled || usage.contextWindow <= 0) return { plan: undefined, floorReached: false };
  const fraction = usage.tokens / usage.contextWindow;
  if (fraction < options.threshold) return { plan: undefined, floorReached: false };
  const trigger = fraction >= options.cap ? "cap" : "threshold";
  const end = protectedFrom(messages, usage.contextWindow, options, trigger);
  const candidates = foldCandidates(messages, end, state, options);
  let reclaim = 0;
  for (const candidate of candidates) reclaim += Math.max(0, tokensOfChars(candidate.text.length) - STUB_TOKENS);
  const floorReached = usage.tokens - reclaim >= thresholdTokens(usage.contextWindow, options);
  if (candidates.length === 0 || reclaim <= 0) return { plan: undefined, floorReached };
  // Over the threshold (not the cap), a fold fires only when it is worth the prompt-cache miss it costs.
  if (trigger === "threshold" && reclaim < options.minFoldFraction * usage.contextWindow) return { plan: undefined, floorReached };
  return { plan: { trigger, usage, candidates, reclaim }, floorReached };
}

/**
 * The fold to make before this call, or undefined. Over the cap: fold whatever is foldable. Over the
 * threshold: fold when at least `minFoldFraction` of the window comes back, so fold events stay few and
 * each one is worth the prompt-cache miss it costs.
 */
export function planFold(messages: readonly PiMessage[], usage: UsageView, state: FoldState, options: FoldOptions): FoldPlan | undefined {
  return assessFold(messages, usage, state, options).plan;
}
