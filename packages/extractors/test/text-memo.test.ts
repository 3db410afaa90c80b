import { describe, expect, it } from "vitest";
import { memoizeText, statementKey } from "@context-fold/extractors";

describe("memoizeText", () => {
  it("answers as the function does, computing each text once while it is remembered", () => {
    const calls: string[] = [];
    const upper = memoizeText((t) => {
      calls.push(t);
      return t.toUpperCase();
    }, 4);
    expect(upper("a")).toBe("A");
    expect(upper("a")).toBe("A");
    expect(upper("b")).toBe("B");
    expect(calls).toEqual(["a", "b"]);
  });

  it("stays bounded: past its capacity the texts not asked again are forgotten and computed anew", () => {
    let calls = 0;
    const len = memoizeText((t) => {
      calls++;
      return t.length;
    }, 2);
    for (const t of ["a", "bb", "ccc", "dddd", "eeeee", "ffffff"]) len(t);
    expect(calls).toBe(6);
    // Two generations of two: "a" is long gone, "ffffff" is still held.
    expect(len("ffffff")).toBe(6);
    expect(calls).toBe(6);
    expect(len("a")).toBe(1);
    expect(calls).toBe(7);
  });

  it("statementKey gives the same key remembered or not", () => {
    const text = "Use pnpm, NOT npm! (really)";
    expect(statementKey(text)).toBe("use pnpm not npm really");
    expect(statementKey(`${text}`)).toBe(statementKey(text));
  });
});
