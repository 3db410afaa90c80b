// The fold codes of an inventory's items, as `CodeAssigner` hands them out in item order, without a map
// entry per anchor: on a large session (a million anchors) the assigner's two maps and a code string per
// item were the largest thing the inventory held. What each item gets is kept as one byte (none, the
// 10-character code, the 12-character one, a code from the seed index); the code is made again when
// the item is (a sha256 of its anchor).
import { hash } from "node:crypto";
import { CodeCollisionError, codeFor } from "@context-fold/seed-index-format";

/**
 * Codes handed out before the inventory (a seed index's), as a `CodeAssigner`'s constructor keeps them:
 * what a block already holds, and whether a code is held. `CompactCodeAssigner` is one that keeps a
 * million of them without their anchors; pairs given as they are go into `KnownCodePairs`.
 */
export interface KnownCodes {
  /** The code `blockId` already holds, or undefined. */
  codeOf(blockId: string): string | undefined;
  /** Whether some block holds `code`. */
  holds(code: string): boolean;
  /** The block holding `code`, when it is told (always for a 12-character code). */
  holderOf(code: string): string | undefined;
}

/** Known codes from pairs, by a `CodeAssigner`'s constructor rule: a block id or code met twice keeps its first pairing. */
export class KnownCodePairs implements KnownCodes {
  readonly #byBlock = new Map<string, string>();
  readonly #byCode = new Map<string, string>();

  constructor(pairs: Iterable<[string, string]>) {
    for (const [blockId, code] of pairs) {
      if (this.#byBlock.has(blockId) || this.#byCode.has(code)) continue;
      this.#byBlock.set(blockId, code);
      this.#byCode.set(code, blockId);
    }
  }

  get empty(): boolean {
    return this.#byBlock.size === 0;
  }

  codeOf(blockId: string): string | undefined {
    return this.#byBlock.get(blockId);
  }

  holds(code: string): boolean {
    return this.#byCode.has(code);
  }

  holderOf(code: string): string | undefined {
    return this.#byCode.get(code);
  }
}

/** `pairs` as known codes: pairs are kept as a `CodeAssigner` keeps them; known codes are taken as they are. */
export function knownCodes(pairs: Iterable<[string, string]> | KnownCodes): KnownCodes & { readonly empty?: boolean } {
  return "codeOf" in pairs ? pairs : new KnownCodePairs(pairs);
}

/** How an item's code is made (0: it has none). */
const SHORT = 1;
const LONG = 2;
const KNOWN = 3;

/** The 50 bits the 10-character code of `blockId` spells (base32 of sha256's first bits), as a number: equal codes, equal numbers. */
function shortCodeValue(blockId: string): number {
  const hex = hash("sha256", blockId, "hex");
  return Number.parseInt(hex.slice(0, 8), 16) * 262144 + (Number.parseInt(hex.slice(8, 16), 16) >>> 14);
}

export class ItemCodes {
  private constructor(
    private readonly how: Uint8Array,
    private readonly known: KnownCodes,
  ) {}

  /** The code of the item at `slot` (its anchor given again), or undefined when it has none. */
  code(slot: number, anchor: string): string | undefined {
    switch (this.how[slot]) {
      case SHORT:
        return codeFor(anchor, 10);
      case LONG:
        return codeFor(anchor, 12);
      case KNOWN:
        return this.known.codeOf(anchor);
      default:
        return undefined;
    }
  }

  /**
   * The codes `new CodeAssigner(existing)` would give the anchors of `slots` (item slots, in item order)
   * assigned one after another: a block id keeps a code it already has; a new one gets its 10-character
   * code unless an earlier different block id (or an existing code) holds it, then its 12-character code
   * (CodeCollisionError when that is held too). Decided by sorting the 10-character codes as numbers.
   */
  static assign(count: number, slots: Int32Array, anchorAt: (slot: number) => string, existing: Iterable<[string, string]> | KnownCodes): ItemCodes {
    const known = knownCodes(existing);
    // Pairs given as they are and none of them: no code is asked of the known ones.
    const none = known.empty === true;
    const how = new Uint8Array(count);
    const m = slots.length;
    const values = new Float64Array(m);
    let fresh = 0;
    const order = new Uint32Array(m);
    for (let k = 0; k < m; k++) {
      const slot = slots[k] as number;
      const anchor = anchorAt(slot);
      if (!none && known.codeOf(anchor) !== undefined) {
        how[slot] = KNOWN;
        continue;
      }
      values[k] = shortCodeValue(anchor);
      order[fresh++] = k;
    }
    const sorted = order.subarray(0, fresh).sort((a, b) => (values[a] as number) - (values[b] as number) || a - b);
    const longs: number[] = [];
    for (let g = 0; g < sorted.length; ) {
      let end = g + 1;
      while (end < sorted.length && values[sorted[end] as number] === values[sorted[g] as number]) end++;
      const first = slots[sorted[g] as number] as number;
      const owner = anchorAt(first);
      // An existing code may be this 10-character code: then no anchor of the group gets it.
      const held = !none && known.holds(codeFor(owner, 10));
      for (let j = g; j < end; j++) {
        const k = sorted[j] as number;
        const slot = slots[k] as number;
        if (!held && (j === g || anchorAt(slot) === owner)) how[slot] = SHORT;
        else {
          how[slot] = LONG;
          longs.push(k);
        }
      }
      g = end;
    }
    // The 12-character codes in assignment order: one held by another block id is the assigner's error.
    longs.sort((a, b) => a - b);
    const longBy = new Map<string, string>();
    const longBlocks = new Set<string>();
    for (const k of longs) {
      const anchor = anchorAt(slots[k] as number);
      if (longBlocks.has(anchor)) continue;
      const code = codeFor(anchor, 12);
      const other = (none ? undefined : known.holderOf(code)) ?? longBy.get(code);
      if (other !== undefined) throw new CodeCollisionError(anchor, other, code);
      longBy.set(code, anchor);
      longBlocks.add(anchor);
    }
    return new ItemCodes(how, known);
  }
}
