// Proximity of query words inside one block: a long tool output (a whole README, a source file) holds
// most words of any question somewhere, far apart; the block that answers holds them together. Ranking
// reads, for its best candidates, how many distinct query words one stretch of the text holds.

/** Characters one stretch spans: a few lines of output, a sentence or two of prose. */
export const PROXIMITY_WINDOW = 200;

function isWordChar(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 97 && c <= 122) || c === 95;
}

/**
 * `keys` (lowercase; each matched where a word of `lowerText` begins with it, or anywhere for keys that
 * do not start with a letter or digit) → how many distinct keys the text holds at all (`found`) and the
 * most of them one stretch of `window` characters holds (`near`). Linear in the text per key.
 */
export function nearestCoverage(lowerText: string, keys: readonly string[], window = PROXIMITY_WINDOW): { found: number; near: number } {
  const hits: { at: number; key: number }[] = [];
  let found = 0;
  for (let k = 0; k < keys.length; k++) {
    const key = keys[k] as string;
    if (key.length === 0) continue;
    const atWordStart = isWordChar(key.charCodeAt(0));
    let any = false;
    for (let at = lowerText.indexOf(key); at >= 0; at = lowerText.indexOf(key, at + 1)) {
      if (atWordStart && at > 0 && isWordChar(lowerText.charCodeAt(at - 1))) continue;
      hits.push({ at, key: k });
      any = true;
    }
    if (any) found++;
  }
  if (found <= 1) return { found, near: found };
  hits.sort((a, b) => a.at - b.at || a.key - b.key);
  // Sliding window over the sorted hits: counts per key inside [hits[lo].at, hits[hi].at].
  const counts = new Uint32Array(keys.length);
  let distinct = 0;
  let near = 0;
  let lo = 0;
  for (let hi = 0; hi < hits.length; hi++) {
    const h = hits[hi] as { at: number; key: number };
    const had = counts[h.key] as number;
    counts[h.key] = had + 1;
    if (had === 0) distinct++;
    while (h.at - (hits[lo] as { at: number }).at > window) {
      const l = hits[lo++] as { key: number };
      const left = (counts[l.key] as number) - 1;
      counts[l.key] = left;
      if (left === 0) distinct--;
    }
    if (distinct > near) near = distinct;
    if (near === found) break;
  }
  return { found, near };
}
