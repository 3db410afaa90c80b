// The identifier statistics of a seed accumulator, interned: each distinct token gets an id, its counts
// live in typed arrays, and a repeat is looked up by its characters in the text (no substring, no object).
// Only the tokens a record keeps are ever turned back into strings in bulk.
import { grown, hashUnits, RangeInterner } from "./range-interner.js";

/** Parts of a token: runs split at "_", "-", "." and lower→upper changes; parts under 2 chars are dropped. */
export function tokenParts(token: string): string[] {
  const parts: string[] = [];
  let start = 0;
  let prev = token.charCodeAt(0);
  for (let i = 1; i <= token.length; i++) {
    const c = i < token.length ? token.charCodeAt(i) : 95;
    const sep = c === 95 || c === 45 || c === 46;
    const prevSep = prev === 95 || prev === 45 || prev === 46;
    const cut = sep || (!prevSep && prev >= 97 && prev <= 122 && c >= 65 && c <= 90);
    if (cut) {
      if (i - start >= 2) parts.push(token.slice(start, i));
      start = sep ? i + 1 : i;
    }
    prev = c;
  }
  return parts;
}

const isSep = (c: number): boolean => c === 95 || c === 45 || c === 46;

/** How tokens are ordered for the cap; negative = `a` is kept first. */
export type TokenOrder = (a: number, b: number) => number;

/** A token's statistics in `TokenTable.stats`: STAT_STRIDE ints per id, at these offsets. */
export const STAT_DF = 0;
export const STAT_FIRST = 1;
export const STAT_LAST = 2;
export const STAT_LARGE = 3;
export const STAT_STRIDE = 4;

/** Tokens looked up together (`noteRanges`): their slots are loaded in one pass before the lookups. */
const WARM_TRIPLES = 32;

export class TokenTable {
  /**
   * `excluded(text, start, end)`: a token never counted (and so never held). Asked only of a token not
   * already held, so a repeat of a held token costs one lookup and an excluded word is never sliced twice
   * for the check and the count.
   */
  constructor(private readonly excluded: (source: string, start: number, end: number) => boolean = () => false) {}

  private readonly tokens = new RangeInterner();
  private readonly partNames = new RangeInterner();
  /**
   * Per token id, side by side (a repeat updates one cache line, not one per array): the number of
   * blocks it appears in (STAT_DF), the ordinal of the first and last of them (STAT_FIRST, STAT_LAST),
   * and 1 when one was a large tool output (STAT_LARGE).
   */
  stats = new Int32Array(STAT_STRIDE * 1024);
  /** Token length in UTF-16 units (ranking reads it for every token: no string loads). */
  length = new Int32Array(1024);
  /** The token's part ids: parts[partStart[id] .. partStart[id + 1]), for ids below `partsCounted`. */
  private partStart = new Int32Array(1025);
  private parts = new Int32Array(4096);
  private partCount = 0;
  /** Tokens whose parts are counted: parts are counted when rarity is asked, not per block. */
  private partsCounted = 0;
  /** Parts waiting for `flushParts`, as [start, end, hash] triples of the token pool. */
  private readonly pendingParts = new Int32Array(3 * WARM_TRIPLES);
  /** Per part id: how many distinct tokens hold it (a token holding a part twice counts twice). */
  private partUses = new Int32Array(1024);

  /**
   * Ids of tokens first counted outside a large output and later seen in one, in the order that happened:
   * the one way a token's rank can rise other than being new (its rarity and counts only grow), so a
   * ranking kept across calls re-reads these (see identifier-rank.ts).
   */
  readonly largeFlips: number[] = [];

  /** Token text by id (made on request: a record prints a few dozen of thousands). */
  text(id: number): string {
    return this.tokens.text(id);
  }

  /** The order of two tokens' texts, as `<` orders the strings. */
  compareText(a: number, b: number): number {
    return this.tokens.compare(a, b);
  }

  get size(): number {
    return this.tokens.size;
  }

  /** `noteRange` of each [start, end, hash] triple of ranges[0, ints), all seen in one block. */
  noteRanges(source: string, ranges: Int32Array, ints: number, large: boolean, ordinal: number): void {
    for (let from = 0; from < ints; from += 3 * WARM_TRIPLES) {
      const to = Math.min(ints, from + 3 * WARM_TRIPLES);
      this.tokens.warm(ranges, from, to);
      for (let at = from; at < to; at += 3) this.noteRange(source, ranges[at] as number, ranges[at + 1] as number, ranges[at + 2] as number, large, ordinal);
    }
  }

  /** Count the token text[start, end) (FNV-1a `hash`, as `hashRange`) as seen in the block with this ordinal. */
  noteRange(source: string, start: number, end: number, hash: number, large: boolean, ordinal: number): void {
    const found = this.tokens.find(source, start, end, hash);
    const stats = this.stats;
    if (found >= 0) {
      const at = found * STAT_STRIDE;
      if (stats[at + STAT_LAST] !== ordinal) {
        stats[at + STAT_DF] = (stats[at + STAT_DF] as number) + 1;
        stats[at + STAT_LAST] = ordinal;
      }
      if (large && stats[at + STAT_LARGE] === 0) {
        stats[at + STAT_LARGE] = 1;
        this.largeFlips.push(found);
      }
      return;
    }
    if (this.excluded(source, start, end)) return;
    const id = this.tokens.add(source, start, end, hash, -1 - found);
    if (id >= this.length.length) {
      const size = this.length.length * 2;
      this.stats = grown(this.stats, size * STAT_STRIDE);
      this.length = grown(this.length, size);
    }
    const at = id * STAT_STRIDE;
    const next = this.stats;
    next[at + STAT_DF] = 1;
    next[at + STAT_FIRST] = ordinal;
    next[at + STAT_LAST] = ordinal;
    next[at + STAT_LARGE] = large ? 1 : 0;
    this.length[id] = end - start;
  }

  /**
   * Count the parts of every token added since the last call, as `tokenParts` cuts them, from the pool
   * of token units: once per token, in one pass over units laid side by side, rather than block by block.
   * Parts are looked up WARM_TRIPLES at a time, their slots loaded first (`RangeInterner.warm`).
   * Called by `rarities`; a caller reading `rarityOf` calls it first.
   */
  countParts(): void {
    const count = this.size;
    if (this.partsCounted === count) return;
    if (count + 1 > this.partStart.length) this.partStart = grown(this.partStart, Math.max(count + 1, this.partStart.length * 2));
    const units = this.tokens.units();
    const pending = this.pendingParts;
    let ints = 0;
    for (let id = this.partsCounted; id < count; id++) {
      const start = this.tokens.start(id);
      const end = start + this.tokens.lengthOf(id);
      let from = start;
      let prev = units[start] as number;
      for (let i = start + 1; i <= end; i++) {
        const c = i < end ? (units[i] as number) : 95;
        const sep = isSep(c);
        const cut = sep || (!isSep(prev) && prev >= 97 && prev <= 122 && c >= 65 && c <= 90);
        if (cut) {
          if (i - from >= 2) {
            pending[ints] = from;
            pending[ints + 1] = i;
            pending[ints + 2] = hashUnits(units, from, i);
            ints += 3;
            if (ints === pending.length) ints = this.flushParts(units, ints);
          }
          from = sep ? i + 1 : i;
        }
        prev = c;
      }
      // Where its parts end once the pending ones are counted: parts are appended in order.
      this.partStart[id + 1] = this.partCount + ints / 3;
    }
    this.flushParts(units, ints);
    this.partsCounted = count;
  }

  /** Count the pending parts pendingParts[0, ints) in order; returns 0 (none left pending). */
  private flushParts(units: Uint16Array, ints: number): number {
    const pending = this.pendingParts;
    this.partNames.warm(pending, 0, ints);
    for (let at = 0; at < ints; at += 3) this.notePart(units, pending[at] as number, pending[at + 1] as number, pending[at + 2] as number);
    return 0;
  }

  private notePart(units: Uint16Array, start: number, end: number, hash: number): void {
    let partId = this.partNames.findUnits(units, start, end, hash);
    if (partId < 0) {
      partId = this.partNames.addUnits(units, start, end, hash, -1 - partId);
      if (partId >= this.partUses.length) this.partUses = grown(this.partUses, this.partUses.length * 2);
    }
    this.partUses[partId] = (this.partUses[partId] ?? 0) + 1;
    if (this.partCount >= this.parts.length) this.parts = grown(this.parts, this.parts.length * 2);
    this.parts[this.partCount++] = partId;
  }

  /** Per id: how rare its rarest part is (lower = rarer); a token without parts counts as its own part. */
  rarities(): Int32Array {
    this.countParts();
    const count = this.size;
    const out = new Int32Array(count);
    for (let id = 0; id < count; id++) out[id] = this.rarityOf(id);
    return out;
  }

  /**
   * `rarities()[id]` alone, for a token whose parts are counted (`countParts` since it was added). It
   * never falls as tokens are added: part counts only grow.
   */
  rarityOf(id: number): number {
    const from = this.partStart[id] ?? 0;
    const to = this.partStart[id + 1] ?? 0;
    let min = Number.MAX_SAFE_INTEGER;
    for (let p = from; p < to; p++) {
      const uses = this.partUses[this.parts[p] ?? 0] ?? 0;
      if (uses < min) min = uses;
    }
    return min === Number.MAX_SAFE_INTEGER ? 1 : min;
  }
}
