// Building one CSR segment from a run of documents: each distinct run of text is split into terms once
// (a repeat of the same run repeats its terms), every term occurrence lands in flat arrays (slot, tf,
// in doc order), then one counting sort lays the postings out. The data a token touches sits together
// (one record per run, one per slot): a large table is not cache-resident, so each array read per
// token is a likely cache miss.
import { type FrozenPostings, grow } from "./segments.js";
import type { TermTable } from "./term-table.js";
import { runTerms, sameTerm, scanRuns } from "./tokenizer.js";

/** From this many terms on, a segment build answers repeats from its own small table first. */
const LOCAL_TABLE_FROM = 1 << 16;

/**
 * Runs longer than this are split again at each occurrence rather than remembered (long URLs, base64
 * blobs: rarely repeated, and they would fill the run table's heap).
 */
const MAX_CACHED_RUN = 64; // < 1 << LENGTH_BITS

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

// The run table (open addressing) holds two ints per entry: the run's hash, and where its record starts
// in the heap + 1 (0: empty entry). A record is its length | count << 8 (count: how many term slots
// follow), its text (code units), then those slots: a probe that matches reads one stretch of memory.
const RUN_WIDTH = 2;
const LENGTH_BITS = 8;
const LENGTH_MASK = (1 << LENGTH_BITS) - 1;

/**
 * Documents `firstDoc`, `firstDoc + 1`, … as one new segment over `table` (new terms are added to it).
 * `scratch` is all-zero id scratch (term id → place + 1), returned all zero.
 */
export function buildSegment(table: TermTable, firstDoc: number, texts: readonly string[], scratch: Int32Array): BuiltSegment {
  const terms = table.terms;
  const ensureLocal = (l: Int32Array): Int32Array => (l.length < terms.length ? grow(l, Math.max(terms.length, l.length * 2)) : l);
  const lengths: number[] = new Array<number>(texts.length);
  const termsBefore = terms.length;
  // The terms this segment holds, one slot each in first-seen order (SLOT_WIDTH ints per slot).
  let slotInfo: Int32Array = new Int32Array(SLOT_WIDTH * 4096).fill(-1);
  let segCount = 0;
  // Occurrences (distinct term per document) run at about one per 20 characters of text: sized once,
  // the flat arrays rarely double (each doubling is garbage a 100 MB session's heap pays to collect).
  let chars = 0;
  for (const text of texts) chars += text.length;
  let cap = Math.max(1 << 12, Math.min(1 << 26, chars >>> 4));
  let occSlot: Int32Array = new Int32Array(cap);
  let occTf: Int32Array = new Int32Array(cap);
  /** Occurrences of document `firstDoc + k` are [docStart[k], docStart[k + 1]). */
  const docStart = new Int32Array(texts.length + 1);
  let n = 0;
  let total = 0;
  let doc = firstDoc;
  // A small term table is itself cache-resident: look it up directly (id → slot through `local`).
  const direct = termsBefore < LOCAL_TABLE_FROM;
  // A first segment numbers its slots as the table numbers its terms (both from 0, in first-seen
  // order): slot = id, no `local` lookup per term.
  const fresh = termsBefore === 0;
  let local = direct ? ensureLocal(scratch) : scratch;

  const newSlot = (id: number): number => {
    const slot = segCount++;
    if (SLOT_WIDTH * slot >= slotInfo.length) slotInfo = grow(slotInfo, slotInfo.length * 2).fill(-1, SLOT_WIDTH * slot);
    slotInfo[SLOT_WIDTH * slot + DF] = 0;
    slotInfo[SLOT_WIDTH * slot + TERM] = id;
    return slot;
  };

  // Beyond the small-table size: a segment-local hash table (hash → slot) answers a term this segment
  // already holds; it stays in cache while the global term table of a 100 MB session (~10⁶ terms) does
  // not, so only first sightings go there. Its own reference to each slot's term avoids reading the
  // global term list (megabytes) to compare.
  let lslots: Int32Array = new Int32Array(direct ? 0 : 8192);
  let lmask = lslots.length - 1;
  let slotHash: Int32Array = new Int32Array(direct ? 0 : 4096);
  const slotTerm: string[] = [];

  /** The slot of term `src[a, b)` (hash `h`) in this segment, made (and the term added to the table) on first sight. */
  const slotOf = (src: string, a: number, b: number, h: number): number => {
    if (direct) {
      let id = table.find(src, a, b, h);
      if (id < 0) {
        id = table.add(src, a, b, h);
        if (id >= local.length) local = grow(local, local.length * 2);
      } else {
        const slot = fresh ? id : (local[id] as number) - 1;
        if (slot >= 0) return slot;
      }
      const slot = newSlot(id);
      local[id] = slot + 1;
      return slot;
    }
    const length = b - a;
    let i = (h ^ (h >>> 15)) & lmask;
    for (;;) {
      const v = lslots[i] as number;
      if (v === 0) break;
      if (slotHash[v - 1] === h) {
        const t = slotTerm[v - 1] as string;
        if (t.length === length && sameTerm(src, a, b, t, 0)) return v - 1;
      }
      i = (i + 1) & lmask;
    }
    let id = table.find(src, a, b, h);
    if (id < 0) id = table.add(src, a, b, h);
    const slot = newSlot(id);
    if (slot >= slotHash.length) slotHash = grow(slotHash, slotHash.length * 2);
    slotTerm.push(terms[id] as string);
    slotHash[slot] = h;
    lslots[i] = slot + 1;
    if (segCount * 2 > lslots.length) {
      lslots = new Int32Array(lslots.length * 2);
      lmask = lslots.length - 1;
      for (let s = 0; s < segCount; s++) {
        const hs = slotHash[s] as number;
        let j = (hs ^ (hs >>> 15)) & lmask;
        while (lslots[j] !== 0) j = (j + 1) & lmask;
        lslots[j] = s + 1;
      }
    }
    return slot;
  };

  /** One occurrence of `slot` in the current document: a repeat bumps its tf in place. */
  const occur = (slot: number): void => {
    const q = SLOT_WIDTH * slot;
    if (slotInfo[q + LAST_DOC] === doc) {
      const at = slotInfo[q + LAST_OCC] as number;
      occTf[at] = (occTf[at] as number) + 1;
      return;
    }
    if (n === cap) {
      cap *= 2;
      occSlot = grow(occSlot, cap);
      occTf = grow(occTf, cap);
    }
    occSlot[n] = slot;
    occTf[n] = 1;
    slotInfo[q + LAST_DOC] = doc;
    slotInfo[q + LAST_OCC] = n;
    slotInfo[q + DF] = (slotInfo[q + DF] as number) + 1;
    n++;
  };

  // Distinct runs seen so far (exact text, case kept: `FooBar` and `foobar` give different terms) →
  // the slots of the terms they gave, in order. A run's terms depend on its text alone, so a repeated
  // run costs one probe here instead of its splitting and a term table lookup per term. Each run's
  // text (code units) and then its slots sit together in `heap`.
  let runTable: Int32Array = new Int32Array(RUN_WIDTH * 8192);
  let runMask = 8191;
  let runCount = 0;
  let heap: Int32Array = new Int32Array(1 << 16);
  let heapUsed = 0;
  const collect = (src: string, a: number, b: number, h: number): void => {
    const slot = slotOf(src, a, b, h);
    if (heapUsed === heap.length) heap = grow(heap, heap.length * 2);
    heap[heapUsed++] = slot;
    occur(slot);
  };
  const uncached = (src: string, a: number, b: number, h: number): void => {
    occur(slotOf(src, a, b, h));
  };
  const onRun = (src: string, s: number, e: number, h: number, kinds: number): void => {
    const length = e - s;
    if (length > MAX_CACHED_RUN) {
      runTerms(src, s, e, h, kinds, uncached);
      return;
    }
    let i = (h ^ (h >>> 15)) & runMask;
    for (;;) {
      const at1 = runTable[RUN_WIDTH * i + 1] as number;
      if (at1 === 0) break;
      if (runTable[RUN_WIDTH * i] === h) {
        const head = heap[at1 - 1] as number;
        if ((head & LENGTH_MASK) === length) {
          let at = at1;
          let k = s;
          while (k < e && src.charCodeAt(k) === heap[at]) {
            k++;
            at++;
          }
          if (k === e) {
            const to = at + (head >>> LENGTH_BITS);
            for (; at < to; at++) occur(heap[at] as number);
            return;
          }
        }
      }
      i = (i + 1) & runMask;
    }
    if (heapUsed + length + 1 > heap.length) heap = grow(heap, Math.max(heap.length * 2, heapUsed + length + 1));
    const record = heapUsed;
    runTable[RUN_WIDTH * i] = h;
    runTable[RUN_WIDTH * i + 1] = record + 1;
    heapUsed++;
    for (let k = s; k < e; k++) heap[heapUsed++] = src.charCodeAt(k);
    const first = heapUsed;
    runTerms(src, s, e, h, kinds, collect);
    heap[record] = length | ((heapUsed - first) << LENGTH_BITS);
    if (++runCount * 2 > runMask + 1) {
      const old = runTable;
      runMask = 2 * runMask + 1;
      runTable = new Int32Array(RUN_WIDTH * (runMask + 1));
      for (let q = 0; q < old.length; q += RUN_WIDTH) {
        const at = old[q + 1] as number;
        if (at === 0) continue;
        const hq = old[q] as number;
        let j = (hq ^ (hq >>> 15)) & runMask;
        while (runTable[RUN_WIDTH * j + 1] !== 0) j = (j + 1) & runMask;
        runTable[RUN_WIDTH * j] = hq;
        runTable[RUN_WIDTH * j + 1] = at;
      }
    }
  };
  for (let k = 0; k < texts.length; k++) {
    doc = firstDoc + k;
    docStart[k] = n;
    const length = scanRuns(texts[k] as string, onRun);
    lengths[k] = length;
    total += length;
  }
  docStart[texts.length] = n;

  if (direct) for (let slot = 0; slot < segCount; slot++) local[slotInfo[SLOT_WIDTH * slot + TERM] as number] = 0;
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
