// Distinct runs of text an index has split (exact text, case kept: `FooBar` and `foobar` give different
// terms) → the term ids they gave, in order. A run's terms depend on its text alone, so a repeated run
// costs one probe here instead of its splitting and a term table lookup per term. Kept by the index
// across appends: an update's text mostly repeats runs the session already held. Term ids only grow,
// so what is recorded stays true, and forgetting a run only costs splitting it again: the table is a
// cache whose content never changes what the index holds.

/**
 * Runs longer than this are split again at each occurrence rather than remembered (long URLs, base64
 * blobs: rarely repeated, and they would fill the heap).
 */
export const MAX_RECORDED_RUN = 64;
const LENGTH_BITS = 8; // MAX_RECORDED_RUN < 1 << LENGTH_BITS
const LENGTH_MASK = (1 << LENGTH_BITS) - 1;
/**
 * The table starts over (forgets every run) rather than let its records pass this many ints (4 MiB) or
 * hold more than MAX_RUNS runs: its memory stays under about 5 MiB on a session of any size (records
 * plus a hash table at most half full), where unbounded it held 42 MB on the generated 100 MB session.
 * The ≈4 MB session's runs fit in one fill, so its build never starts over.
 */
export const MAX_RECORD_INTS = 1 << 20;
export const MAX_RUNS = 1 << 16;
/**
 * Room kept for one record's term ids: a run yields at most 256 deduplicated terms plus its CJK bigrams
 * (fewer than MAX_RECORDED_RUN), see tokenizer.ts. Only sizes the bound: a record never fails to fit.
 */
const MAX_IDS = 256 + MAX_RECORDED_RUN;

/**
 * Open addressing, two ints per entry: the run's hash, and where its record starts in `heap` + 1 (0:
 * empty entry). A record is its length | count << 8 (count: how many term ids follow), its text (code
 * units), then those ids: a probe that matches reads one stretch of memory.
 */
export class RunTable {
  private entries = new Int32Array(2 * 8192);
  private mask = 8191;
  private count = 0;
  /** Records, back to back. */
  heap = new Int32Array(1 << 16);
  private used = 0;
  /** The entry the last missed `find` stopped at, and the record being written since `begin`. */
  private free = -1;
  private record = -1;
  private readonly maxInts: number;
  private readonly maxRuns: number;

  /** The bounds are MAX_RECORD_INTS and MAX_RUNS; a test may set smaller ones. */
  constructor(bounds: { maxInts?: number; maxRuns?: number } = {}) {
    this.maxInts = bounds.maxInts ?? MAX_RECORD_INTS;
    this.maxRuns = bounds.maxRuns ?? MAX_RUNS;
  }

  /**
   * Sizes an empty table for about `runs` runs whose records take `ints` ints (within the bound), so a
   * first build does not rehash and copy its way up (an estimate: more still grows it as usual).
   */
  presize(runs: number, ints: number): void {
    if (this.count > 0 || this.used > 0) return;
    let size = this.mask + 1;
    while (size < 2 * Math.min(runs, this.maxRuns)) size *= 2;
    if (size > this.mask + 1) {
      this.entries = new Int32Array(2 * size);
      this.mask = size - 1;
    }
    const heap = Math.min(ints, this.maxInts);
    if (heap > this.heap.length) this.heap = new Int32Array(heap);
  }

  /**
   * Where the term ids of run `src[s, e)` (hash `h`, length ≤ MAX_RECORDED_RUN) start in `heap` (their
   * count is `heap[start - length - 1] >>> 8`, see `idsEnd`), or -1 when it was never recorded.
   */
  find(src: string, s: number, e: number, h: number): number {
    const { entries, heap, mask } = this;
    const length = e - s;
    let i = (h ^ (h >>> 15)) & mask;
    for (;;) {
      const at1 = entries[2 * i + 1] as number;
      if (at1 === 0) break;
      if (entries[2 * i] === h && ((heap[at1 - 1] as number) & LENGTH_MASK) === length) {
        let at = at1;
        let k = s;
        while (k < e && src.charCodeAt(k) === heap[at]) {
          k++;
          at++;
        }
        if (k === e) return at;
      }
      i = (i + 1) & mask;
    }
    this.free = i;
    return -1;
  }

  /** Where the term ids starting at `start` (from `find`) end. */
  idsEnd(start: number, length: number): number {
    return start + ((this.heap[start - length - 1] as number) >>> LENGTH_BITS);
  }

  /** Records run `src[s, e)` (hash `h`) right after `find` missed it; its ids follow by `push`, then `end`. */
  begin(src: string, s: number, e: number, h: number): void {
    const length = e - s;
    // Full: start over, so the record and its ids fit under the bound. The entry `find` stopped at is
    // then the empty table's first probe.
    if (this.used + 1 + length + MAX_IDS > this.maxInts || this.count >= this.maxRuns) {
      this.clear();
      this.free = (h ^ (h >>> 15)) & this.mask;
    }
    this.reserve(length + 1);
    const record = this.used;
    const { heap } = this;
    heap[record] = length;
    for (let k = s; k < e; k++) heap[record + 1 + k - s] = src.charCodeAt(k);
    this.used = record + 1 + length;
    this.entries[2 * this.free] = h;
    this.entries[2 * this.free + 1] = record + 1;
    this.record = record;
  }

  push(id: number): void {
    if (this.used === this.heap.length) this.reserve(1);
    this.heap[this.used++] = id;
  }

  /** Closes the record `begin` opened. */
  end(): void {
    const record = this.record;
    const length = (this.heap[record] as number) & LENGTH_MASK;
    this.heap[record] = length | ((this.used - record - 1 - length) << LENGTH_BITS);
    if (++this.count * 2 > this.mask + 1) this.rehash();
  }

  /** Bytes held (records and hash table): what the bound keeps under about 5 MiB. */
  get bytes(): number {
    return 4 * (this.heap.length + this.entries.length);
  }

  /** Runs recorded since the table last started over. */
  get runs(): number {
    return this.count;
  }

  private reserve(n: number): void {
    if (this.used + n <= this.heap.length) return;
    const next = new Int32Array(Math.max(this.used + n, Math.min(this.maxInts, this.heap.length * 2)));
    next.set(this.heap.subarray(0, this.used));
    this.heap = next;
  }

  private rehash(): void {
    const old = this.entries;
    const mask = 2 * this.mask + 1;
    const entries = new Int32Array(2 * (mask + 1));
    for (let q = 0; q < old.length; q += 2) {
      const at = old[q + 1] as number;
      if (at === 0) continue;
      const h = old[q] as number;
      let j = (h ^ (h >>> 15)) & mask;
      while (entries[2 * j + 1] !== 0) j = (j + 1) & mask;
      entries[2 * j] = h;
      entries[2 * j + 1] = at;
    }
    this.entries = entries;
    this.mask = mask;
  }

  /** Forgets every run; the arrays (at most the bound) are kept for the next fill. */
  private clear(): void {
    this.entries.fill(0);
    this.count = 0;
    this.used = 0;
  }
}
