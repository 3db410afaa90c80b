// Token estimates for context messages (chars / 4, the same rule Pi uses when a provider reports
// nothing). Used for the protected tail, the foldable amount, and usage when Pi has no count.
import { assistantView, messageRole, type PiMessage, thinkingText } from "@context-fold/ledger-reader";

/** Rough cost of an image part (providers bill images far above their base64 length / 4). */
const IMAGE_TOKENS = 1200;

export function tokensOfChars(chars: number): number {
  return Math.ceil(chars / 4);
}

/** Arguments size per tool-call id: an edit's arguments can hold whole files, and Pi sends a fresh copy
 * of every message on every call, so the size is remembered by id (bounded; cleared when full). */
const argumentSizes = new Map<string, number>();
const ARGUMENT_CACHE_MAX = 50_000;

function argumentChars(call: { id?: unknown; arguments?: unknown }): number {
  if (call.arguments === undefined) return 0;
  const id = typeof call.id === "string" ? call.id : undefined;
  const known = id === undefined ? undefined : argumentSizes.get(id);
  if (known !== undefined) return known;
  const size = JSON.stringify(call.arguments).length;
  if (id !== undefined) {
    if (argumentSizes.size >= ARGUMENT_CACHE_MAX) argumentSizes.clear();
    argumentSizes.set(id, size);
  }
  return size;
}

function partChars(part: unknown): number {
  if (typeof part === "string") return part.length;
  if (typeof part !== "object" || part === null) return 0;
  const p = part as { type?: unknown; text?: unknown; thinking?: unknown; name?: unknown; arguments?: unknown };
  if (p.type === "text" && typeof p.text === "string") return p.text.length;
  if (p.type === "thinking") return thinkingText(part)?.length ?? 0;
  if (p.type === "image") return IMAGE_TOKENS * 4;
  if (p.type === "toolCall") {
    const name = typeof p.name === "string" ? p.name.length : 0;
    return name + argumentChars(part as { id?: unknown; arguments?: unknown });
  }
  return 0;
}

function contentChars(content: unknown): number {
  if (typeof content === "string") return content.length;
  if (!Array.isArray(content)) return 0;
  let chars = 0;
  for (const part of content as unknown[]) chars += partChars(part);
  return chars;
}

/** Estimated tokens of one message (content only; role framing is noise at this precision). */
export function estimateMessageTokens(message: PiMessage): number {
  const role = messageRole(message);
  const m = message as { content?: unknown; output?: unknown; command?: unknown; summary?: unknown };
  if (role === "assistant") {
    const view = assistantView(message);
    return view === undefined ? 0 : tokensOfChars(contentChars(view.content));
  }
  if (role === "bashExecution") {
    const out = typeof m.output === "string" ? m.output.length : 0;
    const cmd = typeof m.command === "string" ? m.command.length : 0;
    return tokensOfChars(out + cmd);
  }
  if (typeof m.summary === "string") return tokensOfChars(m.summary.length);
  return tokensOfChars(contentChars(m.content));
}

/** Estimated tokens of a whole message list. */
export function estimateTokens(messages: readonly PiMessage[]): number {
  let total = 0;
  for (const message of messages) total += estimateMessageTokens(message);
  return total;
}
