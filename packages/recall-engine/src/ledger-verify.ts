// Checks a block against the ledger file as it is now: anchorable blocks through the ledger reader's
// anchor resolution re-reading the file (sha256 compared); others by re-reading their entry's bytes.
import { closeSync, openSync, readSync } from "node:fs";
import { blockTextAt, resolveAnchor, type Block, type Session } from "@context-fold/ledger-reader";
import { sha256Hex } from "@context-fold/seed-index-format";
import type { BlockVerifier } from "./recall-index.js";

function readEntryBytes(path: string, block: Block): string | null {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return null;
  }
  try {
    const buf = Buffer.alloc(block.byteLength);
    const n = readSync(fd, buf, 0, buf.length, block.byteOffset);
    return n === buf.length ? buf.toString("utf8") : null;
  } finally {
    closeSync(fd);
  }
}

/** Every non-empty line of `text`, JSON-escaped as Pi writes it, occurs in the entry's JSON. */
function carriesText(json: string, text: string): boolean {
  let start = 0;
  while (start <= text.length) {
    const end = text.indexOf("\n", start);
    const line = text.slice(start, end < 0 ? text.length : end);
    if (line.length > 0 && !json.includes(JSON.stringify(line).slice(1, -1))) return false;
    if (end < 0) break;
    start = end + 1;
  }
  return true;
}

/** A verifier for `RecallIndex.expand` over `session` (read with text). */
export function ledgerVerifier(session: Session): BlockVerifier {
  // A view without text makes the reader re-read the entry from the file instead of trusting memory.
  const fromFile: Session = { ...session, withText: false };
  return (block) => {
    if (block.anchor !== undefined) {
      let result;
      try {
        result = resolveAnchor(fromFile, block.anchor, sha256Hex(block.text));
      } catch (error) {
        return `the ledger no longer holds ${block.anchor}: ${error instanceof Error ? error.message : String(error)}`;
      }
      if (result.status !== "ok") return `anchor ${block.anchor} is ${result.status} in the ledger`;
      return result.verified === true ? null : `sha256 mismatch against the ledger for ${block.anchor}`;
    }
    const json = readEntryBytes(session.path, block);
    if (json === null) return "cannot re-read its entry from the ledger";
    let parsed: unknown;
    try {
      parsed = JSON.parse(json);
    } catch {
      return "its entry's bytes in the ledger changed (no longer JSON)";
    }
    const id = typeof parsed === "object" && parsed !== null ? (parsed as Record<string, unknown>)["id"] : undefined;
    // v1 files have no ids: the reader derives `v1-<line>`.
    if (typeof id === "string" ? id !== block.entryId : !block.entryId.startsWith("v1-")) return "its entry in the ledger has another id";
    // The block's text made again from the entry's bytes: exact for entries as written (v3). For an
    // entry the reader migrated (v1/v2) the same block may not come back; then every line of the text
    // must still occur in the entry's JSON.
    let again: string | undefined;
    try {
      again = blockTextAt(session.path, block, block.kind, block.partIndex);
    } catch {
      again = undefined;
    }
    if (again !== undefined) return again === block.text ? null : "its text in the ledger differs";
    return carriesText(json, block.text) ? null : "its text is not in its entry in the ledger";
  };
}
