// What is not history: messages the context-fold extension (or pi-vcc before it) put into the
// conversation itself — recall results, `/recall` output, the compaction digest, memory blocks. They
// restate what is already in the session, so indexed as history they would come back as the top hits
// of every later recall of the same words ("recall finds itself"). They keep their `#N` (numbering is
// the ledger's, contract-decisions.md) and stay expandable; only search skips them.
import type { Block } from "@context-fold/ledger-reader";

/** Tools whose calls and results are recall traffic: this extension's and pi-vcc's. */
export const RECALL_TOOL_NAMES: ReadonlySet<string> = new Set(["context_recall", "vcc_recall"]);

/**
 * `customType`s of the messages the extension injects: `/recall` output, the digest re-injected after
 * a compaction, and memory blocks. The extension imports these names from here, so the list has one home.
 */
export const RECALL_MESSAGE_TYPE = "context-fold-recall";
export const DIGEST_MESSAGE_TYPE = "context-fold-digest";
export const MEMORY_MESSAGE_TYPE = "context-fold-memory";
export const INJECTED_MESSAGE_TYPES: ReadonlySet<string> = new Set([RECALL_MESSAGE_TYPE, DIGEST_MESSAGE_TYPE, MEMORY_MESSAGE_TYPE]);

/** The session's entries as far as this rule reads them (a ledger-reader `Session` has them). */
export interface EntrySource {
  readonly entries?: readonly { readonly raw: Readonly<Record<string, unknown>> }[];
}

/** The `customType` of the entry (its `raw`) a custom block came from, when it is known. */
function customTypeOf(raw: Readonly<Record<string, unknown>> | undefined, block: Block): string | undefined {
  if (block.kind !== "custom") return undefined;
  if (raw === undefined) return undefined;
  const direct = raw["customType"];
  if (typeof direct === "string") return direct;
  // A custom-role message inside a `message` entry carries it on the message.
  const message = raw["message"];
  if (typeof message === "object" && message !== null) {
    const nested = (message as Record<string, unknown>)["customType"];
    if (typeof nested === "string") return nested;
  }
  return undefined;
}

/** true when `block` is one of the extension's injected messages or recall traffic, not history. */
export function isNotHistory(session: EntrySource, block: Block): boolean {
  return isNotHistoryOf(session.entries?.[block.entryPosition]?.raw, block);
}

/** `isNotHistory` of a block whose entry (`raw`, as read) is at hand: a streamed read has no session to ask. */
export function isNotHistoryOf(raw: Readonly<Record<string, unknown>> | undefined, block: Block): boolean {
  if ((block.kind === "toolCall" || block.kind === "toolResult") && block.toolName !== undefined && RECALL_TOOL_NAMES.has(block.toolName)) return true;
  const type = customTypeOf(raw, block);
  return type !== undefined && INJECTED_MESSAGE_TYPES.has(type);
}
