// Turns one migrated entry into its normalized blocks, with the text and anchors contract-decisions.md
// defines (toolResult text parts joined by "\n"; assistant parts anchorable only with a responseId).
import { assistantPartText, joinTextParts, partAnchor, resultAnchor } from "@context-fold/seed-index-format";
import type { Block, BlockKind, Entry } from "./types.js";

type MutableBlock = { -readonly [K in keyof Block]: Block[K] };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function str(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** An anchor, or undefined when the id cannot make one that reads back (empty, or ending in ":edit:<id>"). */
function safeAnchor(make: () => string): string | undefined {
  try {
    return make();
  } catch {
    return undefined;
  }
}

/** The role an entry's blocks carry: the message role, or the entry type. */
export function entryRole(entry: Entry): string {
  if (entry.type === "message") {
    const message = entry.raw["message"];
    if (isRecord(message) && typeof message["role"] === "string") return message["role"];
  }
  return entry.type;
}

/** true for a user message (what turns count). */
export function isUserMessage(raw: Readonly<Record<string, unknown>>): boolean {
  const message = raw["message"];
  return raw["type"] === "message" && isRecord(message) && message["role"] === "user";
}

/**
 * The blocks of one entry, numbered from `firstIndex`. Entries that carry no content (model changes,
 * labels, custom state, system messages, unknown types) have none.
 */
export function entryBlocks(entry: Entry, firstIndex: number, withText: boolean): Block[] {
  const blocks: Block[] = [];
  const base = (kind: BlockKind, role: string, text: string): MutableBlock => ({
    index: firstIndex + blocks.length,
    entryId: entry.id,
    entryPosition: entry.position,
    kind,
    role,
    turn: entry.turn,
    text: withText ? text : "",
    timestamp: entry.timestamp,
    line: entry.line,
    byteOffset: entry.byteOffset,
    byteLength: entry.byteLength,
  });
  const raw = entry.raw;
  switch (entry.type) {
    case "message": {
      const message = raw["message"];
      if (!isRecord(message)) return blocks;
      const role = str(message["role"]);
      const content = message["content"];
      if (role === "user") {
        blocks.push(base("user", role, joinTextParts(content)));
      } else if (role === "assistant") {
        if (!Array.isArray(content)) return blocks;
        const responseId = str(message["responseId"]);
        content.forEach((part: unknown, partIndex) => {
          if (!isRecord(part)) return;
          if (part["type"] === "toolCall") {
            const args = isRecord(part["arguments"]) ? part["arguments"] : {};
            const block = base("toolCall", role, JSON.stringify(part["arguments"] ?? {}));
            block.partIndex = partIndex;
            const name = str(part["name"]);
            if (name !== undefined) block.toolName = name;
            const id = str(part["id"]);
            if (id !== undefined) block.toolCallId = id;
            block.args = args;
            blocks.push(block);
            return;
          }
          const text = assistantPartText(part);
          if (text === undefined) return;
          const block = base(part["type"] === "thinking" ? "thinking" : "text", role, text);
          block.partIndex = partIndex;
          if (responseId !== undefined && responseId.length > 0) {
            const anchor = safeAnchor(() => partAnchor(responseId, partIndex));
            if (anchor !== undefined) block.anchor = anchor;
          }
          blocks.push(block);
        });
      } else if (role === "toolResult") {
        const block = base("toolResult", role, joinTextParts(content));
        const toolCallId = str(message["toolCallId"]);
        if (toolCallId !== undefined) {
          block.toolCallId = toolCallId;
          const anchor = safeAnchor(() => resultAnchor(toolCallId));
          if (anchor !== undefined) block.anchor = anchor;
        }
        const toolName = str(message["toolName"]);
        if (toolName !== undefined) block.toolName = toolName;
        if (typeof message["isError"] === "boolean") block.isError = message["isError"];
        const details = message["details"];
        const fullOutputPath = isRecord(details) ? str(details["fullOutputPath"]) : undefined;
        if (fullOutputPath !== undefined) block.fullOutputPath = fullOutputPath;
        blocks.push(block);
      } else if (role === "bashExecution") {
        const block = base("bash", role, str(message["output"]) ?? "");
        block.toolName = "bash";
        block.args = { command: str(message["command"]) ?? "" };
        const exitCode = message["exitCode"];
        if (typeof exitCode === "number") {
          block.exitCode = exitCode;
          block.isError = exitCode !== 0;
        }
        const fullOutputPath = str(message["fullOutputPath"]);
        if (fullOutputPath !== undefined) block.fullOutputPath = fullOutputPath;
        blocks.push(block);
      } else if (role === "custom") {
        blocks.push(base("custom", role, joinTextParts(content)));
      }
      return blocks;
    }
    case "custom_message":
      blocks.push(base("custom", "custom_message", joinTextParts(raw["content"])));
      return blocks;
    case "compaction":
      blocks.push(base("compaction", "compaction", str(raw["summary"]) ?? ""));
      return blocks;
    case "branch_summary":
      blocks.push(base("branchSummary", "branch_summary", str(raw["summary"]) ?? ""));
      return blocks;
    default:
      return blocks;
  }
}
