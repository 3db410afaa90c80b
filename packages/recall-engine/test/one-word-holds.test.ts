// Whether one whitespace-free stretch of a text holds every piece of a compound token (rank.ts
// `oneWordHolds`, a loose pieces match): read without copying each stretch out, the same answer as
// looking in each stretch for each piece.
import { describe, expect, it } from "vitest";
import { oneWordHolds } from "../src/rank.js";

/** The rule as stated: some stretch between spaces, tabs and line ends, longer than one character, includes every piece. */
function byStretch(text: string, pieces: readonly string[]): boolean {
  return text.split(/[ \n\t\r]/).some((word) => word.length > 1 && pieces.every((p) => word.includes(p)));
}

/** Every text of up to `most` characters of `letters`. */
function* textsOf(letters: readonly string[], most: number): Generator<string> {
  let level = [""];
  for (let n = 0; n <= most; n++) {
    yield* level;
    level = level.flatMap((text) => letters.map((c) => text + c));
  }
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

  it("answers as a search of each stretch does, for every short text of a small alphabet", () => {
    const pieceSets = [["a", "b"], ["ab", "b"], ["ba", "a"], ["aa", "b"], ["ab", "ba"], ["a", "bb", "ab"], ["b", "a-"]];
    let held = 0;
    let asked = 0;
    for (const text of textsOf(["a", "b", " ", "\n", "-"], 6)) {
      for (const pieces of pieceSets) {
        const want = byStretch(text, pieces);
        if (want) held++;
        asked++;
        // One expect per disagreement only (some 130,000 cases).
        if (oneWordHolds(text, pieces) !== want) expect({ text, pieces, holds: !want }).toEqual({ text, pieces, holds: want });
      }
    }
    // Both answers came up often.
    expect(held).toBeGreaterThan(asked / 20);
    expect(held).toBeLessThan(asked - asked / 20);
  });
});
