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
  // Base32 is a prefix stream: 12 characters need 60 bits, so the first 16 hex digits (8 bytes) of the
  // digest suffice. The digest is taken as hex (a string result costs a third of a Buffer's) and its
  // digits read in place (no slices, no parseInt): a record from scratch asks this of every span.
  const hex = hash("sha256", blockId, "hex");
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
