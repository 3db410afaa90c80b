// The interner's strings and order come from its pool of units, not from kept strings: they must equal
// the strings sliced from the source and `<` on them, surrogates and prefixes included.
import { describe, expect, it } from "vitest";
import { hashRange, hashUnits, RangeInterner } from "../../src/seed/range-interner.js";

describe("RangeInterner", () => {
  it("finds repeats by range, makes each string from its pool, and orders ids as `<` orders strings", () => {
    const words = ["beta", "alpha", "alphabet", "Alpha", "\ud83d\ude00x", "\ud83dlone", "é", "z", "", "alpha"];
    const source = words.join(" ");
    const interner = new RangeInterner();
    const ids: number[] = [];
    let at = 0;
    for (const word of words) {
      const hash = hashRange(source, at, at + word.length);
      const found = interner.find(source, at, at + word.length, hash);
      ids.push(found >= 0 ? found : interner.add(source, at, at + word.length, hash, -1 - found));
      at += word.length + 1;
    }
    expect(ids[9]).toBe(ids[1]);
    expect(interner.size).toBe(9);
    for (let i = 0; i < words.length; i++) expect(interner.text(ids[i] as number)).toBe(words[i]);
    for (let i = 0; i < words.length; i++) {
      for (let j = 0; j < words.length; j++) {
        const a = words[i] as string;
        const b = words[j] as string;
        expect(Math.sign(interner.compare(ids[i] as number, ids[j] as number)), `${a} vs ${b}`).toBe(a < b ? -1 : a > b ? 1 : 0);
      }
    }
  });

  it("keeps finding every string across rehashes", () => {
    const source = Array.from({ length: 5000 }, (_, i) => `tok${String(i)}`).join(" ");
    const interner = new RangeInterner();
    const ranges: [number, number][] = [];
    for (let start = 0; start < source.length; ) {
      let end = source.indexOf(" ", start);
      if (end < 0) end = source.length;
      ranges.push([start, end]);
      start = end + 1;
    }
    for (const [s, e] of ranges) {
      const hash = hashRange(source, s, e);
      interner.add(source, s, e, hash, -1 - interner.find(source, s, e, hash));
    }
    ranges.forEach(([s, e], id) => expect(interner.find(source, s, e, hashRange(source, s, e))).toBe(id));
    expect(interner.text(4999)).toBe("tok4999");
  });

  it("finds a range of units as it finds the same range of text, and adds it as the same string", () => {
    const source = "alpha beta \ud83d\ude00x alpha gamma beta";
    const units = new Uint16Array(source.length);
    for (let i = 0; i < source.length; i++) units[i] = source.charCodeAt(i);
    const byText = new RangeInterner();
    const byUnits = new RangeInterner();
    const ranges = new Int32Array(3 * 6);
    let n = 0;
    for (let start = 0; start < source.length; ) {
      let end = source.indexOf(" ", start);
      if (end < 0) end = source.length;
      expect(hashUnits(units, start, end)).toBe(hashRange(source, start, end));
      ranges.set([start, end, hashRange(source, start, end)], n);
      n += 3;
      start = end + 1;
    }
    // warming the slots changes nothing a lookup returns
    byUnits.warm(ranges, 0, n);
    for (let at = 0; at < n; at += 3) {
      const [start, end, hash] = [ranges[at] as number, ranges[at + 1] as number, ranges[at + 2] as number];
      const a = byText.find(source, start, end, hash);
      const b = byUnits.findUnits(units, start, end, hash);
      expect(b).toBe(a);
      const id = a >= 0 ? a : byText.add(source, start, end, hash, -1 - a);
      expect(b >= 0 ? b : byUnits.addUnits(units, start, end, hash, -1 - b)).toBe(id);
      expect(byUnits.text(id)).toBe(source.slice(start, end));
      expect(byUnits.lengthOf(id)).toBe(end - start);
      expect(byUnits.units().subarray(byUnits.start(id), byUnits.start(id) + (end - start))).toEqual(units.subarray(start, end));
    }
    expect(byUnits.size).toBe(4);
  });
});
