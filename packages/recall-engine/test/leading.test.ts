import { describe, expect, it } from "vitest";
import { leading } from "../src/sessions.js";

describe("leading (a page's hits picked from a history's)", () => {
  it("gives the first n of a full sort, for any n, with ties broken by the order's later keys", () => {
    // Scores from a small set, so many tie and the session and block numbers decide.
    let seed = 7;
    const next = (): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed;
    };
    const items = Array.from({ length: 5000 }, (_, k) => ({ s: next() % 40, doc: k, score: (next() % 13) / 4 }));
    const order = (a: (typeof items)[number], b: (typeof items)[number]): number => b.score - a.score || a.s - b.s || b.doc - a.doc;
    const sorted = [...items].sort(order);
    for (const n of [1, 10, 20, 100, 624, 625, 5000, 6000]) expect(leading(items, n, order), String(n)).toEqual(sorted.slice(0, n));
    expect(items.map((i) => i.doc)).toEqual(Array.from({ length: 5000 }, (_, k) => k));
  });
});
