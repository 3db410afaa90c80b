// Read-only structural access to Pi's context messages (AgentMessage), so the fold engine can run on
// Pi's messages and on messages replayed from a session file alike, without Pi's runtime.

/** A context message as the engine sees it: any object; the fields it reads are checked at runtime. */
export type ContextMessage = object;

export interface ToolResultView {
  readonly toolCallId: string;
  readonly toolName: string | undefined;
  readonly content: unknown;
}

export interface AssistantView {
  readonly responseId: string | undefined;
  readonly content: readonly unknown[];
}

function field(message: ContextMessage, name: string): unknown {
  return (message as Record<string, unknown>)[name];
}

export function roleOf(message: ContextMessage): string | undefined {
  const role = field(message, "role");
  return typeof role === "string" ? role : undefined;
}

export function toolResultView(message: ContextMessage): ToolResultView | undefined {
  if (roleOf(message) !== "toolResult") return undefined;
  const id = field(message, "toolCallId");
  if (typeof id !== "string" || id.length === 0) return undefined;
  const name = field(message, "toolName");
  return { toolCallId: id, toolName: typeof name === "string" ? name : undefined, content: field(message, "content") };
}

export function assistantView(message: ContextMessage): AssistantView | undefined {
  if (roleOf(message) !== "assistant") return undefined;
  const content = field(message, "content");
  if (!Array.isArray(content)) return undefined;
  const responseId = field(message, "responseId");
  return { responseId: typeof responseId === "string" && responseId.length > 0 ? responseId : undefined, content };
}

/** The `thinking` text of an assistant content part, or undefined when it is not a thinking part. */
export function thinkingText(part: unknown): string | undefined {
  if (typeof part !== "object" || part === null) return undefined;
  const p = part as { type?: unknown; thinking?: unknown };
  return p.type === "thinking" && typeof p.thinking === "string" ? p.thinking : undefined;
}

/** Characters of the text parts of a content array (a string counts whole), without joining them. */
export function textPartsLength(content: unknown): number {
  if (typeof content === "string") return content.length;
  if (!Array.isArray(content)) return 0;
  let length = 0;
  let parts = 0;
  for (const part of content as unknown[]) {
    const p = part as { type?: unknown; text?: unknown } | null;
    if (p !== null && typeof p === "object" && p.type === "text" && typeof p.text === "string") {
      length += p.text.length;
      parts += 1;
    }
  }
  return parts > 1 ? length + parts - 1 : length;
}
