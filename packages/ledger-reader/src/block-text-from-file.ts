// For sessions read without text: re-reads one entry's bytes from the file (read-only) to get a block's text.
import { closeSync, openSync, readSync } from "node:fs";
import { entryBlocks } from "./blocks.js";
import { LedgerError } from "./errors.js";
import type { Block, Entry, Session } from "./types.js";

export function blockTextFromFile(session: Session, block: Block): string {
  const entry = session.entries[block.entryPosition];
  const fail = (why: string): never => {
    throw new LedgerError("NOT_LOADED", session.path, `cannot re-read block #${String(block.index)}: ${why}; read the session again`, {
      line: block.line,
      byteOffset: block.byteOffset,
    });
  };
  if (entry === undefined) return fail("its entry is not in this session");
  const bytes = Buffer.alloc(entry.byteLength);
  let fd: number;
  try {
    fd = openSync(session.path, "r");
  } catch (error) {
    return fail(error instanceof Error ? error.message : String(error));
  }
  try {
    readSync(fd, bytes, 0, bytes.length, entry.byteOffset);
  } finally {
    closeSync(fd);
  }
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString("utf8"));
  } catch {
    return fail("the file changed under it");
  }
  if (typeof value !== "object" || value === null) return fail("the file changed under it");
  const again: Entry = { ...entry, raw: value as Record<string, unknown> };
  const match = entryBlocks(again, 0, true).find((b) => b.kind === block.kind && b.partIndex === block.partIndex);
  return match === undefined ? fail("the file changed under it") : match.text;
}
