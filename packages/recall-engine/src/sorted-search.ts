// Binary search over ascending start positions: which run (a scope's segment, a term in a packed list, a
// record in a dictionary log) holds a position.

/** The last index `i` with `sorted[i] <= value` (0 when none is, or when `sorted` is empty). */
export function lastAtOrBefore(sorted: ArrayLike<number>, value: number): number {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if ((sorted[mid] as number) <= value) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
