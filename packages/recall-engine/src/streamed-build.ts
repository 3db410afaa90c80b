// A large session's recall cache and block table built without holding the session: its shape is read
// first (entries without their text: the lineage, the compactions, the block count) and let go, keeping
// per entry whether it is on the active lineage; then the ledger is streamed entry by entry and each
// block is indexed (spilled-index.ts: postings in bounded batches spilled as sorted runs, merged on disk)
// and written to the block table's columns (each spilled to a file of its own) as it goes by. Block text
// is never kept. The files are byte for byte those the build in memory writes (open-recall.ts `save`,
// snapshot-write.ts), and replaced atomically; the spilled files lie in a folder beside the cache,
// removed however the build ends.
//
// What does not stream, and why: a session that is not v3 or has damaged lines gets no block table (see
// `snapshotEligible`), so a search could not be answered from the files this writes; it is read whole
// (`openRecall`). A session below `STREAM_ABOVE` is read whole too: there the whole read costs less
// CPU than two passes (the shape, then the stream) and stays under the memory bound.
import { statSync, rmSync } from "node:fs";
import { readSessionShape, streamEntries, LedgerError } from "@context-fold/ledger-reader";
import { sha256Hex } from "@context-fold/seed-index-format/block-text";
import { BlockTable, BlockTableWriter, type TableCompaction } from "./block-table.js";
import { writeAtomic } from "./cache-write.js";
import { pairBlock } from "./call-results.js";
import { cacheKeyOf, defaultCachePath } from "./index-cache.js";
import { isNotHistoryOf } from "./not-history.js";
import type { OpenRecallOptions } from "./open-options.js";
import { formerSnapshotPath, snapshotEligible, snapshotPath } from "./snapshot.js";
import { tailLogPath } from "./snapshot-recall.js";
import { dropSpillFolder, FileSink, makeSpillFolder } from "./spill-files.js";
import { RUN_CHARS, SpilledIndexBuilder } from "./spilled-index.js";

/**
 * Sessions of at least this many bytes have their recall files built streamed. Read whole, a session
 * takes about 3.2× its size at peak (≈410 MB here), the streamed build a bounded amount at any size.
 */
export const STREAM_ABOVE = 128 * 1024 * 1024;

/** What a streamed build did. */
export interface StreamedBuild {
  readonly cachePath: string;
  /** Blocks indexed. */
  readonly indexed: number;
  /** A cache file was there before (stale, or its block table was): it was replaced. */
  readonly replaced: boolean;
}

export interface StreamedBuildOptions extends Pick<OpenRecallOptions, "cacheDir" | "cachePath" | "fragment" | "onBytes"> {
  /** Characters of text per spilled run (default RUN_CHARS; a test forces many small runs). */
  readonly runChars?: number;
}

function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}

/** What the first pass keeps of the shape: the session's numbers, and what places each block in the table. */
interface FirstPass {
  readonly sessionId: string;
  readonly byteLength: number;
  readonly blockCount: number;
  /** Per entry position, 1 when the entry's id is on the active lineage (what the table's column says per block). */
  readonly onLineage: Uint8Array;
  /** The active lineage's ids, in its order. */
  readonly lineageIds: string[];
  readonly compactions: readonly TableCompaction[];
}

/**
 * Reads the shape and keeps what the table needs of it (a function of its own, so nothing of the shape
 * stays reachable from the build's frame); null when the session cannot have a block table.
 */
async function firstPass(file: string, options: StreamedBuildOptions): Promise<FirstPass | null> {
  const { session, blockCount } = await readSessionShape(file, { ...(options.fragment === true ? { fragment: true } : {}), ...(options.onBytes === undefined ? {} : { onBytes: options.onBytes }) });
  if (!snapshotEligible(session)) return null;
  const lineage = session.lineageIds;
  const onLineage = new Uint8Array(session.entries.length);
  for (const entry of session.entries) if (lineage.has(entry.id)) onLineage[entry.position] = 1;
  const compactions = session.compactions.map((c) => ({ number: c.number, segment: c.segment, entryIds: c.entryIds }));
  return { sessionId: session.header.id, byteLength: session.byteLength, blockCount, onLineage, lineageIds: [...lineage], compactions };
}

/**
 * Builds the recall cache and block table of `file` streamed (see the file comment); null when the
 * session cannot have a block table (not v3, or damaged), which only a whole read can serve. Throws
 * LedgerError LEDGER_CHANGED when the file changed between the two reads.
 */
export async function buildRecallFilesStreamed(file: string, options: StreamedBuildOptions = {}): Promise<StreamedBuild | null> {
  const fragment = options.fragment === true ? { fragment: true } : {};
  const first = await firstPass(file, options);
  if (first === null) return null;
  const { sessionId, byteLength, blockCount, onLineage, compactions } = first;
  const cachePath = options.cachePath ?? defaultCachePath(file, sessionId, options.cacheDir);
  const replaced = exists(cachePath);
  const dir = makeSpillFolder(cachePath);
  try {
    let column = 0;
    const table = new BlockTableWriter(() => new FileSink(`${dir}/column-${String(column++)}`));
    const ids = first.lineageIds;
    for (let k = 0; k < ids.length; k++) table.addLineageId(ids[k] as string);
    // Written out: the ids are let go before the second pass.
    ids.length = 0;
    const index = new SpilledIndexBuilder(dir, options.runChars ?? RUN_CHARS);
    // A stale table beside the cache keeps the hashes it recorded for the blocks it holds (see writeSnapshot).
    const previous = BlockTable.open(snapshotPath(cachePath));
    let callResults = new Int32Array(Math.max(16, blockCount)).fill(-1);
    const calls = new Map<string, number>();
    let count = 0;
    let lastEntryId: string | null = null;
    for await (const item of streamEntries(file, fragment)) {
      if (item.kind !== "entry") continue;
      const raw = item.entry.raw;
      for (const block of item.blocks) {
        if (block.index !== count) throw new LedgerError("LEDGER_CHANGED", file, `block #${String(block.index)} read where #${String(count)} was expected: run again`);
        const skip = isNotHistoryOf(raw, block);
        index.add(skip ? "" : block.text);
        const kept = previous !== null && count < previous.count && previous.string("entryId", count) === block.entryId ? previous.shaHex(count) : undefined;
        table.add(block, kept ?? sha256Hex(block.text), onLineage[block.entryPosition] === 1, skip);
        if (count >= callResults.length) {
          const grown = new Int32Array(callResults.length * 2).fill(-1);
          grown.set(callResults);
          callResults = grown;
        }
        if (!skip) pairBlock(callResults, calls, block);
        lastEntryId = block.entryId;
        count++;
      }
    }
    if (count !== blockCount) throw new LedgerError("LEDGER_CHANGED", file, `the file holds ${String(count)} blocks, ${String(blockCount)} when first read: it changed between reads; run again`);
    const key = cacheKeyOf(file, { sessionId, byteLength, blockCount, lastEntryId });
    const merged = index.finish();
    writeAtomic(cachePath, merged.pieces(key).chunks);
    writeAtomic(snapshotPath(cachePath), table.finish(key, compactions, callResults.subarray(0, count)).chunks);
    // As a save in memory does: the JSON table of an earlier version and a tail chained to the old base go.
    rmSync(formerSnapshotPath(cachePath), { force: true });
    rmSync(tailLogPath(cachePath), { force: true });
    return { cachePath, indexed: count, replaced };
  } finally {
    dropSpillFolder(dir);
  }
}
