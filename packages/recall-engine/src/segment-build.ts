// Building one CSR segment from a run of documents: each distinct run of text is split into terms once
// (run-table.ts: a repeat of the same run repeats its terms' table slots), every term occurrence lands
// in flat arrays (slot, tf, in doc order), then one counting sort lays the postings out. The data a
// token touches sits together (one record per run; a term's state in the segment in its term table
// slot, next to what its lookup read): a large table is not cache-resident, so each array read per
// token is a likely cache miss.
import { type FrozenPostings, grow } from "./segments.js";
import { MAX_RECORDED_RUN, type RunTable } from "./run-table.js";
import { SCRATCH, type TermTable } from "./term-table.js";
import { isWholeOnlyRun, runTerms, scanRuns } from "./tokenizer.js";

/** A built segment, the document lengths it measured (their sum in `total`), and the id scratch (all zero, maybe grown). */
export interface BuiltSegment {
  readonly seg: FrozenPostings;
  readonly lengths: readonly number[];
  readonly total: number;
  readonly scratch: Int32Array;
}

// A term's build scratch, in its term table slot (term-table.ts SCRATCH): the document of its last
// occurrence + 1 (0: none yet; at most `firstDoc`: none in this segment), that occurrence's index, its
// place in this segment (first-seen order).
const LAST_DOC = SCRATCH;
const LAST_OCC = SCRATCH + 1;
const SEG = SCRATCH + 2;

/**
 * Documents `firstDoc`, `firstDoc + 1`, … as one new segment over `table` (new terms are added to it),
 * runs split before found in `runs` (new ones recorded there). `scratch` is all-zero id scratch (term
 * id → place + 1), returned all zero. (A one-off builder: an index keeps one `SegmentBuilder`.)
 */
export function buildSegment(table: TermTable, runs: RunTable, firstDoc: number, texts: readonly string[], scratch: Int32Array): BuiltSegment {
  return new SegmentBuilder(table, runs).build(firstDoc, texts, scratch);
}

/**
 * Builds the segments of one index over its term table and run table. Kept by the index across
 * appends: its per-run callbacks are made once, so the optimized code of the scan loop, which calls
 * them, stays valid from one append to the next (callbacks made afresh per segment are new call
 * targets, and each of the first appends after a build ran deoptimized code: 3–6× its steady cost).
 * A build and an append take the same path (a term's state in the segment sits in its term table slot,
 * whatever the segment), so the code the build optimized serves the appends. The state of the segment
 * being built lives in fields between `build` calls.
 */
export class SegmentBuilder {
  private readonly table: TermTable;
  private readonly runs: RunTable;
  /** The segment's terms in first-seen order: their ids and document frequencies. */
  private segIds: Int32Array = new Int32Array(0);
  private segDf: Int32Array = new Int32Array(0);
  private segCount = 0;
  private occSlot: Int32Array = new Int32Array(0);
  private occTf: Int32Array = new Int32Array(0);
  private cap = 0;
  private n = 0;
  /** The current document + 1 (what LAST_DOC holds once it occurred there). */
  private docMark = 0;
  /** The segment's first document: a LAST_DOC at most this is from an earlier segment. */
  private firstDoc = 0;
  /** Receives each run of the text scanned (see `scanRuns`). */
  private readonly onRun: (src: string, s: number, e: number, h: number, kinds: number) => void;
  /** Receives each term of a run split to be recorded, and of one too long to record. */
  private readonly record: (src: string, a: number, b: number, h: number) => void;
  private readonly unrecorded: (src: string, a: number, b: number, h: number) => void;

  constructor(table: TermTable, runs: RunTable) {
    this.table = table;
    this.runs = runs;
    this.record = (src, a, b, h) => {
      const p = this.table.internAt(src, a, b, h);
      this.runs.push(p);
      this.occur(p);
    };
    this.unrecorded = (src, a, b, h) => {
      this.occur(this.table.internAt(src, a, b, h));
    };
    this.onRun = (src, s, e, h, kinds) => {
      // A run that is its own only term (a word, a number) is looked up where its term is: a run table
      // record would repeat the term table's entry.
      if (isWholeOnlyRun(kinds)) {
        this.occur(this.table.internAt(src, s, e, h));
        return;
      }
      const length = e - s;
      if (length > MAX_RECORDED_RUN) {
        runTerms(src, s, e, h, kinds, this.unrecorded);
        return;
      }
      const { runs, table } = this;
      // Positions recorded before the term table last moved its slots are stale (a record closed while
      // it moved included): start over.
      if (runs.generation !== table.generation) runs.reset(table.generation);
      const start = runs.find(src, s, e, h);
      if (start >= 0) {
        const heap = runs.heap;
        const to = runs.idsEnd(start, length);
        for (let at = start; at < to; at++) this.occur(heap[at] as number);
        return;
      }
      runs.begin(src, s, e, h);
      runTerms(src, s, e, h, kinds, this.record);
      runs.end();
    };
  }

  /** One occurrence, in the current document, of the term whose table slot starts at `p`. */
  private occur(p: number): void {
    const slots = this.table.slots;
    const last = slots[p + LAST_DOC] as number;
    // A repeat in the same document bumps its tf in place.
    if (last === this.docMark) {
      const at = slots[p + LAST_OCC] as number;
      this.occTf[at] = (this.occTf[at] as number) + 1;
      return;
    }
    let seg: number;
    if (last <= this.firstDoc) {
      // First occurrence in this segment.
      seg = this.segCount++;
      if (seg === this.segIds.length) {
        this.segIds = grow(this.segIds, 2 * seg);
        this.segDf = grow(this.segDf, 2 * seg);
      }
      this.segIds[seg] = (slots[p] as number) - 1;
      this.segDf[seg] = 1;
      slots[p + SEG] = seg;
    } else {
      seg = slots[p + SEG] as number;
      this.segDf[seg] = (this.segDf[seg] as number) + 1;
    }
    const n = this.n;
    if (n === this.cap) {
      this.cap *= 2;
      this.occSlot = grow(this.occSlot, this.cap);
      this.occTf = grow(this.occTf, this.cap);
    }
    this.occSlot[n] = seg;
    this.occTf[n] = 1;
    slots[p + LAST_DOC] = this.docMark;
    slots[p + LAST_OCC] = n;
    this.n = n + 1;
  }

  /** See `buildSegment`. */
  build(firstDoc: number, texts: readonly string[], scratch: Int32Array): BuiltSegment {
    const { table, runs } = this;
    const terms = table.terms;
    const lengths: number[] = new Array<number>(texts.length);
    const termsBefore = terms.length;
    // Occurrences (distinct term per document) run at about one per 20 characters of text: sized once,
    // the flat arrays rarely double (each doubling is garbage a 100 MB session's heap pays to collect).
    let chars = 0;
    for (const text of texts) chars += text.length;
    // A first build sizes its tables from the text: about a term and a distinct run per 64 characters
    // (the generated ≈4 MB session: 2.6 M characters, 42 k terms, 37 k runs), a term's characters and a
    // run's record taking a quarter of the text at most; capped, a large session's tables grow as usual.
    const expected = Math.min(1 << 18, chars >>> 6);
    if (termsBefore === 0) {
      table.presize(expected, Math.min(1 << 22, chars >>> 2));
      runs.presize(expected, chars >>> 2);
    }
    this.segIds = new Int32Array(Math.max(4096, expected));
    this.segDf = new Int32Array(this.segIds.length);
    this.segCount = 0;
    this.cap = Math.max(1 << 12, Math.min(1 << 26, chars >>> 4));
    this.occSlot = new Int32Array(this.cap);
    this.occTf = new Int32Array(this.cap);
    this.n = 0;
    this.firstDoc = firstDoc;
    /** Occurrences of document `firstDoc + k` are [docStart[k], docStart[k + 1]). */
    const docStart = new Int32Array(texts.length + 1);
    let total = 0;
    for (let k = 0; k < texts.length; k++) {
      this.docMark = firstDoc + k + 1;
      docStart[k] = this.n;
      const length = scanRuns(texts[k] as string, this.onRun);
      lengths[k] = length;
      total += length;
    }
    docStart[texts.length] = this.n;
    const { segIds, segDf, segCount, occSlot, occTf, n } = this;
    // Only the segment's result holds its arrays: the builder lets go of them.
    this.segIds = new Int32Array(0);
    this.segDf = new Int32Array(0);
    this.occSlot = new Int32Array(0);
    this.occTf = new Int32Array(0);

    const termCount = terms.length;
    const local = scratch.length < termCount ? grow(scratch, Math.max(termCount, scratch.length * 2)) : scratch;
    // Dense when the segment holds most terms (a build), sparse otherwise (an append).
    const dense = segCount * 4 >= termCount || termsBefore === 0;
    let offsets: Uint32Array;
    let termIds: Uint32Array | null;
    // Segment slot → where its postings start (then: where the next pair goes).
    const fill = new Uint32Array(segCount);
    if (dense) {
      termIds = null;
      offsets = new Uint32Array(termCount + 1);
      for (let slot = 0; slot < segCount; slot++) offsets[(segIds[slot] as number) + 1] = 2 * (segDf[slot] as number);
      for (let t = 0; t < termCount; t++) offsets[t + 1] = (offsets[t + 1] as number) + (offsets[t] as number);
      for (let slot = 0; slot < segCount; slot++) fill[slot] = offsets[segIds[slot] as number] as number;
    } else {
      termIds = Uint32Array.from(segIds.subarray(0, segCount)).sort();
      for (let j = 0; j < segCount; j++) local[termIds[j] as number] = j + 1;
      // Segment slot → its place in `offsets`, kept in `segIds` (no longer needed).
      for (let slot = 0; slot < segCount; slot++) {
        const id = segIds[slot] as number;
        segIds[slot] = (local[id] as number) - 1;
        local[id] = 0;
      }
      offsets = new Uint32Array(segCount + 1);
      for (let slot = 0; slot < segCount; slot++) offsets[(segIds[slot] as number) + 1] = 2 * (segDf[slot] as number);
      for (let j = 0; j < segCount; j++) offsets[j + 1] = (offsets[j + 1] as number) + (offsets[j] as number);
      for (let slot = 0; slot < segCount; slot++) fill[slot] = offsets[segIds[slot] as number] as number;
    }
    const postings = new Uint32Array(2 * n);
    // Occurrences are in doc order, so each term's pairs come out sorted by doc.
    for (let k = 0; k < texts.length; k++) {
      const d = firstDoc + k;
      const to = docStart[k + 1] as number;
      for (let i = docStart[k] as number; i < to; i++) {
        const slot = occSlot[i] as number;
        const p = fill[slot] as number;
        postings[p] = d;
        postings[p + 1] = occTf[i] as number;
        fill[slot] = p + 2;
      }
    }
    return { seg: { offsets, postings, termCount, termIds }, lengths, total, scratch: local };
  }
}
