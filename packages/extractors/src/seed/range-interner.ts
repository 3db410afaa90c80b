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

/** FNV-1a over units[start, end): `hashRange` of the same units. */
export function hashUnits(units: Uint16Array, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ (units[i] as number), 0x01000193);
  return h | 0;
}

/**
 * Distinct character strings by id, found by the characters of a range of some text (no substring to
 * look up). Each one's characters are copied once into a flat pool: a lookup compares typed-array units,
 * not the units of a heap string, and a string is made only when asked for (`text`). A slot holds the
 * hash, the id, and where and how long its characters are, so a probe reads one place.
 */
export class RangeInterner {
  private pool = new Uint16Array(16384);
  private poolSize = 0;
  /** Per id: where its characters start in `pool`, and how many. */
  private at = new Int32Array(1024);
  private length = new Int32Array(1024);
  private count = 0;
  /** Open addressing, four ints per slot: [hash, id + 1, pool start, length] (id + 1 = 0: empty). */
  private slots = new Int32Array(4 * 2048);
  /** What `warm` loaded, kept so that its loads are not optimised away. */
  private warmth = 0;

  get size(): number {
    return this.count;
  }

  /** The id of text[start, end) (its FNV-1a `hash`), or -1 - slot where it would go. */
  find(source: string, start: number, end: number, hash: number): number {
    const length = end - start;
    const slots = this.slots;
    const mask = (slots.length >> 2) - 1;
    let slot = hash & mask;
    for (;;) {
      const base = slot << 2;
      const held = slots[base + 1] as number;
      if (held === 0) return -1 - slot;
      if (slots[base] === hash && slots[base + 3] === length && this.same(slots[base + 2] as number, source, start, length)) return held - 1;
      slot = (slot + 1) & mask;
    }
  }

  private same(from: number, source: string, start: number, length: number): boolean {
    const pool = this.pool;
    for (let i = 0; i < length; i++) if (pool[from + i] !== source.charCodeAt(start + i)) return false;
    return true;
  }

  /**
   * `find` of units[start, end) (its FNV-1a `hash`, as `hashUnits`). A copy of `find` for a typed
   * array on purpose: one probe loop reading both a string and a Uint16Array would be polymorphic on
   * the hottest path of a seed scan.
   */
  findUnits(units: Uint16Array, start: number, end: number, hash: number): number {
    const length = end - start;
    const slots = this.slots;
    const mask = (slots.length >> 2) - 1;
    let slot = hash & mask;
    for (;;) {
      const base = slot << 2;
      const held = slots[base + 1] as number;
      if (held === 0) return -1 - slot;
      if (slots[base] === hash && slots[base + 3] === length && this.sameUnits(slots[base + 2] as number, units, start, length)) return held - 1;
      slot = (slot + 1) & mask;
    }
  }

  private sameUnits(from: number, units: Uint16Array, start: number, length: number): boolean {
    const pool = this.pool;
    for (let i = 0; i < length; i++) if (pool[from + i] !== units[start + i]) return false;
    return true;
  }

  /**
   * Load the slots (and the first pooled unit) that `find` will probe for the [start, end, hash]
   * triples ranges[from, to), all at once: the table outgrows the caches, and these independent loads
   * overlap where the lookups' own loads, each waiting on the one before, would miss one by one.
   */
  warm(ranges: Int32Array, from: number, to: number): void {
    const slots = this.slots;
    const pool = this.pool;
    const mask = (slots.length >> 2) - 1;
    let x = 0;
    for (let at = from; at < to; at += 3) {
      const base = ((ranges[at + 2] as number) & mask) << 2;
      x ^= (slots[base + 1] as number) ^ (pool[slots[base + 2] as number] ?? 0);
    }
    this.warmth = x;
  }

  /** Add text[start, end), which `find` did not find, at the slot it named (-1 - its result). */
  add(source: string, start: number, end: number, hash: number, slot: number): number {
    const length = end - start;
    const from = this.reserve(length);
    const pool = this.pool;
    for (let i = 0; i < length; i++) pool[from + i] = source.charCodeAt(start + i);
    return this.place(from, length, hash, slot);
  }

  /** `add` of units[start, end), which `findUnits` did not find. */
  addUnits(units: Uint16Array, start: number, end: number, hash: number, slot: number): number {
    const length = end - start;
    const from = this.reserve(length);
    this.pool.set(units.subarray(start, end), from);
    return this.place(from, length, hash, slot);
  }

  /** Room for `length` more units in the pool: where they go. */
  private reserve(length: number): number {
    if (this.poolSize + length > this.pool.length) {
      const pool = new Uint16Array(Math.max(this.pool.length * 2, this.poolSize + length));
      pool.set(this.pool);
      this.pool = pool;
    }
    const from = this.poolSize;
    this.poolSize = from + length;
    return from;
  }

  /** A new id for the pooled units [from, from + length), at `slot`. */
  private place(from: number, length: number, hash: number, slot: number): number {
    const id = this.count++;
    if (id >= this.at.length) {
      this.at = grown(this.at, this.at.length * 2);
      this.length = grown(this.length, this.length.length * 2);
    }
    this.at[id] = from;
    this.length[id] = length;
    const base = slot << 2;
    this.slots[base] = hash;
    this.slots[base + 1] = id + 1;
    this.slots[base + 2] = from;
    this.slots[base + 3] = length;
    // Keep the load under a half so probes stay short.
    if ((id + 1) * 8 > this.slots.length) this.rehash();
    return id;
  }

  /**
   * The pool of every id's units: id's are at [start(id), start(id) + size(id)). Valid until the next
   * `add` (which may move them to a larger pool).
   */
  units(): Uint16Array {
    return this.pool;
  }

  start(id: number): number {
    return this.at[id] as number;
  }

  /** Length in units of the string with this id. */
  lengthOf(id: number): number {
    return this.length[id] as number;
  }

  /** The string with this id. */
  text(id: number): string {
    const from = this.at[id] as number;
    const to = from + (this.length[id] as number);
    let out = "";
    // In pieces: an argument list as long as a 1 MB candidate would overflow the stack.
    for (let at = from; at < to; at += 4096) out += String.fromCharCode(...this.pool.subarray(at, Math.min(to, at + 4096)));
    return out;
  }

  /** The order of two ids' strings by UTF-16 units, as `<` orders strings. */
  compare(a: number, b: number): number {
    const pool = this.pool;
    const fromA = this.at[a] as number;
    const fromB = this.at[b] as number;
    const lengthA = this.length[a] as number;
    const lengthB = this.length[b] as number;
    const n = Math.min(lengthA, lengthB);
    for (let i = 0; i < n; i++) {
      const d = (pool[fromA + i] as number) - (pool[fromB + i] as number);
      if (d !== 0) return d < 0 ? -1 : 1;
    }
    return lengthA === lengthB ? 0 : lengthA < lengthB ? -1 : 1;
  }

  /** Double the slot count, re-placing every entry. */
  private rehash(): void {
    const old = this.slots;
    const slots = new Int32Array(old.length * 2);
    const mask = (slots.length >> 2) - 1;
    for (let at = 0; at < old.length; at += 4) {
      const held = old[at + 1] as number;
      if (held === 0) continue;
      const hash = old[at] as number;
      let slot = hash & mask;
      while (slots[(slot << 2) + 1] !== 0) slot = (slot + 1) & mask;
      const base = slot << 2;
      slots[base] = hash;
      slots[base + 1] = held;
      slots[base + 2] = old[at + 2] as number;
      slots[base + 3] = old[at + 3] as number;
    }
    this.slots = slots;
  }
}
