// Fold codes: the in-context recall handle of a span, derived from its blockId, collision-checked per session.
import { hash } from "node:crypto";
import { CodeCollisionError } from "./errors.js";

const ALPHABET = "abcdefghijklmnopqrstuvwxyz234567";

/** RFC 4648 base32, lowercase, no padding. */
export function base32Lower(bytes: Uint8Array): string {
  let out = "";
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = ((buffer << 8) | byte) & 0xffff;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(buffer >> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += ALPHABET[(buffer << (5 - bits)) & 31];
  return out;
}

/** The 5 bits at `offset` (0–59, from the top) of the 64-bit value high:low. */
function fiveBits(high: number, low: number, offset: number): number {
  if (offset + 5 <= 32) return (high >>> (27 - offset)) & 31;
  if (offset >= 32) return (low >>> (59 - offset)) & 31;
  const fromHigh = 32 - offset; // 1–4 bits at the end of `high`, the rest at the start of `low`
  return ((high & ((1 << fromHigh) - 1)) << (5 - fromHigh)) | (low >>> (27 + fromHigh));
}

// Base32 letters by value, as UTF-16 units: a code is made by one String.fromCharCode, not ten appends.
const LETTERS = Array.from(ALPHABET, (ch) => ch.charCodeAt(0));

/** The value of a lowercase hex digit's unit. */
const hexValue = (unit: number): number => (unit <= 57 ? unit - 48 : unit - 87);

/** First 10 (or 12) characters of base32(sha256(blockId)). */
export function codeFor(blockId: string, length: 10 | 12 = 10): string {
  return codeOfDigest(hash("sha256", blockId, "hex"), length);
}

/** The code of a block whose sha256(blockId) is `hex`. */
function codeOfDigest(hex: string, length: 10 | 12): string {
  // Base32 is a prefix stream: 12 characters need 60 bits, so the first 16 hex digits (8 bytes) of the
  // digest suffice. The digest is taken as hex (a string result costs a third of a Buffer's) and its
  // digits read in place (no slices, no parseInt): a record from scratch asks this of every span.
  let high = 0;
  let low = 0;
  for (let i = 0; i < 8; i++) high = (high << 4) | hexValue(hex.charCodeAt(i));
  for (let i = 8; i < 16; i++) low = (low << 4) | hexValue(hex.charCodeAt(i));
  const l = LETTERS;
  const code = String.fromCharCode(
    l[fiveBits(high, low, 0)] as number,
    l[fiveBits(high, low, 5)] as number,
    l[fiveBits(high, low, 10)] as number,
    l[fiveBits(high, low, 15)] as number,
    l[fiveBits(high, low, 20)] as number,
    l[fiveBits(high, low, 25)] as number,
    l[fiveBits(high, low, 30)] as number,
    l[fiveBits(high, low, 35)] as number,
    l[fiveBits(high, low, 40)] as number,
    l[fiveBits(high, low, 45)] as number,
  );
  return length === 10 ? code : code + String.fromCharCode(l[fiveBits(high, low, 50)] as number, l[fiveBits(high, low, 55)] as number);
}

/**
 * Hands out codes within one session. A blockId keeps the code it already has (including codes from
 * existing records); a new blockId whose 10-character code is taken gets 12 characters.
 */
export class CodeAssigner {
  readonly #byBlock = new Map<string, string>();
  readonly #byCode = new Map<string, string>();

  constructor(existing: Iterable<[string, string]> = []) {
    for (const [blockId, code] of existing) {
      if (this.#byBlock.has(blockId) || this.#byCode.has(code)) continue;
      this.#byBlock.set(blockId, code);
      this.#byCode.set(code, blockId);
    }
  }

  assign(blockId: string): string {
    const known = this.#byBlock.get(blockId);
    if (known !== undefined) return known;
    let code = codeFor(blockId, 10);
    const holder = this.#byCode.get(code);
    if (holder !== undefined) {
      code = codeFor(blockId, 12);
      const other = this.#byCode.get(code);
      if (other !== undefined) throw new CodeCollisionError(blockId, other, code);
    }
    this.#byBlock.set(blockId, code);
    this.#byCode.set(code, blockId);
    return code;
  }

  /** The blockId holding a code, if any. */
  blockFor(code: string): string | undefined {
    return this.#byCode.get(code);
  }
}

/** The 50 bits a 10-character code stands for, or -1 when `code` is not 10 base32 letters. */
function codeBits(code: string): number {
  if (code.length !== 10) return -1;
  let value = 0;
  for (let i = 0; i < 10; i++) {
    const digit = ALPHABET.indexOf(code.charAt(i));
    if (digit < 0) return -1;
    value = value * 32 + digit;
  }
  return value;
}

/** The first 50 bits of the digest `hex` (what its 10-character code spells) as one exact number. */
function digestBits(hex: string): number {
  let high = 0;
  for (let i = 0; i < 8; i++) high = (high << 4) | hexValue(hex.charCodeAt(i));
  let next = 0;
  for (let i = 8; i < 13; i++) next = next * 16 + hexValue(hex.charCodeAt(i)); // 20 more bits, 18 taken
  return (high >>> 0) * 2 ** 18 + Math.floor(next / 4);
}

/** 52 bits of the digest `hex` past those a code uses: tells two blocks with one 10-character code apart. */
function digestPrint(hex: string): number {
  let value = 0;
  for (let i = 16; i < 29; i++) value = value * 16 + hexValue(hex.charCodeAt(i));
  return value;
}

/** The smallest power of two at least `least` that holds `expected` entries at most 3/4 full. */
function tableSize(expected: number, least: number): number {
  let size = least;
  while (expected * 4 > size * 3) size *= 2;
  return size;
}

/**
 * In an open-addressed table of (code bits + 1, print) pairs (0: empty; linear probing on the bits' low
 * part), the slot holding `bits` — and `print` too, when given — or the empty slot where it would go.
 */
function probe(keys: Float64Array, prints: Float64Array, bits: number, print: number | undefined): number {
  const mask = keys.length - 1;
  let at = (bits % 4294967296) & mask;
  for (;;) {
    const key = keys[at] ?? 0;
    if (key === 0 || (key === bits + 1 && (print === undefined || prints[at] === print))) return at;
    at = (at + 1) & mask;
  }
}

/** Such a table twice as large, every entry placed again (`byPrint`: entries sharing bits told apart by their print). */
function doubled(keys: Float64Array, prints: Float64Array, byPrint: boolean): [Float64Array, Float64Array] {
  const toKeys = new Float64Array(keys.length * 2);
  const toPrints = new Float64Array(keys.length * 2);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] ?? 0;
    if (key === 0) continue;
    const print = prints[i] ?? 0;
    const at = probe(toKeys, toPrints, key - 1, byPrint ? print : undefined);
    toKeys[at] = key;
    toPrints[at] = print;
  }
  return [toKeys, toPrints];
}

/**
 * A `CodeAssigner` for a record of a whole session (a million spans), in memory that does not hold the
 * anchors: a block whose code is its own 10-character code (nearly all) is kept as two numbers in a flat
 * table — the code's 50 bits and 52 further bits of sha256(blockId), which tell two blocks sharing a code
 * apart (a wrong "same block" needs a 102-bit collision) — and only the others (12-character codes,
 * codes from earlier records that are not their block's own) as strings. Hands out exactly the codes a
 * `CodeAssigner` given the same pairs and calls would.
 */
export class CompactCodeAssigner {
  /** Code bits + 1 by slot (0: empty), linear probing on the bits' low part. */
  #keys: Float64Array = new Float64Array(1 << 12);
  #prints: Float64Array = new Float64Array(1 << 12);
  #used = 0;
  readonly #byBlock = new Map<string, string>();
  readonly #byCode = new Map<string, string>();

  /** `expected`: how many blocks the table is sized for up front (a seed index's span count), so it is not grown and copied. */
  constructor(existing: Iterable<[string, string]> = [], expected = 0) {
    const size = tableSize(expected, 1 << 12);
    if (size > this.#keys.length) {
      this.#keys = new Float64Array(size);
      this.#prints = new Float64Array(size);
    }
    for (const [blockId, code] of existing) this.keep(blockId, code);
  }

  /** The slot holding `bits`, or the empty slot where it would go. */
  #slot(bits: number): number {
    return probe(this.#keys, this.#prints, bits, undefined);
  }

  #insert(bits: number, print: number): void {
    // At most 3/4 full: a million spans fit 2M slots (32 MB), not 4M.
    if ((this.#used + 1) * 4 > this.#keys.length * 3) [this.#keys, this.#prints] = doubled(this.#keys, this.#prints, false);
    const at = this.#slot(bits);
    this.#keys[at] = bits + 1;
    this.#prints[at] = print;
    this.#used += 1;
  }

  /** The print of the block holding the 10-character code `bits`, or -1 when the table has none. */
  #holder(bits: number): number {
    const at = this.#slot(bits);
    return (this.#keys[at] ?? 0) === 0 ? -1 : (this.#prints[at] ?? 0);
  }

  /** Take an existing record's pair (a CodeAssigner's constructor rule: a block or code already held is skipped). */
  keep(blockId: string, code: string): void {
    if (this.#byBlock.has(blockId) || this.#byCode.has(code)) return;
    const hex = hash("sha256", blockId, "hex");
    const bits = digestBits(hex);
    const print = digestPrint(hex);
    if (this.#holder(bits) === print) return; // the block holds its own code already
    const held = codeBits(code);
    if (held >= 0 && this.#holder(held) >= 0) return; // the code is held
    if (held === bits) this.#insert(bits, print);
    else {
      this.#byBlock.set(blockId, code);
      this.#byCode.set(code, blockId);
    }
  }

  /** The code `blockId` already holds (from `keep` or an earlier `assign`), or undefined: nothing is handed out. */
  codeOf(blockId: string): string | undefined {
    const known = this.#byBlock.get(blockId);
    if (known !== undefined) return known;
    const hex = hash("sha256", blockId, "hex");
    return this.#holder(digestBits(hex)) === digestPrint(hex) ? codeOfDigest(hex, 10) : undefined;
  }

  /** Whether some block holds `code`. */
  holds(code: string): boolean {
    if (this.#byCode.has(code)) return true;
    const bits = codeBits(code);
    return bits >= 0 && this.#holder(bits) >= 0;
  }

  /** The block holding `code` when it is kept as a string (a 12-character code, or one not its block's own), else undefined. */
  holderOf(code: string): string | undefined {
    return this.#byCode.get(code);
  }

  assign(blockId: string): string {
    const known = this.#byBlock.get(blockId);
    if (known !== undefined) return known;
    const hex = hash("sha256", blockId, "hex");
    const bits = digestBits(hex);
    const print = digestPrint(hex);
    const holder = this.#holder(bits);
    const code = codeOfDigest(hex, 10);
    if (holder === print) return code;
    if (holder < 0 && !this.#byCode.has(code)) {
      this.#insert(bits, print);
      return code;
    }
    const longer = codeOfDigest(hex, 12);
    const other = this.#byCode.get(longer);
    if (other !== undefined) throw new CodeCollisionError(blockId, other, longer);
    this.#byBlock.set(blockId, longer);
    this.#byCode.set(longer, blockId);
    return longer;
  }
}

/**
 * A set of block ids in memory that does not hold them (a seed index's million anchors): each is kept as
 * two numbers of sha256(blockId) — the 50 bits its 10-character code spells and 52 further bits — so a
 * block taken for another needs a 102-bit collision, the trust `CompactCodeAssigner` already places in them.
 */
export class CompactBlockSet {
  /** Code bits + 1 by slot (0: empty), linear probing on the bits' low part; blocks sharing a code take further slots. */
  #keys: Float64Array;
  #prints: Float64Array;
  #size = 0;

  /** `expected`: how many blocks the table is sized for up front, so it is not grown and copied. */
  constructor(expected = 0) {
    const size = tableSize(expected, 1 << 10);
    this.#keys = new Float64Array(size);
    this.#prints = new Float64Array(size);
  }

  get size(): number {
    return this.#size;
  }

  /** The slot holding the block (bits, print), or the empty slot where it would go. */
  #slot(bits: number, print: number): number {
    return probe(this.#keys, this.#prints, bits, print);
  }

  /** Adds `blockId`; true when it was not there yet. */
  add(blockId: string): boolean {
    const hex = hash("sha256", blockId, "hex");
    const bits = digestBits(hex);
    const print = digestPrint(hex);
    let at = this.#slot(bits, print);
    if ((this.#keys[at] ?? 0) !== 0) return false;
    // At most 3/4 full: a million blocks fit 2M slots (32 MB).
    if ((this.#size + 1) * 4 > this.#keys.length * 3) {
      [this.#keys, this.#prints] = doubled(this.#keys, this.#prints, true);
      at = this.#slot(bits, print);
    }
    this.#keys[at] = bits + 1;
    this.#prints[at] = print;
    this.#size += 1;
    return true;
  }

  has(blockId: string): boolean {
    if (this.#size === 0) return false;
    const hex = hash("sha256", blockId, "hex");
    return (this.#keys[this.#slot(digestBits(hex), digestPrint(hex))] ?? 0) !== 0;
  }
}
