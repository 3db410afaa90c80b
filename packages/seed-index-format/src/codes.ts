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

/** First 10 (or 12) characters of base32(sha256(blockId)). */
export function codeFor(blockId: string, length: 10 | 12 = 10): string {
  // Base32 is a prefix stream: 12 characters need 60 bits, so the first 8 bytes of the digest suffice.
  return base32Lower(hash("sha256", blockId, "buffer").subarray(0, 8)).slice(0, length);
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
