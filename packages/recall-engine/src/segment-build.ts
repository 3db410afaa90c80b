// Building one CSR segment from a run of documents: each distinct run of text is split into terms once
// (run-table.ts: a repeat of the same run repeats its term ids), every term occurrence lands in flat
// arrays (slot, tf, in doc order), then one counting sort lays the postings out. The data a token
// touches sits together (one record per run, one per slot): a large table is not cache-resident, so
// each array read per token is a likely cache miss.
import { type FrozenPostings, grow } from "./segments.js";
import { MAX_RECORDED_RUN, type RunTable } from "./run-table.js";
import type { TermTable } from "./term-table.js";
import { isWholeOnlyRun, runTerms, scanRuns } from "./tokenizer.js";

/** A built segment, the document lengths it measured (their sum in `total`), and the id scratch (all zero, maybe grown). */
export interface BuiltSegment {
  readonly seg: FrozenPostings;
  readonly lengths: readonly number[];
  readonly total: number;
  readonly scratch: Int32Array;
}

// Per-slot record in `slotInfo`: the last document it occurred in, that occurrence's index, its
// document frequency, its global term id.
const LAST_DOC = 0;
const LAST_OCC = 1;
const DF = 2;
const TERM = 3;
const SLOT_WIDTH = 4;

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
 * The state of the segment being built lives in fields between `build` calls.
 */
export class SegmentBuilder {
  private readonly table: TermTable;
  private readonly runs: RunTable;
  // The terms this segment holds, one slot each in first-seen order (SLOT_WIDTH ints per slot).
  private slotInfo: Int32Array = new Int32Array(0);
  private segCount = 0;
  private occSlot: Int32Array = new Int32Array(0);
  private occTf: Int32Array = new Int32Array(0);
  private cap = 0;
  private n = 0;
  private doc = 0;
  /** A first segment numbers its slots as the table numbers its terms (both from 0, in first-seen order): slot = id. */
  private fresh = false;
  private local: Int32Array = new Int32Array(0);
  /** Receives each run of the text scanned (see `scanRuns`). */
  private readonly onRun: (src: string, s: number, e: number, h: number, kinds: number) => void;
  /** Receives each term of a run split to be recorded, and of one too long to record. */
  private readonly record: (src: string, a: number, b: number, h: number) => void;
  private readonly unrecorded: (src: string, a: number, b: number, h: number) => void;

  constructor(table: TermTable, runs: RunTable) {
    this.table = table;
    this.runs = runs;
    this.record = (src, a, b, h) => {
      const id = this.idOf(src, a, b, h);
      this.runs.push(id);
      this.occur(this.slotOf(id));
    };
    this.unrecorded = (src, a, b, h) => {
      this.occur(this.slotOf(this.idOf(src, a, b, h)));
    };
    this.onRun = (src, s, e, h, kinds) => {
      // A run that is its own only term (a word, a number) is looked up where its term is: a run table
      // record would repeat the term table's entry.
      if (isWholeOnlyRun(kinds)) {
        this.occur(this.slotOf(this.idOf(src, s, e, h)));
        return;
      }
      const length = e - s;
      if (length > MAX_RECORDED_RUN) {
        runTerms(src, s, e, h, kinds, this.unrecorded);
        return;
      }
      const runs = this.runs;
      const start = runs.find(src, s, e, h);
      if (start >= 0) {
        const heap = runs.heap;
        const to = runs.idsEnd(start, length);
        for (let at = start; at < to; at++) this.occur(this.slotOf(heap[at] as number));
        return;
      }
      runs.begin(src, s, e, h);
      runTerms(src, s, e, h, kinds, this.record);
      runs.end();
    };
  }

  private newSlot(id: number): number {
    const slot = this.segCount++;
    if (SLOT_WIDTH * slot >= this.slotInfo.length) this.slotInfo = grow(this.slotInfo, this.slotInfo.length * 2).fill(-1, SLOT_WIDTH * slot);
    const slotInfo = this.slotInfo;
    slotInfo[SLOT_WIDTH * slot + DF] = 0;
    slotInfo[SLOT_WIDTH * slot + TERM] = id;
    return slot;
  }

  /** The slot of term `id` in this segment, made on its first occurrence here. */
  private slotOf(id: number): number {
    if (this.fresh) return id === this.segCount ? this.newSlot(id) : id;
    const local = this.local;
    const slot = (local[id] as number) - 1;
    if (slot >= 0) return slot;
    local[id] = this.segCount + 1;
    return this.newSlot(id);
  }

  /** One occurrence of `slot` in the current document: a repeat bumps its tf in place. */
  private occur(slot: number): void {
    const slotInfo = this.slotInfo;
    const q = SLOT_WIDTH * slot;
    if (slotInfo[q + LAST_DOC] === this.doc) {
      const at = slotInfo[q + LAST_OCC] as number;
      this.occTf[at] = (this.occTf[at] as number) + 1;
      return;
    }
    const n = this.n;
    if (n === this.cap) {
      this.cap *= 2;
      this.occSlot = grow(this.occSlot, this.cap);
      this.occTf = grow(this.occTf, this.cap);
    }
    this.occSlot[n] = slot;
    this.occTf[n] = 1;
    slotInfo[q + LAST_DOC] = this.doc;
    slotInfo[q + LAST_OCC] = n;
    slotInfo[q + DF] = (slotInfo[q + DF] as number) + 1;
    this.n = n + 1;
  }

  /** The id of term `src[a, b)` (hash `h`), added to the table on first sight. */
  private idOf(src: string, a: number, b: number, h: number): number {
    const id = this.table.intern(src, a, b, h);
    if (id >= this.local.length) this.local = grow(this.local, Math.max(this.local.length * 2, id + 1));
    return id;
  }

  /** See `buildSegment`. */
  build(firstDoc: number, texts: readonly string[], scratch: Int32Array): BuiltSegment {
    const { table, runs } = this;
    const terms = table.terms;
    const ensureLocal = (l: Int32Array): Int32Array => (l.length < terms.length ? grow(l, Math.max(terms.length, l.length * 2)) : l);
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
    this.slotInfo = new Int32Array(SLOT_WIDTH * Math.max(4096, termsBefore === 0 ? expected : 0)).fill(-1);
    this.segCount = 0;
    this.cap = Math.max(1 << 12, Math.min(1 << 26, chars >>> 4));
    this.occSlot = new Int32Array(this.cap);
    this.occTf = new Int32Array(this.cap);
    this.n = 0;
    this.fresh = termsBefore === 0;
    this.local = ensureLocal(scratch);
    /** Occurrences of document `firstDoc + k` are [docStart[k], docStart[k + 1]). */
    const docStart = new Int32Array(texts.length + 1);
    let total = 0;
    for (let k = 0; k < texts.length; k++) {
      this.doc = firstDoc + k;
      docStart[k] = this.n;
      const length = scanRuns(texts[k] as string, this.onRun);
      lengths[k] = length;
      total += length;
    }
    docStart[texts.length] = this.n;
    const { slotInfo, segCount, occSlot, occTf, n, fresh } = this;
    let local = this.local;
    // Only the segment's result holds its arrays: the builder lets go of them.
    this.slotInfo = new Int32Array(0);
    this.occSlot = new Int32Array(0);
    this.occTf = new Int32Array(0);
    this.local = new Int32Array(0);

    if (!fresh) for (let slot = 0; slot < segCount; slot++) local[slotInfo[SLOT_WIDTH * slot + TERM] as number] = 0;
    local = ensureLocal(local);
    const termCount = terms.length;
    // Dense when the segment holds most terms (a build), sparse otherwise (an append).
    const dense = segCount * 4 >= termCount || termsBefore === 0;
    let offsets: Uint32Array;
    let termIds: Uint32Array | null;
    // Slot → where its postings start (then: where the next pair goes).
    const fill = new Uint32Array(segCount);
    if (dense) {
      termIds = null;
      offsets = new Uint32Array(termCount + 1);
      for (let slot = 0; slot < segCount; slot++) offsets[(slotInfo[SLOT_WIDTH * slot + TERM] as number) + 1] = 2 * (slotInfo[SLOT_WIDTH * slot + DF] as number);
      for (let t = 0; t < termCount; t++) offsets[t + 1] = (offsets[t + 1] as number) + (offsets[t] as number);
      for (let slot = 0; slot < segCount; slot++) fill[slot] = offsets[slotInfo[SLOT_WIDTH * slot + TERM] as number] as number;
    } else {
      const ids = new Uint32Array(segCount);
      for (let slot = 0; slot < segCount; slot++) ids[slot] = slotInfo[SLOT_WIDTH * slot + TERM] as number;
      termIds = ids.sort();
      for (let j = 0; j < segCount; j++) local[termIds[j] as number] = j + 1;
      // Slot → its place in `offsets`, kept in the slot's LAST_DOC (no longer needed).
      for (let slot = 0; slot < segCount; slot++) {
        const id = slotInfo[SLOT_WIDTH * slot + TERM] as number;
        slotInfo[SLOT_WIDTH * slot + LAST_DOC] = (local[id] as number) - 1;
        local[id] = 0;
      }
      offsets = new Uint32Array(segCount + 1);
      for (let slot = 0; slot < segCount; slot++) offsets[(slotInfo[SLOT_WIDTH * slot + LAST_DOC] as number) + 1] = 2 * (slotInfo[SLOT_WIDTH * slot + DF] as number);
      for (let j = 0; j < segCount; j++) offsets[j + 1] = (offsets[j + 1] as number) + (offsets[j] as number);
      for (let slot = 0; slot < segCount; slot++) fill[slot] = offsets[slotInfo[SLOT_WIDTH * slot + LAST_DOC] as number] as number;
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
