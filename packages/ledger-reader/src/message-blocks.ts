// The one conversion of a Pi message into blocks. A message is the same object whether Pi holds it in
// memory (an AgentMessage in the `context` event) or a session file stores it (a `message` entry's
// `message`), so the file reader, the live inventory and the fold engine all take their blocks, texts
// and anchors from here: one block numbering and one anchor rule everywhere (contract-decisions.md:
// toolResult text parts joined by "\n"; assistant parts anchorable only with a responseId).
// The views below read single fields without building blocks, for callers that run on every model
// call and must not join the text of every message (the fold engine).
import { partAnchor, resultAnchor } from "@context-fold/seed-index-format/anchors";
import { assistantPartText, joinTextParts } from "@context-fold/seed-index-format/block-text";
import type { MessageBlock } from "./types.js";
import { isRecord } from "./is-record.js";

export type { MessageBlock };

/** A Pi message as the converter sees it: any object; the fields it reads are checked at runtime. */
export type PiMessage = object;

type MutableBlock = { -readonly [K in keyof MessageBlock]: MessageBlock[K] };

function str(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

function field(message: PiMessage, name: string): unknown {
  return (message as Record<string, unknown>)[name];
}

/** An anchor, or undefined when the id cannot make one that reads back (empty, or ending in ":edit:<id>"). */
function safeAnchor(make: () => string): string | undefined {
  try {
    return make();
  } catch {
    return undefined;
  }
}

function imageCount(content: unknown): number {
  if (!Array.isArray(content)) return 0;
  let n = 0;
  for (const part of content as unknown[]) if (isRecord(part) && part["type"] === "image") n += 1;
  return n;
}

/** The message's role, or undefined when it has none. */
export function messageRole(message: PiMessage): string | undefined {
  return str(field(message, "role"));
}

export interface ToolResultView {
  readonly toolCallId: string | undefined;
  readonly toolName: string | undefined;
  readonly content: unknown;
  /** `r:<toolCallId>`, undefined when the id makes no anchor (the result is then never folded or recalled by anchor). */
  readonly anchor: string | undefined;
}

/** A tool result's fields, or undefined for any other message. */
export function toolResultView(message: PiMessage): ToolResultView | undefined {
  if (messageRole(message) !== "toolResult") return undefined;
  const toolCallId = str(field(message, "toolCallId"));
  return {
    toolCallId,
    toolName: str(field(message, "toolName")),
    content: field(message, "content"),
    anchor: toolCallId === undefined ? undefined : safeAnchor(() => resultAnchor(toolCallId)),
  };
}

export interface AssistantView {
  /** The responseId when non-empty: without one no part is anchorable. */
  readonly responseId: string | undefined;
  readonly content: readonly unknown[];
}

/** An assistant message's responseId and parts, or undefined for any other message (or no parts array). */
export function assistantView(message: PiMessage): AssistantView | undefined {
  if (messageRole(message) !== "assistant") return undefined;
  const content = field(message, "content");
  if (!Array.isArray(content)) return undefined;
  const responseId = str(field(message, "responseId"));
  return { responseId: responseId !== undefined && responseId.length > 0 ? responseId : undefined, content };
}

/** `a:<responseId>:p<partIndex>`, or undefined when the message has no responseId that makes an anchor. */
export function assistantPartAnchor(view: AssistantView, partIndex: number): string | undefined {
  const responseId = view.responseId;
  return responseId === undefined ? undefined : safeAnchor(() => partAnchor(responseId, partIndex));
}

/** The `thinking` text of an assistant content part, or undefined when it is not a thinking part. */
export function thinkingText(part: unknown): string | undefined {
  if (!isRecord(part)) return undefined;
  return part["type"] === "thinking" && typeof part["thinking"] === "string" ? part["thinking"] : undefined;
}

/** Characters of `joinTextParts(content)` without joining (a string counts whole). */
export function textPartsLength(content: unknown): number {
  if (typeof content === "string") return content.length;
  if (!Array.isArray(content)) return 0;
  let length = 0;
  let parts = 0;
  for (const part of content as unknown[]) {
    if (isRecord(part) && part["type"] === "text" && typeof part["text"] === "string") {
      length += part["text"].length;
      parts += 1;
    }
  }
  return parts > 1 ? length + parts - 1 : length;
}

function withImages(block: MutableBlock, content: unknown): MutableBlock {
  const images = imageCount(content);
  if (images > 0) block.images = images;
  return block;
}

/**
 * The blocks of one message, in part order: one per user message, assistant text/thinking/toolCall
 * part, tool result, `!cmd` (bashExecution), custom message and summary message. Undefined for a role
 * this converter does not know (callers decide whether such a message counts).
 */
export function blocksOfMessage(message: PiMessage): MessageBlock[] | undefined {
  if (!isRecord(message)) return undefined;
  const role = str(message["role"]);
  const content = message["content"];
  switch (role) {
    case "user":
      return [withImages({ kind: "user", role, text: joinTextParts(content) }, content)];
    case "assistant": {
      const blocks: MessageBlock[] = [];
      const view = assistantView(message);
      if (view === undefined) return blocks;
      view.content.forEach((part: unknown, partIndex) => {
        if (!isRecord(part)) return;
        if (part["type"] === "toolCall") {
          const block: MutableBlock = { kind: "toolCall", role, text: JSON.stringify(part["arguments"] ?? {}), partIndex };
          const name = str(part["name"]);
          if (name !== undefined) block.toolName = name;
          const id = str(part["id"]);
          if (id !== undefined) block.toolCallId = id;
          block.args = isRecord(part["arguments"]) ? part["arguments"] : {};
          blocks.push(block);
          return;
        }
        const text = assistantPartText(part);
        if (text === undefined) return;
        const block: MutableBlock = { kind: part["type"] === "thinking" ? "thinking" : "text", role, text, partIndex };
        const anchor = assistantPartAnchor(view, partIndex);
        if (anchor !== undefined) block.anchor = anchor;
        blocks.push(block);
      });
      return blocks;
    }
    case "toolResult": {
      const view = toolResultView(message) as ToolResultView;
      const block: MutableBlock = { kind: "toolResult", role, text: joinTextParts(content) };
      if (view.toolCallId !== undefined) block.toolCallId = view.toolCallId;
      if (view.anchor !== undefined) block.anchor = view.anchor;
      if (view.toolName !== undefined) block.toolName = view.toolName;
      if (typeof message["isError"] === "boolean") block.isError = message["isError"];
      const details = message["details"];
      const fullOutputPath = isRecord(details) ? str(details["fullOutputPath"]) : undefined;
      if (fullOutputPath !== undefined) block.fullOutputPath = fullOutputPath;
      return [withImages(block, content)];
    }
    case "bashExecution": {
      const block: MutableBlock = { kind: "bash", role, text: str(message["output"]) ?? "", toolName: "bash", args: { command: str(message["command"]) ?? "" } };
      const exitCode = message["exitCode"];
      if (typeof exitCode === "number") {
        block.exitCode = exitCode;
        block.isError = exitCode !== 0;
      }
      const fullOutputPath = str(message["fullOutputPath"]);
      if (fullOutputPath !== undefined) block.fullOutputPath = fullOutputPath;
      return [block];
    }
    case "custom":
      return [withImages({ kind: "custom", role, text: joinTextParts(content) }, content)];
    // What Pi's context holds in place of a compaction or branch summary entry.
    case "compactionSummary":
      return [{ kind: "compaction", role, text: str(message["summary"]) ?? "" }];
    case "branchSummary":
      return [{ kind: "branchSummary", role, text: str(message["summary"]) ?? "" }];
    default:
      return undefined;
  }
}
