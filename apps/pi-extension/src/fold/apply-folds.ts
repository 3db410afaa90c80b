// Replaces folded blocks by their frozen stubs in the messages of one model call. Touches only folded
// tool results and folded thinking parts; every other message is passed through as the same object.
import { assistantPartAnchor, assistantView, messageRole, type PiMessage, thinkingText, toolResultView } from "@context-fold/ledger-reader";
import { joinTextParts } from "@context-fold/seed-index-format";
import type { FoldState } from "./fold-state.js";

/**
 * The messages with every folded block replaced by its stub, or undefined when nothing is folded in
 * them. A folded thinking part is removed and a text part carrying the stub takes its place: a thinking
 * part is never resent with changed text (its provider signature would no longer match).
 */
export function applyFolds<M extends PiMessage>(messages: readonly M[], state: FoldState): M[] | undefined {
  if (state.isEmpty) return undefined;
  let out: M[] | undefined;
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i] as M;
    const replaced = foldMessage(message, state);
    if (replaced === undefined) continue;
    out ??= messages.slice();
    out[i] = replaced;
  }
  return out;
}

/**
 * `applied` (what `applyFolds` made of `messages`, or undefined when it left them unchanged) after a fold
 * event that folded blocks of the messages at `indexes` only: those are folded again from Pi's originals,
 * every other message is kept as it was. The same result as `applyFolds(messages, state)`, without
 * walking the whole context again.
 */
export function refoldAt<M extends PiMessage>(messages: readonly M[], applied: M[] | undefined, indexes: Iterable<number>, state: FoldState): M[] | undefined {
  let out: M[] | undefined;
  for (const i of indexes) {
    const message = messages[i];
    if (message === undefined) continue;
    const replaced = foldMessage(message, state);
    if (replaced === undefined) continue;
    out ??= (applied ?? messages).slice();
    out[i] = replaced;
  }
  return out ?? applied;
}

/**
 * Anchors of tool results by toolCallId (null: the id makes none). Every call walks every tool result of
 * the context, and making an anchor checks that it reads back: each id's is made once (bounded; cleared
 * when full). The rule stays `toolResultView`'s.
 */
const resultAnchors = new Map<string, string | null>();
const RESULT_ANCHOR_CACHE_MAX = 50_000;

/** The anchor of a tool result message (undefined: it has none); null for any other message. */
function resultAnchorOf(message: PiMessage): string | undefined | null {
  if (messageRole(message) !== "toolResult") return null;
  const id = (message as { toolCallId?: unknown }).toolCallId;
  const known = typeof id === "string" ? resultAnchors.get(id) : undefined;
  if (known !== undefined) return known ?? undefined;
  const anchor = toolResultView(message)?.anchor;
  if (typeof id === "string") {
    if (resultAnchors.size >= RESULT_ANCHOR_CACHE_MAX) resultAnchors.clear();
    resultAnchors.set(id, anchor ?? null);
  }
  return anchor;
}

function foldMessage<M extends PiMessage>(message: M, state: FoldState): M | undefined {
  const anchor = resultAnchorOf(message);
  if (anchor !== null) {
    const span = anchor === undefined ? undefined : state.get(anchor);
    if (span === undefined) return undefined;
    const stub = state.stubFor(span, () => joinTextParts((message as { content?: unknown }).content));
    return { ...message, content: [{ type: "text", text: stub }] };
  }
  const assistant = assistantView(message);
  if (assistant?.responseId === undefined || !state.hasThinkingFolds(assistant.responseId)) return undefined;
  let content: unknown[] | undefined;
  for (let p = 0; p < assistant.content.length; p++) {
    const text = thinkingText(assistant.content[p]);
    if (text === undefined) continue;
    const anchor = assistantPartAnchor(assistant, p);
    const span = anchor === undefined ? undefined : state.get(anchor);
    if (span === undefined) continue;
    content ??= assistant.content.slice();
    content[p] = { type: "text", text: state.stubFor(span, () => text) };
  }
  return content === undefined ? undefined : { ...message, content };
}
