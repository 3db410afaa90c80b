// The term table: term ↔ id by open addressing over `termHash`, looked up by a range of the source
// text (no string sliced per token). Ids are first-seen order and only grow. A table over terms read
// from a cache is hashed only when it is first needed: a one-shot search (the CLI) looks up a handful
// of query terms, which a scan of the term list answers for far less than hashing every term.
import { termHash, termText } from "./tokenizer.js";

/**
 * Lookups answered by scanning the term list before the hash table is built: each scan costs about as
 * much as hashing a sixtieth of the terms, so a few dozen stay well under one build.
 */
const SCANS_BEFORE_BUILD = 16;

const SLOT_WIDTH = 4;

/**
 * Term ↔ id by open addressing over `termHash` values, looked up by a range of the source text: the
 * build interns ~10⁶ tokens per 4 MB without slicing a string per token (only new terms are sliced).
 */
export class TermTable {
  readonly terms: string[];
  /**
   * Interleaved [id + 1, hash, where its text starts in `chars`, its length] per slot: a probe reads the
   * hash and the term's place from the slot's own cache line and compares against `chars` in place, so
   * a miss, a collision or a hit costs no read of the term's string (the table of a large session is not
   * cache-resident: each pointer followed would be a likely cache miss).
   */
  private slots = new Int32Array(0);
  private mask = -1;
  /** Every term's code units (as stored: ASCII capitals lowered), back to back in id order. */
  private chars = new Uint16Array(0);
  private charsUsed = 0;
  /** Lookups left to answer by a scan; -1 once the hash table is built (then always used). */
  private scans: number;

  constructor(terms: string[]) {
    this.terms = terms;
    // An empty table is built at once (nothing to hash); a loaded one on first `find`, `add` or many `get`s.
    this.scans = terms.length === 0 ? -1 : SCANS_BEFORE_BUILD;
    if (this.scans < 0) this.build();
  }

  private build(): void {
    const { terms } = this;
    let size = 1024;
    while (size < terms.length * 2) size *= 2;
    this.slots = new Int32Array(SLOT_WIDTH * size);
    this.mask = size - 1;
    this.scans = -1;
    let total = 0;
    for (const term of terms) total += term.length;
    this.chars = new Uint16Array(Math.max(1024, total));
    for (let id = 0; id < terms.length; id++) {
      const term = terms[id] as string;
      this.place(id, termHash(term), this.append(term, 0, term.length), term.length);
    }
  }

  /**
   * Sizes an empty table for about `terms` terms of `chars` code units in all, so a first build does not
   * rehash and copy its way up from the minimum (an estimate: more still grows the table as usual).
   */
  presize(terms: number, chars: number): void {
    if (this.terms.length > 0 || this.scans >= 0) return;
    let size = 1024;
    while (size < terms * 2) size *= 2;
    if (size > this.mask + 1) {
      this.slots = new Int32Array(SLOT_WIDTH * size);
      this.mask = size - 1;
    }
    if (chars > this.chars.length) this.chars = new Uint16Array(chars);
  }

  /** Appends `src[a, b)` (ASCII capitals lowered) to `chars`; returns where it starts. */
  private append(src: string, a: number, b: number): number {
    const at = this.charsUsed;
    if (at + (b - a) > this.chars.length) {
      const next = new Uint16Array(Math.max(this.chars.length * 2, at + (b - a)));
      next.set(this.chars.subarray(0, at));
      this.chars = next;
    }
    const { chars } = this;
    for (let k = a; k < b; k++) {
      const c = src.charCodeAt(k);
      chars[at + k - a] = c >= 65 && c <= 90 ? c + 32 : c;
    }
    this.charsUsed = at + (b - a);
    return at;
  }

  private place(id: number, h: number, at: number, length: number): void {
    const { slots, mask } = this;
    let i = (h ^ (h >>> 15)) & mask;
    while (slots[SLOT_WIDTH * i] !== 0) i = (i + 1) & mask;
    const p = SLOT_WIDTH * i;
    slots[p] = id + 1;
    slots[p + 1] = h;
    slots[p + 2] = at;
    slots[p + 3] = length;
  }

  /**
   * The slot holding `src[a, b)` (hash `h`), or the empty slot its probe ends at (where it would go):
   * the one probe loop, for `find` and `intern`.
   */
  private probe(src: string, a: number, b: number, h: number): number {
    const { slots, mask, chars } = this;
    const length = b - a;
    let i = (h ^ (h >>> 15)) & mask;
    for (;;) {
      const p = SLOT_WIDTH * i;
      if (slots[p] === 0) return i;
      if (slots[p + 1] === h && slots[p + 3] === length) {
        let at = slots[p + 2] as number;
        let k = a;
        for (; k < b; k++, at++) {
          const c = src.charCodeAt(k);
          if ((c >= 65 && c <= 90 ? c + 32 : c) !== chars[at]) break;
        }
        if (k === b) return i;
      }
      i = (i + 1) & mask;
    }
  }

  /** The id of `src[a, b)` (hash `h`), or -1. */
  find(src: string, a: number, b: number, h: number): number {
    if (this.scans >= 0) this.build();
    return (this.slots[SLOT_WIDTH * this.probe(src, a, b, h)] as number) - 1;
  }

  /**
   * The id of `src[a, b)` (hash `h`), added when absent: one probe, the new term placed in the empty
   * slot it ended at (what the index build does per term of a run it has not seen).
   */
  intern(src: string, a: number, b: number, h: number): number {
    if (this.scans >= 0) this.build();
    const p = SLOT_WIDTH * this.probe(src, a, b, h);
    const { slots } = this;
    const s = slots[p] as number;
    if (s !== 0) return s - 1;
    const id = this.terms.length;
    // Past half full the table is rehashed first (and the slot found again).
    if ((id + 1) * 2 > this.mask + 1) return this.add(src, a, b, h);
    this.terms.push(termText(src, a, b));
    slots[p] = id + 1;
    slots[p + 1] = h;
    slots[p + 2] = this.append(src, a, b);
    slots[p + 3] = b - a;
    return id;
  }

  /** Adds `src[a, b)` (known absent) and returns its id. */
  add(src: string, a: number, b: number, h: number): number {
    if (this.scans >= 0) this.build();
    const id = this.terms.length;
    this.terms.push(termText(src, a, b));
    if ((id + 1) * 2 > this.mask + 1) {
      // Rehash at half full: probes stay short.
      const old = this.slots;
      const size = (this.mask + 1) * 2;
      this.slots = new Int32Array(SLOT_WIDTH * size);
      this.mask = size - 1;
      for (let k = 0; k < old.length; k += SLOT_WIDTH) if (old[k] !== 0) this.place((old[k] as number) - 1, old[k + 1] as number, old[k + 2] as number, old[k + 3] as number);
    }
    this.place(id, h, this.append(src, a, b), b - a);
    return id;
  }

  get(term: string): number {
    if (this.scans > 0 && !hasAsciiCapital(term)) {
      // Terms are stored with ASCII capitals lowered and are unique, so the first equal one is the id
      // the hash table would give (a term with capitals goes through the table's case-folding compare).
      this.scans--;
      return this.terms.indexOf(term);
    }
    return this.find(term, 0, term.length, termHash(term));
  }
}

/** Whether `s` holds an ASCII capital (stored terms never do: they are lowered). */
export function hasAsciiCapital(s: string): boolean {
  for (let k = 0; k < s.length; k++) {
    const c = s.charCodeAt(k);
    if (c >= 65 && c <= 90) return true;
  }
  return false;
}
