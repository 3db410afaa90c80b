// A session's term index built without holding its postings: documents go by in `#N` order and are
// gathered a bounded amount of text at a time; each batch is built into a segment as an index builds
// (segment-build.ts, over one term table, so term ids are the session's first-seen order), and the
// segment is spilled to a run file in term id order. At the end the runs are merged on disk: term by
// term, each run's pairs in run order (the runs cover later and later documents, so a term's pairs come
// out in document order) into one postings file, its page digests taken as it is written. The cache file
// written from it (`pieces`) is byte for byte the one `TermIndex.serializeParts` writes for the same
// documents: the postings of a term are the same pairs in the same order, the terms and lengths the same.
import { join } from "node:path";
import { MinHeap } from "./min-heap.js";
import { RunTable } from "./run-table.js";
import { SegmentBuilder } from "./segment-build.js";
import type { FrozenPostings } from "./segments.js";
import { FileSink, FileWindow, readPieces } from "./spill-files.js";
import { encodeIndexHead, PostingsDigest } from "./term-codec.js";
import { TermTable } from "./term-table.js";

/**
 * Characters of text gathered before a batch is built and spilled: about a term occurrence per 20, so a
 * run holds ≈3 MB of postings and the batch's build arrays ≈5 MB. Larger batches held more of the heap
 * (16 Mi characters: 588 MB peak RSS for the stream of the 1 GB bench session, 480 MB at this size),
 * smaller ones more runs to merge (≈230 on that session, a window each).
 */
export const RUN_CHARS = 4 * 1024 * 1024;
/** Bytes of each run read at once while the runs are merged (≈15 MB for the 1 GB session's runs). */
const MERGE_WINDOW = 64 * 1024;

/** A run being merged: its next term's id (-1 once it ends) and how many postings words follow. */
interface RunCursor {
  readonly run: number;
  readonly window: FileWindow;
  term: number;
  words: number;
}

/** Reads the run's next term header into the cursor. */
function advance(c: RunCursor): void {
  c.term = c.window.u32();
  if (c.term !== -1) c.words = c.window.u32();
}

/** Cursors ordered by their next term, then by run (earlier documents first). */
function before(a: RunCursor, b: RunCursor): boolean {
  return a.term < b.term || (a.term === b.term && a.run < b.run);
}

/** The merged index: what its cache file is written from. */
export interface SpilledIndex {
  readonly terms: readonly string[];
  readonly lengths: Uint32Array;
  /** The cache file's bytes in order for `meta` (the postings read back from the merged file). */
  pieces(meta: unknown): { readonly chunks: Iterable<Uint8Array>; readonly byteLength: number };
}

export class SpilledIndexBuilder {
  private readonly table = new TermTable([]);
  private readonly builder = new SegmentBuilder(this.table, new RunTable());
  private scratch: Int32Array = new Int32Array(1024);
  private batch: string[] = [];
  private batchChars = 0;
  private docs = 0;
  private lengths: Uint32Array = new Uint32Array(1024);
  private readonly runs: string[] = [];
  private readonly dir: string;
  private readonly runChars: number;

  /** Spills into folder `dir` (the caller's, removed by it); `runChars`: see RUN_CHARS (a test forces runs small). */
  constructor(dir: string, runChars = RUN_CHARS) {
    this.dir = dir;
    this.runChars = Math.max(1, runChars);
  }

  /** Documents added so far. */
  get docCount(): number {
    return this.docs + this.batch.length;
  }

  /** The next document (`#N` order); "" for one found by no word. */
  add(text: string): void {
    this.batch.push(text);
    this.batchChars += text.length;
    if (this.batchChars >= this.runChars) this.spill();
  }

  /** Builds the gathered documents into a segment and writes it as a run: per term, ascending, [id, words, pairs…]. */
  private spill(): void {
    const texts = this.batch;
    if (texts.length === 0) return;
    this.batch = [];
    this.batchChars = 0;
    const built = this.builder.build(this.docs, texts, this.scratch);
    this.scratch = built.scratch;
    if (this.docs + texts.length > this.lengths.length) {
      const grown = new Uint32Array(Math.max(this.lengths.length * 2, this.docs + texts.length));
      grown.set(this.lengths.subarray(0, this.docs));
      this.lengths = grown;
    }
    for (let k = 0; k < built.lengths.length; k++) this.lengths[this.docs + k] = built.lengths[k] as number;
    this.docs += texts.length;
    this.writeRun(built.seg);
  }

  private writeRun(seg: FrozenPostings): void {
    const path = join(this.dir, `run-${String(this.runs.length)}`);
    const sink = new FileSink(path);
    const { offsets, postings, termIds } = seg;
    const count = termIds === null ? seg.termCount : termIds.length;
    const bytes = Buffer.from(postings.buffer, postings.byteOffset, postings.byteLength);
    for (let j = 0; j < count; j++) {
      const a = offsets[j] as number;
      const b = offsets[j + 1] as number;
      if (b === a) continue;
      sink.u32(termIds === null ? j : (termIds[j] as number));
      sink.u32(b - a);
      sink.bytes(bytes.subarray(4 * a, 4 * b));
    }
    sink.close();
    this.runs.push(path);
  }

  /** Spills what is left and merges the runs into one postings file (in the folder). */
  finish(): SpilledIndex {
    this.spill();
    const terms = this.table.terms;
    const termCount = terms.length;
    const offsets = new Uint32Array(termCount + 1);
    const path = join(this.dir, "postings");
    const out = new FileSink(path);
    const digest = new PostingsDigest();
    const put = (bytes: Buffer): void => {
      out.bytes(bytes);
      digest.update(bytes);
    };
    const heap = new MinHeap<RunCursor>(before);
    const cursors: RunCursor[] = [];
    try {
      for (let run = 0; run < this.runs.length; run++) {
        const c: RunCursor = { run, window: new FileWindow(this.runs[run] as string, MERGE_WINDOW), term: -1, words: 0 };
        cursors.push(c);
        advance(c);
        if (c.term !== -1) heap.push(c);
      }
      let words = 0;
      let t = 0;
      while (heap.items.length > 0) {
        const c = heap.items[0] as RunCursor;
        if (c.term >= termCount || c.term < t) throw new RangeError(`a spilled run holds term ${String(c.term)} out of order`);
        for (; t < c.term; t++) offsets[t + 1] = words;
        c.window.copy(4 * c.words, put);
        words += c.words;
        offsets[t + 1] = words;
        advance(c);
        if (c.term === -1) heap.pop();
        else heap.reorderTop();
      }
      for (; t < termCount; t++) offsets[t + 1] = words;
      out.close();
      const summary = { offsets, words, ...digest.finish() };
      const lengths = this.lengths.subarray(0, this.docs);
      return {
        terms,
        lengths,
        pieces(meta) {
          const { head, byteLength, chain } = encodeIndexHead(meta, terms, lengths, summary);
          function* chunks(): Iterable<Uint8Array> {
            yield* head;
            yield* readPieces(path);
            yield chain;
          }
          return { chunks: chunks(), byteLength: byteLength + 4 * words + chain.length };
        },
      };
    } finally {
      out.close();
      for (const c of cursors) c.window.close();
    }
  }
}
