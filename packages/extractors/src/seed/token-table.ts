// The identifier statistics of a seed accumulator, interned: each distinct token gets an id, its counts
// live in typed arrays, and a repeat is looked up by its characters in the text (no substring, no object).
// Only the tokens a record keeps are ever turned back into strings in bulk.
import { grown, hashRange, RangeInterner } from "./range-interner.js";

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

export class TokenTable {
  /**
   * `excluded(text, start, end)`: a token never counted (and so never held). Asked only of a token not
   * already held, so a repeat of a held token costs one lookup and an excluded word is never sliced twice
   * for the check and the count.
   */
  constructor(private readonly excluded: (source: string, start: number, end: number) => boolean = () => false) {}

  private readonly tokens = new RangeInterner();
  private readonly partNames = new RangeInterner();
  /** Number of blocks the token appears in. */
  df = new Int32Array(1024);
  /** Ordinal of the first and last block the token appears in. */
  first = new Int32Array(1024);
  last = new Int32Array(1024);
  /** 1 when seen in a large tool output. */
  large = new Int32Array(1024);
  /** Token length in UTF-16 units (ranking reads it for every token: no string loads). */
  length = new Int32Array(1024);
  /** The token's part ids: parts[partStart[id] .. partStart[id + 1]). */
  private partStart = new Int32Array(1025);
  private parts = new Int32Array(4096);
  private partCount = 0;
  /** Per part id: how many distinct tokens hold it (a token holding a part twice counts twice). */
  private partUses = new Int32Array(1024);

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

  /** Count the token text[start, end) (FNV-1a `hash`, as `hashRange`) as seen in the block with this ordinal. */
  noteRange(source: string, start: number, end: number, hash: number, large: boolean, ordinal: number): void {
    const found = this.tokens.find(source, start, end, hash);
    if (found >= 0) {
      if (this.last[found] !== ordinal) {
        this.df[found] = (this.df[found] ?? 0) + 1;
        this.last[found] = ordinal;
      }
      if (large) this.large[found] = 1;
      return;
    }
    if (this.excluded(source, start, end)) return;
    const id = this.tokens.add(source, start, end, hash, -1 - found);
    if (id + 1 >= this.df.length) {
      const size = this.df.length * 2;
      this.df = grown(this.df, size);
      this.first = grown(this.first, size);
      this.last = grown(this.last, size);
      this.large = grown(this.large, size);
      this.length = grown(this.length, size);
      this.partStart = grown(this.partStart, size + 1);
    }
    this.df[id] = 1;
    this.first[id] = ordinal;
    this.last[id] = ordinal;
    this.large[id] = large ? 1 : 0;
    this.length[id] = end - start;
    this.noteParts(source, start, end);
    this.partStart[id + 1] = this.partCount;
  }

  /** The parts of text[start, end), as `tokenParts` cuts them, interned and counted. */
  private noteParts(source: string, start: number, end: number): void {
    let from = start;
    let prev = source.charCodeAt(start);
    for (let i = start + 1; i <= end; i++) {
      const c = i < end ? source.charCodeAt(i) : 95;
      const sep = isSep(c);
      const cut = sep || (!isSep(prev) && prev >= 97 && prev <= 122 && c >= 65 && c <= 90);
      if (cut) {
        if (i - from >= 2) this.notePart(source, from, i);
        from = sep ? i + 1 : i;
      }
      prev = c;
    }
  }

  private notePart(source: string, start: number, end: number): void {
    const hash = hashRange(source, start, end);
    let partId = this.partNames.find(source, start, end, hash);
    if (partId < 0) {
      partId = this.partNames.add(source, start, end, hash, -1 - partId);
      if (partId >= this.partUses.length) this.partUses = grown(this.partUses, this.partUses.length * 2);
    }
    this.partUses[partId] = (this.partUses[partId] ?? 0) + 1;
    if (this.partCount >= this.parts.length) this.parts = grown(this.parts, this.parts.length * 2);
    this.parts[this.partCount++] = partId;
  }

  /** Per id: how rare its rarest part is (lower = rarer); a token without parts counts as its own part. */
  rarities(): Int32Array {
    const count = this.size;
    const out = new Int32Array(count);
    for (let id = 0; id < count; id++) {
      const from = this.partStart[id] ?? 0;
      const to = this.partStart[id + 1] ?? 0;
      let min = Number.MAX_SAFE_INTEGER;
      for (let p = from; p < to; p++) {
        const uses = this.partUses[this.parts[p] ?? 0] ?? 0;
        if (uses < min) min = uses;
      }
      out[id] = min === Number.MAX_SAFE_INTEGER ? 1 : min;
    }
    return out;
  }
}
