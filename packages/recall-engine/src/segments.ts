// Postings in CSR segments: the dense base (a build or a cache load) and the sparse appends (one per
// incremental update, holding only the terms it touched), and how several are merged into one.

/**
 * Frozen postings in CSR form. Dense (`termIds` null): term t's [doc, tf, …] pairs are
 * postings[offsets[t] .. offsets[t+1]) for t < termCount. Sparse (an append touching few terms):
 * `termIds` lists the terms it holds, ascending, and offsets run over that list.
 */
export interface FrozenPostings {
  readonly offsets: Uint32Array;
  readonly postings: Uint32Array;
  readonly termCount: number;
  readonly termIds: Uint32Array | null;
}

/** Segments kept apart at most (each costs a lookup per query term): past it the newest merge (term-index.ts). */
export const MAX_SEGMENTS = 8;

/** No postings: the base of an empty index. */
export const EMPTY: FrozenPostings = { offsets: new Uint32Array(1), postings: new Uint32Array(0), termCount: 0, termIds: null };

export function grow(a: Int32Array, size: number): Int32Array {
  const next = new Int32Array(size);
  next.set(a);
  return next;
}

/** Where term `id` sits in a segment's offsets, or -1 when the segment does not hold it. */
export function slotIn(seg: FrozenPostings, id: number): number {
  const ids = seg.termIds;
  if (ids === null) return id < seg.termCount ? id : -1;
  let lo = 0;
  let hi = ids.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = ids[mid] as number;
    if (v === id) return mid;
    if (v < id) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/**
 * `segs` (in doc order) as one segment, dense over every term or sparse over the terms they hold.
 * `local` is all-zero scratch covering every term id, left all zero.
 */
export function mergeSegments(segs: readonly FrozenPostings[], dense: boolean, termCount: number, local: Int32Array): FrozenPostings {
  let termIds: Uint32Array | null = null;
  let width = termCount;
  // Term id → its place in the merged offsets.
  let placeOf: (id: number) => number = (id) => id;
  if (!dense) {
    const ids: number[] = [];
    for (const seg of segs) {
      const segIds = seg.termIds;
      const count = segIds === null ? seg.termCount : segIds.length;
      for (let j = 0; j < count; j++) {
        const id = segIds === null ? j : (segIds[j] as number);
        if (segIds === null && seg.offsets[j + 1] === seg.offsets[j]) continue;
        if (local[id] === 0) {
          local[id] = 1;
          ids.push(id);
        }
      }
    }
    termIds = Uint32Array.from(ids).sort();
    for (let j = 0; j < termIds.length; j++) local[termIds[j] as number] = j + 1;
    width = termIds.length;
    placeOf = (id) => (local[id] as number) - 1;
  }
  const offsets = new Uint32Array(width + 1);
  for (const seg of segs) {
    const count = seg.termIds === null ? seg.termCount : seg.termIds.length;
    for (let j = 0; j < count; j++) {
      const size = (seg.offsets[j + 1] as number) - (seg.offsets[j] as number);
      if (size === 0) continue;
      const at = placeOf(seg.termIds === null ? j : (seg.termIds[j] as number)) + 1;
      offsets[at] = (offsets[at] as number) + size;
    }
  }
  for (let t = 0; t < width; t++) offsets[t + 1] = (offsets[t + 1] as number) + (offsets[t] as number);
  const postings = new Uint32Array(offsets[width] as number);
  const fill = offsets.slice(0, width);
  for (const seg of segs) {
    const count = seg.termIds === null ? seg.termCount : seg.termIds.length;
    const from = seg.postings;
    for (let j = 0; j < count; j++) {
      const a = seg.offsets[j] as number;
      const b = seg.offsets[j + 1] as number;
      if (b === a) continue;
      const at = placeOf(seg.termIds === null ? j : (seg.termIds[j] as number));
      // Copied by a loop: most terms hold a pair or two, where a `subarray` + `set` per term cost an
      // object (garbage) and a call each, most of a merge's time.
      let to = fill[at] as number;
      for (let q = a; q < b; q++) postings[to++] = from[q] as number;
      fill[at] = to;
    }
  }
  if (termIds !== null) for (let j = 0; j < termIds.length; j++) local[termIds[j] as number] = 0;
  return { offsets, postings, termCount, termIds };
}
