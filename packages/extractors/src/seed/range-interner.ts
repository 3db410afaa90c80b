// Distinct strings by id, looked up by a range of some text: a repeat costs a hash and a compare of its
// characters, never a substring. The seed accumulator's token table and its path-candidate dedup use it.

/** A copy of `array` with room for `size` entries. */
export function grown(array: Int32Array, size: number): Int32Array<ArrayBuffer> {
  const next = new Int32Array(size);
  next.set(array);
  return next;
}

/** FNV-1a over UTF-16 units of text[start, end). */
export function hashRange(text: string, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h | 0;
}

/**
 * Distinct character strings by id, found by the characters of a range of some text (no substring to
 * look up). Each one's characters are copied once into a flat pool: a lookup compares typed-array units,
 * not the units of a heap string. A slot holds the hash beside the id, so a probe reads one place.
 */
export class RangeInterner {
  /** The strings by id, when kept (`keep`); a part table only counts, it never prints. */
  readonly strings: string[] = [];
  private pool = new Uint16Array(16384);
  private poolSize = 0;
  /** Per id: where its characters start in `pool`, and how many. */
  private at = new Int32Array(1024);
  private length = new Int32Array(1024);
  private count = 0;
  /** Open addressing, two ints per slot: [hash, id + 1] (id + 1 = 0: empty). */
  private slots = new Int32Array(4096);

  constructor(private readonly keep: boolean) {}

  get size(): number {
    return this.count;
  }

  /** The id of text[start, end) (its FNV-1a `hash`), or -1 - slot where it would go. */
  find(source: string, start: number, end: number, hash: number): number {
    const length = end - start;
    const slots = this.slots;
    const mask = (slots.length >> 1) - 1;
    let slot = hash & mask;
    for (;;) {
      const held = slots[2 * slot + 1] ?? 0;
      if (held === 0) return -1 - slot;
      if (slots[2 * slot] === hash && this.length[held - 1] === length && this.same(held - 1, source, start, length)) return held - 1;
      slot = (slot + 1) & mask;
    }
  }

  private same(id: number, source: string, start: number, length: number): boolean {
    const pool = this.pool;
    const from = this.at[id] ?? 0;
    for (let i = 0; i < length; i++) if (pool[from + i] !== source.charCodeAt(start + i)) return false;
    return true;
  }

  /** Add text[start, end), which `find` did not find, at the slot it named (-1 - its result). */
  add(source: string, start: number, end: number, hash: number, slot: number): number {
    const id = this.count++;
    const length = end - start;
    if (this.keep) this.strings.push(source.slice(start, end));
    if (id >= this.at.length) {
      this.at = grown(this.at, this.at.length * 2);
      this.length = grown(this.length, this.length.length * 2);
    }
    if (this.poolSize + length > this.pool.length) {
      const pool = new Uint16Array(Math.max(this.pool.length * 2, this.poolSize + length));
      pool.set(this.pool);
      this.pool = pool;
    }
    const pool = this.pool;
    const from = this.poolSize;
    for (let i = 0; i < length; i++) pool[from + i] = source.charCodeAt(start + i);
    this.poolSize = from + length;
    this.at[id] = from;
    this.length[id] = length;
    this.slots[2 * slot] = hash;
    this.slots[2 * slot + 1] = id + 1;
    // Keep the load under a half so probes stay short.
    if ((id + 1) * 4 > this.slots.length) this.rehash(this.slots.length);
    return id;
  }

  /** Double the slot count (`slots` ints now), re-placing every entry. */
  private rehash(ints: number): void {
    const old = this.slots;
    const slots = new Int32Array(ints * 2);
    const mask = ints - 1;
    for (let at = 0; at < old.length; at += 2) {
      const held = old[at + 1] ?? 0;
      if (held === 0) continue;
      const hash = old[at] ?? 0;
      let slot = hash & mask;
      while (slots[2 * slot + 1] !== 0) slot = (slot + 1) & mask;
      slots[2 * slot] = hash;
      slots[2 * slot + 1] = held;
    }
    this.slots = slots;
  }
}
