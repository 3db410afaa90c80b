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

/** First 10 (or 12) characters of base32(sha256(blockId)). */
export function codeFor(blockId: string, length: 10 | 12 = 10): string {
  // Base32 is a prefix stream: 12 characters need 60 bits, so the first 16 hex digits (8 bytes) of the
  // digest suffice. The digest is taken as hex: a string result costs a third of a Buffer's, and a
  // record from scratch asks this of every span.
  const hex = hash("sha256", blockId, "hex");
  const high = Number.parseInt(hex.slice(0, 8), 16);
  const low = Number.parseInt(hex.slice(8, 16), 16);
  let out = "";
  for (let i = 0; i < length; i++) out += ALPHABET[fiveBits(high, low, i * 5)];
  return out;
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
