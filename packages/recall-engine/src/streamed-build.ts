// A large session's recall cache and block table built without holding the session. First the shape is
// read (entries without their text) for what only the whole file tells: the active lineage and the
// compactions; it is let go but for a bit per entry. Then the ledger is streamed entry by entry: each block
// is indexed (spilled-index.ts: postings in bounded batches spilled as sorted runs, merged on disk once the
// stream ends) and written to the block table's columns (each spilled to a file of its own) as it goes by;
// block text is never kept. The files are byte for byte those the build in memory writes (open-recall.ts
// `save`, snapshot-write.ts), replaced atomically; the spilled files lie in a folder beside the cache,
// removed however the build ends.
//
// What does not stream, and why: a session that is not v3 or has damaged lines gets no block table (see
// `snapshotEligible`), so a search could not be answered from the files this writes; it is read whole
// (`openRecall`). A session up to `STREAM_ABOVE` is read whole too: there the whole read costs less
// CPU than two passes (the shape, then the stream).
import { rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { readSessionShape, type SessionShape, streamEntries, LedgerError } from "@context-fold/ledger-reader";
import { sha256Hex } from "@context-fold/seed-index-format/block-text";
import { BlockTable, BlockTableWriter, type TableCompaction } from "./block-table.js";
import { writeAtomic } from "./cache-write.js";
import { pairBlock } from "./call-results.js";
import { cacheKeyOf, defaultCachePath } from "./index-cache.js";
import { isNotHistoryOf } from "./not-history.js";
import type { OpenRecallOptions } from "./open-options.js";
import { formerSnapshotPath, snapshotEligible, snapshotPath } from "./snapshot.js";
import { tailLogPath } from "./snapshot-recall.js";
import { dropSpillFolder, FileSink, FileText, makeSpillFolder } from "./spill-files.js";
import { RUN_CHARS, type SpilledIndex, SpilledIndexBuilder } from "./spilled-index.js";

/**
 * Sessions of more than this many bytes have their recall files built streamed, unless the caller says
 * otherwise (`OpenRecallOptions.streamAbove`; the CLI passes its own limit, STREAM_ABOVE_BYTES with its
 * CONTEXT_FOLD_STREAM_ABOVE, the same 112 MiB). Read whole, a session peaks near 4.6× its size (484 MB on
 * the 100 MB bench session); below this, the whole read costs less CPU than the two passes.
 */
export const STREAM_ABOVE = 112 * 1024 * 1024;

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
  /**
   * What the first pass reads (`recallShapeOf`), when the caller read the session's shape already (with
   * the same `fragment`): the build then reads the file once, not twice. The stream's block count and
   * the cache key's edges still find a file changed since.
   */
  readonly shape?: RecallShape;
}

function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}

/** What the stream pass leaves: the merged index, the table's columns so far, and what the shape completes. */
interface StreamPass {
  readonly sessionId: string;
  readonly cachePath: string;
  readonly replaced: boolean;
  readonly dir: string;
  readonly index: SpilledIndex;
  readonly table: BlockTableWriter;
  readonly callResults: Int32Array;
  /** Each block's entry position (what places it on the lineage once the shape is read). */
  readonly entryPositions: Int32Array;
  readonly lastEntryId: string | null;
}

/** A typed array grown (doubled) to hold index `at`, new room filled with `fill`. */
function room<T extends Int32Array>(array: T, at: number, fill: number, make: (n: number) => T): T {
  if (at < array.length) return array;
  const grown = make(Math.max(at + 1, array.length * 2)).fill(fill);
  grown.set(array);
  return grown;
}

/**
 * The second pass: the ledger streamed entry by entry, each block indexed (its postings spilled in runs,
 * merged on disk at the end) and written to the table's columns. Null when the session cannot have a
 * block table (not v3, or a damaged line: see the file comment). A function of its own, so the index
 * builder's tables are let go when it returns. `onDir` receives the spill folder as soon as it is made.
 */
async function streamPass(file: string, options: StreamedBuildOptions, shape: RecallShape, onDir: (dir: string) => void): Promise<StreamPass | null> {
  let open: { sessionId: string; cachePath: string; replaced: boolean; dir: string; previous: BlockTable | null; table: BlockTableWriter; index: SpilledIndexBuilder } | null = null;
  let callResults = new Int32Array(1024).fill(-1);
  let entryPositions = new Int32Array(1024);
  const calls = new Map<string, number>();
  let count = 0;
  let lastEntryId: string | null = null;
  const lineage = new LineageIdsAlong(shape.lineagePositions);
  for await (const item of streamEntries(file, options.fragment === true ? { fragment: true } : {})) {
    if (item.kind === "header") {
      if (item.header.version !== 3) return null;
      const sessionId = item.header.id;
      const cachePath = options.cachePath ?? defaultCachePath(file, sessionId, options.cacheDir);
      const replaced = exists(cachePath);
      const dir = makeSpillFolder(cachePath);
      onDir(dir);
      let column = 0;
      const spilled = (): string => join(dir, `column-${String(column++)}`);
      const table = new BlockTableWriter({ bytes: () => new FileSink(spilled()), text: () => new FileText(spilled()) });
      // A stale table beside the cache keeps the hashes it recorded for the blocks it holds (see writeSnapshot).
      // Asked for every block's hash: its columns read whole, whatever its size.
      const previous = BlockTable.open(snapshotPath(cachePath), Infinity);
      open = { sessionId, cachePath, replaced, dir, previous, table, index: new SpilledIndexBuilder(dir, options.runChars ?? RUN_CHARS) };
      continue;
    }
    // A damaged line: no block table is written for such a session (snapshotEligible).
    if (item.kind === "damage") return null;
    if (open === null) throw new LedgerError("NO_HEADER", file, "no header before the first entry");
    const { previous, table, index } = open;
    lineage.add(item.entry, table);
    const raw = item.entry.raw;
    for (const block of item.blocks) {
      if (block.index !== count) throw new LedgerError("LEDGER_CHANGED", file, `block #${String(block.index)} read where #${String(count)} was expected: run again`);
      const skip = isNotHistoryOf(raw, block);
      index.add(skip ? "" : block.text);
      const kept = previous !== null && count < previous.count && previous.string("entryId", count) === block.entryId ? previous.shaHex(count) : undefined;
      table.add(block, kept ?? sha256Hex(block.text), skip);
      callResults = room(callResults, count, -1, (n) => new Int32Array(n));
      entryPositions = room(entryPositions, count, 0, (n) => new Int32Array(n));
      entryPositions[count] = block.entryPosition;
      if (!skip) pairBlock(callResults, calls, block);
      lastEntryId = block.entryId;
      count++;
    }
  }
  if (open === null) return null;
  const { sessionId, cachePath, replaced, dir, table, index } = open;
  if (!lineage.finish(table)) throw new LedgerError("LEDGER_CHANGED", file, "the active lineage's entries were not all found where the first read found them: the file changed between reads; run again");
  return { sessionId, cachePath, replaced, dir, index: index.finish(), table, callResults: callResults.slice(0, count), entryPositions: entryPositions.slice(0, count), lastEntryId };
}

/** What the second pass keeps of the shape: the numbers of the read, and the active lineage. */
export interface RecallShape {
  readonly byteLength: number;
  readonly blockCount: number;
  readonly damaged: boolean;
  /** Per entry position, 1 when the entry's id is on the active lineage (what the table says per block). */
  readonly onLineage: Uint8Array;
  /**
   * The active lineage's entry positions, in its order: its ids are taken from the stream (the ids
   * themselves, ≈20 MB on the 1 GB bench session, were held from the shape through eval's compaction).
   */
  readonly lineagePositions: Int32Array;
  readonly compactions: readonly TableCompaction[];
}

/**
 * The first pass: the shape (entries without their text) read for what needs the whole file before it
 * can be told: the active lineage and the compactions. A function of its own, so the shape is let go
 * when it returns.
 */
async function shapePass(file: string, options: StreamedBuildOptions): Promise<RecallShape> {
  return recallShapeOf(await readSessionShape(file, { ...(options.fragment === true ? { fragment: true } : {}), ...(options.onBytes === undefined ? {} : { onBytes: options.onBytes }) }));
}

/** What a streamed build needs of a session's shape (its first pass): a few bytes per entry (its lineage's ids are taken from the stream). */
export function recallShapeOf(shape: Pick<SessionShape, "session" | "blockCount">): RecallShape {
  const { session, blockCount } = shape;
  const lineage = session.lineageIds;
  const onLineage = new Uint8Array(session.entries.length);
  for (const entry of session.entries) if (lineage.has(entry.id)) onLineage[entry.position] = 1;
  const compactions = session.compactions.map((c) => ({ number: c.number, segment: c.segment, entryIds: c.entryIds }));
  const lineagePositions = Int32Array.from(session.lineage, (entry) => entry.position);
  return { byteLength: session.byteLength, blockCount, damaged: !snapshotEligible(session), onLineage, lineagePositions, compactions };
}

/**
 * The active lineage's ids written to the table in lineage order from the entries the stream meets: as
 * they go by when the lineage runs forward in the file (what Pi writes), else held by lineage index until
 * the stream ends. `finish` says whether every lineage position was met.
 */
class LineageIdsAlong {
  private next = 0;
  private readonly forward: boolean;
  /** Lineage index by entry position (−1: off the lineage), and the ids met, when not `forward`. */
  private readonly indexAt: Int32Array | undefined;
  private readonly ids: (string | undefined)[] = [];
  constructor(private readonly positions: Int32Array) {
    let forward = true;
    for (let k = 1; k < positions.length; k++) if ((positions[k] as number) <= (positions[k - 1] as number)) forward = false;
    this.forward = forward;
    if (!forward) {
      let size = 0;
      for (const p of positions) size = Math.max(size, p + 1);
      this.indexAt = new Int32Array(size).fill(-1);
      positions.forEach((p, k) => ((this.indexAt as Int32Array)[p] = k));
    }
  }
  add(entry: { readonly id: string; readonly position: number }, table: BlockTableWriter): void {
    if (this.forward) {
      if (entry.position !== this.positions[this.next]) return;
      table.addLineageId(entry.id);
      this.next++;
      return;
    }
    const k = this.indexAt?.[entry.position] ?? -1;
    if (k >= 0) this.ids[k] = entry.id;
  }
  finish(table: BlockTableWriter): boolean {
    if (this.forward) return this.next === this.positions.length;
    for (let k = 0; k < this.positions.length; k++) {
      const id = this.ids[k];
      if (id === undefined) return false;
      table.addLineageId(id);
    }
    return true;
  }
}

/**
 * Builds the recall cache and block table of `file` streamed (see the file comment); null when the
 * session cannot have a block table (not v3, or damaged), which only a whole read can serve. Throws
 * LedgerError LEDGER_CHANGED when the file changed between the two reads.
 */
export async function buildRecallFilesStreamed(file: string, options: StreamedBuildOptions = {}): Promise<StreamedBuild | null> {
  let dir: string | null = null;
  try {
    // The shape first, on a heap that holds nothing else yet (its 435 MB peak on the 1 GB bench session is
    // most of the budget); the stream's garbage then reuses what the shape let go.
    const shape = options.shape ?? (await shapePass(file, options));
    if (shape.damaged) return null;
    const streamed = await streamPass(file, options, shape, (made) => (dir = made));
    if (streamed === null) return null;
    const { cachePath, callResults, entryPositions, lastEntryId, table } = streamed;
    const count = entryPositions.length;
    if (count !== shape.blockCount) throw new LedgerError("LEDGER_CHANGED", file, `the file held ${String(shape.blockCount)} blocks when first read, ${String(count)} when streamed: it changed between reads; run again`);
    const onLineage = new Uint8Array(count);
    for (let k = 0; k < count; k++) onLineage[k] = shape.onLineage[entryPositions[k] as number] ?? 0;
    const key = cacheKeyOf(file, { sessionId: streamed.sessionId, byteLength: shape.byteLength, blockCount: count, lastEntryId });
    writeAtomic(cachePath, streamed.index.pieces(key).chunks);
    writeAtomic(snapshotPath(cachePath), table.finish(key, shape.compactions, callResults, onLineage).chunks);
    // As a save in memory does: the JSON table of an earlier version and a tail chained to the old base go.
    rmSync(formerSnapshotPath(cachePath), { force: true });
    rmSync(tailLogPath(cachePath), { force: true });
    return { cachePath, indexed: count, replaced: streamed.replaced };
  } finally {
    if (dir !== null) dropSpillFolder(dir);
  }
}
