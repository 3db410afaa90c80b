// Turns one migrated entry into its normalized blocks: a message entry's come from the message converter
// (message-blocks.ts, shared with the live context); summaries and custom messages are entries here.
import { joinTextParts } from "@context-fold/seed-index-format/block-text";
import { blocksOfMessage } from "./message-blocks.js";
import type { Block, BlockKind, Entry } from "./types.js";
import { isRecord } from "./is-record.js";

type MutableBlock = { -readonly [K in keyof Block]: Block[K] };

function str(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
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
      // The message's own blocks, from the one converter the live context uses too.
      for (const { kind, role, text, images: _images, ...fields } of blocksOfMessage(message) ?? []) blocks.push(Object.assign(base(kind, role, text), fields));
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
