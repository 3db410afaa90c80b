// Re-reading one block's text from the file (read-only): for sessions read without text, and for a
// recall that opens from its cache without parsing the ledger.
import { closeSync, openSync, readSync } from "node:fs";
import { entryBlocks } from "./blocks.js";
import { LedgerError } from "./errors.js";
import type { Block, BlockKind, Entry, Session } from "./types.js";

/** Where an entry's JSON text sits in the file. */
export interface EntryLocation {
  readonly byteOffset: number;
  readonly byteLength: number;
}

/**
 * The text of the `kind` block (assistant parts: the one at `partIndex`) of the entry whose JSON text sits
 * at `at` in `path`, read as a v3 entry; undefined when those bytes no longer parse or hold no such block.
 * Throws the file system's error when the file cannot be read.
 */
export function blockTextAt(path: string, at: EntryLocation, kind: BlockKind, partIndex?: number): string | undefined {
  const bytes = Buffer.alloc(at.byteLength);
  const fd = openSync(path, "r");
  let got = 0;
  try {
    while (got < bytes.length) {
      const n = readSync(fd, bytes, got, bytes.length - got, at.byteOffset + got);
      if (n === 0) break;
      got += n;
    }
  } finally {
    closeSync(fd);
  }
  if (got < bytes.length) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString("utf8"));
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const raw = value as Record<string, unknown>;
  const entry: Entry = {
    line: 0,
    byteOffset: at.byteOffset,
    position: 0,
    id: typeof raw["id"] === "string" ? raw["id"] : "",
    parentId: null,
    type: typeof raw["type"] === "string" ? raw["type"] : "",
    timestamp: undefined,
    byteLength: at.byteLength,
    recovered: false,
    raw,
    turn: 0,
  };
  return entryBlocks(entry, 0, true).find((b) => b.kind === kind && b.partIndex === partIndex)?.text;
}

export function blockTextFromFile(session: Session, block: Block): string {
  const entry = session.entries[block.entryPosition];
  const fail = (why: string): never => {
    throw new LedgerError("NOT_LOADED", session.path, `cannot re-read block #${String(block.index)}: ${why}; read the session again`, {
      line: block.line,
      byteOffset: block.byteOffset,
    });
  };
  if (entry === undefined) return fail("its entry is not in this session");
  let text: string | undefined;
  try {
    text = blockTextAt(session.path, entry, block.kind, block.partIndex);
  } catch (error) {
    return fail(error instanceof Error ? error.message : String(error));
  }
  return text === undefined ? fail("the file changed under it") : text;
}
