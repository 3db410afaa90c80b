// The scanners read a text's units from a typed array: every unit as `charCodeAt` gives it.
import { describe, expect, it } from "vitest";
import { TextUnits } from "../../src/lexicon/text-units.js";

function expectUnits(units: TextUnits, text: string): void {
  const array = units.load(text);
  for (let i = 0; i < text.length; i++) if (array[i] !== text.charCodeAt(i)) expect.unreachable(`unit ${String(i)} of a ${String(text.length)}-unit text`);
}

describe("TextUnits", () => {
  it("copies one-byte, two-byte and lone-surrogate texts unit for unit, growing and reusing its array", () => {
    const units = new TextUnits();
    expectUnits(units, "plain ascii");
    expectUnits(units, "é ü \u4e2d \ud83d\ude00 \ud83d alone \ude00 end");
    expectUnits(units, "x".repeat(100_000) + "\u4e2d");
    expectUnits(units, "short again");
  });

  it("gives a text over the kept size an array of its own", () => {
    const units = new TextUnits();
    const small = units.load("abc");
    const big = "ab\u4e2d".repeat(400_000);
    const array = units.load(big);
    expect(array).not.toBe(small);
    expectUnits(units, big);
    expect(units.load("abc")).toBe(small);
  });
});
