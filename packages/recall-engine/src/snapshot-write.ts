// Writing the block table beside the recall cache (what a full read leaves for the next one-shot search,
// see snapshot.ts): apart from the reading, so a search that only reads loads no writer (durable-fs).
import { rmSync } from "node:fs";
import type { Session } from "@context-fold/ledger-reader";
import { sha256Hex } from "@context-fold/seed-index-format/block-text";
import { encodeBlockTableParts } from "./block-table.js";
import { writeAtomic } from "./cache-write.js";
import { callResultsOf } from "./call-results.js";
import { cacheKeyFor } from "./index-cache.js";
import { isNotHistory } from "./not-history.js";
import { formerSnapshotPath, readRecordedShas, snapshotEligible, snapshotPath } from "./snapshot.js";

/**
 * Writes the block table of `session` beside `cachePath` (atomically); false when not eligible. A block the
 * previous table already held (same #N, same entry) keeps the hash recorded then: the first hash stands,
 * so text changed in the ledger since is never recorded as good.
 */
export function writeSnapshot(cachePath: string, session: Session): boolean {
  if (!snapshotEligible(session)) return false;
  const previous = readRecordedShas(cachePath);
  const shaHex = session.blocks.map((b) => (previous !== null && previous.entryId[b.index] === b.entryId ? previous.sha[b.index] : undefined) ?? sha256Hex(b.text));
  // What a search computes over every block, computed here once from the full read (which has the entries
  // a custom block's type is read from) by the same rules the index applies (recall-index.ts).
  const notHistory = Uint8Array.from(session.blocks, (b) => (isNotHistory(session, b) ? 1 : 0));
  const callResults = callResultsOf(session.blocks, (b) => notHistory[b.index] === 1);
  const bytes = encodeBlockTableParts({ key: cacheKeyFor(session.path, session), blocks: session.blocks, shaHex, lineageIds: session.lineageIds, compactions: session.compactions, notHistory, callResults });
  writeAtomic(snapshotPath(cachePath), bytes.chunks);
  // The JSON table an earlier version wrote there is never read again.
  rmSync(formerSnapshotPath(cachePath), { force: true });
  return true;
}
