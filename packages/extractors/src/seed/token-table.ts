// The identifier statistics of a seed accumulator, interned: each distinct token gets an id, its counts
// live in typed arrays, and a repeat is looked up by its characters in the text (no substring, no object).
// Only the tokens a record keeps are ever turned back into strings in bulk.

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

function grown(array: Int32Array, size: number): Int32Array<ArrayBuffer> {
  const next = new Int32Array(size);
  next.set(array);
  return next;
}

/** FNV-1a over UTF-16 units of text[start, end). */
function hashRange(text: string, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h | 0;
}

/** How tokens are ordered for the cap; negative = `a` is kept first. */
export type TokenOrder = (a: number, b: number) => number;

export class TokenTable {
  /** Token text by id. */
  readonly text: string[] = [];
  /** Number of blocks the token appears in. */
  df = new Int32Array(1024);
  /** Ordinal of the first and last block the token appears in. */
  first = new Int32Array(1024);
  last = new Int32Array(1024);
  /** 1 when seen in a large tool output. */
  large = new Int32Array(1024);
  /** The token's part ids: parts[partStart[id] .. partStart[id + 1]). */
  private partStart = new Int32Array(1025);
  private parts = new Int32Array(4096);
  private partCount = 0;
  /** Per part id: how many distinct tokens hold it (a token holding a part twice counts twice). */
  private partUses = new Int32Array(1024);
  private readonly partIds = new Map<string, number>();
  private hashes = new Int32Array(1024);
  /** Open addressing: slot → id + 1 (0 = empty). */
  private slots = new Int32Array(2048);

  get size(): number {
    return this.text.length;
  }

  /** Count the token text[start, end) as seen in the block with this ordinal. */
  noteRange(source: string, start: number, end: number, large: boolean, ordinal: number): void {
    const hash = hashRange(source, start, end);
    const length = end - start;
    const mask = this.slots.length - 1;
    let slot = hash & mask;
    for (;;) {
      const held = this.slots[slot] ?? 0;
      if (held === 0) break;
      const id = held - 1;
      if (this.hashes[id] === hash) {
        const token = this.text[id] ?? "";
        if (token.length === length && source.startsWith(token, start)) {
          this.seen(id, large, ordinal);
          return;
        }
      }
      slot = (slot + 1) & mask;
    }
    this.insert(source.slice(start, end), hash, slot, large, ordinal);
  }

  private seen(id: number, large: boolean, ordinal: number): void {
    if (this.last[id] !== ordinal) {
      this.df[id] = (this.df[id] ?? 0) + 1;
      this.last[id] = ordinal;
    }
    if (large) this.large[id] = 1;
  }

  private insert(token: string, hash: number, slot: number, large: boolean, ordinal: number): void {
    const id = this.text.length;
    if (id + 1 >= this.df.length) {
      const size = this.df.length * 2;
      this.df = grown(this.df, size);
      this.first = grown(this.first, size);
      this.last = grown(this.last, size);
      this.large = grown(this.large, size);
      this.hashes = grown(this.hashes, size);
      this.partStart = grown(this.partStart, size + 1);
    }
    this.text.push(token);
    this.hashes[id] = hash;
    this.df[id] = 1;
    this.first[id] = ordinal;
    this.last[id] = ordinal;
    this.large[id] = large ? 1 : 0;
    this.slots[slot] = id + 1;
    for (const part of tokenParts(token)) {
      let partId = this.partIds.get(part);
      if (partId === undefined) {
        partId = this.partIds.size;
        this.partIds.set(part, partId);
        if (partId >= this.partUses.length) this.partUses = grown(this.partUses, this.partUses.length * 2);
      }
      this.partUses[partId] = (this.partUses[partId] ?? 0) + 1;
      if (this.partCount >= this.parts.length) this.parts = grown(this.parts, this.parts.length * 2);
      this.parts[this.partCount++] = partId;
    }
    this.partStart[id + 1] = this.partCount;
    // Keep the load under a half so probes stay short.
    if ((id + 1) * 2 > this.slots.length) this.rehash(this.slots.length * 2);
  }

  private rehash(capacity: number): void {
    const slots = new Int32Array(capacity);
    const mask = capacity - 1;
    for (let id = 0; id < this.text.length; id++) {
      let slot = (this.hashes[id] ?? 0) & mask;
      while (slots[slot] !== 0) slot = (slot + 1) & mask;
      slots[slot] = id + 1;
    }
    this.slots = slots;
  }

  /** Per id: how rare its rarest part is (lower = rarer); a token without parts counts as its own part. */
  rarities(): Int32Array {
    const out = new Int32Array(this.text.length);
    for (let id = 0; id < this.text.length; id++) {
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
