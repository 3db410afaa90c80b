// An inventory's fold codes without a map entry per anchor (item-codes.ts) must be exactly the codes
// CodeAssigner hands out in item order: repeated anchors, codes kept from the seed index, a 10-character
// code held by an existing code or by an earlier anchor (the later one gets 12 characters), and a
// 12-character code held too (the assigner's CodeCollisionError) — with the existing codes given as
// pairs and as a `CompactCodeAssigner`.
import { CodeAssigner, CodeCollisionError, codeFor, CompactCodeAssigner } from "@context-fold/seed-index-format";
import { describe, expect, it } from "vitest";
import { ItemCodes } from "../../src/inventory/item-codes.js";

/** Codes of `anchors` (one item each, undefined: no code asked) both ways. */
function both(anchors: readonly (string | undefined)[], existing: [string, string][]): { expected: (string | undefined)[]; got: (string | undefined)[] } {
  const assigner = new CodeAssigner(existing);
  const expected = anchors.map((a) => (a === undefined ? undefined : assigner.assign(a)));
  const slots = Int32Array.from(anchors.flatMap((a, i) => (a === undefined ? [] : [i])));
  const codes = ItemCodes.assign(anchors.length, slots, (slot) => anchors[slot] as string, existing);
  const got = anchors.map((a, i) => (a === undefined ? undefined : codes.code(i, a)));
  // The same codes when the existing ones come kept as numbers (what `inventory` passes for a large seed index).
  const compact = ItemCodes.assign(anchors.length, slots, (slot) => anchors[slot] as string, new CompactCodeAssigner(existing));
  expect(anchors.map((a, i) => (a === undefined ? undefined : compact.code(i, a)))).toEqual(got);
  return { expected, got };
}

/** A deterministic pseudo-random sequence (no Math.random: a failure must repeat). */
function lcg(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return x / 2 ** 32;
  };
}

describe("ItemCodes gives CodeAssigner's codes", () => {
  it("on plain anchors, repeats among them, and items without a code", () => {
    const anchors = ["r:a", undefined, "r:b", "a:resp:p0", "r:a", undefined, "r:c", "r:b"];
    const { expected, got } = both(anchors, []);
    expect(got).toEqual(expected);
    expect(new Set(got.filter((c) => c !== undefined).map((c) => c?.length))).toEqual(new Set([10]));
  });

  it("keeps codes from the seed index, and gives 12 characters where an existing code holds the 10", () => {
    const anchors = ["r:x", "r:y", "r:z", "r:y", "r:w", "r:x"];
    const existing: [string, string][] = [
      ["r:y", "kept000000"],
      ["r:other", codeFor("r:z", 10)], // r:z's 10-character code is taken
      ["r:dup", "kept000000"], // a code met twice keeps its first pairing
      ["r:y", "second0000"], // a block id met twice too
    ];
    const { expected, got } = both(anchors, existing);
    expect(got).toEqual(expected);
    expect(got[1]).toBe("kept000000");
    expect(got[2]).toBe(codeFor("r:z", 12));
  });

  it("an earlier anchor holding the 10-character code: the later one gets 12, its repeats too", () => {
    // No two anchors share a 10-character code by chance here; an existing code of another block id
    // equal to one anchor's makes that anchor take its 12-character code, as an earlier anchor would.
    const rand = lcg(7);
    const pool = Array.from({ length: 300 }, (_, i) => `r:call_${String(i)}`);
    const anchors = Array.from({ length: 2000 }, () => (rand() < 0.1 ? undefined : pool[Math.floor(rand() * pool.length)]));
    const existing: [string, string][] = pool.filter((_, i) => i % 17 === 0).map((a) => [`r:seed-${a}`, codeFor(a, 10)]);
    existing.push(["r:call_5", "fromseed00"]);
    const { expected, got } = both(anchors, existing);
    expect(got).toEqual(expected);
    expect(got.some((c) => c?.length === 12)).toBe(true);
    expect(got).toContain("fromseed00");
  });

  it("throws the assigner's CodeCollisionError when the 12-character code is held as well", () => {
    const existing: [string, string][] = [
      ["r:one", codeFor("r:two", 10)],
      ["r:three", codeFor("r:two", 12)],
    ];
    expect(() => new CodeAssigner(existing).assign("r:two")).toThrow(CodeCollisionError);
    expect(() => ItemCodes.assign(1, Int32Array.of(0), () => "r:two", existing)).toThrow(CodeCollisionError);
    expect(() => ItemCodes.assign(1, Int32Array.of(0), () => "r:two", new CompactCodeAssigner(existing))).toThrow(CodeCollisionError);
  });
});
