// Whether one whitespace-free stretch of a text holds every piece of a compound token (rank.ts
// `oneWordHolds`, a loose pieces match): read without copying each stretch out, the same answer as
// looking in each stretch for each piece.
import { describe, expect, it } from "vitest";
import { oneWordHolds } from "../src/rank.js";

/** The rule as stated: some stretch between spaces, tabs and line ends, longer than one character, includes every piece. */
function byStretch(text: string, pieces: readonly string[]): boolean {
  return text.split(/[ \n\t\r]/).some((word) => word.length > 1 && pieces.every((p) => word.includes(p)));
}

/** A deterministic stream of numbers in [0, 1) (a linear congruential generator). */
function numbers(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return x / 2 ** 32;
  };
}

describe("oneWordHolds", () => {
  it("finds the pieces in one stretch only: `pi-tui` in a path, not across words", () => {
    expect(oneWordHolds("see ../pi-mono/packages/tui/src for it", ["pi", "tui"])).toBe(true);
    expect(oneWordHolds("pi is not tui", ["pi", "tui"])).toBe(false);
    expect(oneWordHolds("tui\tpi", ["pi", "tui"])).toBe(false);
    // A piece whose first occurrence is in a stretch without the other, held together further on.
    expect(oneWordHolds("pi-x tui-y pi/tui", ["pi", "tui"])).toBe(true);
    expect(oneWordHolds("pi/tui", ["pi", "tui"])).toBe(true);
    expect(oneWordHolds("", ["pi", "tui"])).toBe(false);
  });

  it("answers as a search of each stretch does, over texts and pieces of a small alphabet", () => {
    const next = numbers(27);
    const letters = "ab \nc\t-";
    const pick = (n: number): string => Array.from({ length: n }, () => letters[Math.floor(next() * letters.length)]).join("");
    let held = 0;
    for (let k = 0; k < 20_000; k++) {
      const text = pick(Math.floor(next() * 40));
      const pieces = Array.from({ length: 1 + Math.floor(next() * 3) }, () => pick(1 + Math.floor(next() * 3)).replace(/[ \n\t]/g, "") || "a");
      const want = byStretch(text, pieces);
      if (want) held++;
      expect(oneWordHolds(text, pieces), JSON.stringify({ text, pieces })).toBe(want);
    }
    // Both answers came up often.
    expect(held).toBeGreaterThan(1_000);
    expect(held).toBeLessThan(19_000);
  });
});
