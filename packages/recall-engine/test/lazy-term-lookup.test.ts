// Terms read from a cache stay one joined string, and a term table and its prefix buckets are built only
// once enough lookups ask for them; what answers before must give exactly what the built structures give.
import { describe, expect, it } from "vitest";
import { TermIndex } from "@context-fold/recall-engine";
import { PackedTerms } from "../src/packed-terms.js";
import { TermPrefixes } from "../src/term-prefixes.js";
import { TermTable } from "../src/term-table.js";
import { termHash } from "../src/tokenizer.js";

const texts = [
  "deploy the refresh-token rotation to staging",
  "needle-3-5f49cd planted beside needle-3-aa11bb and needle-30",
  "refresh refreshed refreshing refr ref",
  "ünïcode straße Ĳssel ﬁle and sha256 deadbeefcafe",
  "",
  "compaction compactions compacted compact",
];

/** An index as a cache load gives it: serialized, then read back (its table not yet built). */
function loaded(): TermIndex {
  const built = new TermIndex();
  built.addDocuments(0, texts);
  return TermIndex.deserialize(built.serialize({ any: "meta" }));
}

const probes = ["refresh", "Refresh", "REFRESH-TOKEN", "needle-3-5f49cd", "straße", "STRASSE", "ünïcode", "absent", "", "compaction", "sha", "256", "deadbeefcafe"];

describe("term lookups before the table is built", () => {
  it("a scanned lookup gives the id the hash table gives, capitals and absent terms included", () => {
    const terms = loaded().termTexts();
    const lazy = new TermTable([...terms]);
    const built = new TermTable([...terms]);
    // A `find` builds the table at once: every later `get` goes through it.
    built.find("x", 0, 1, termHash("x"));
    for (const probe of [...probes, ...terms]) expect(lazy.get(probe), probe).toBe(built.get(probe));
  });

  it("past the scans, and after terms are added, lookups still agree", () => {
    const terms = loaded().termTexts();
    const lazy = new TermTable([...terms]);
    for (let k = 0; k < 40; k++) expect(lazy.get(terms[k % terms.length] as string)).toBe(k % terms.length);
    const fresh = new TermTable([...terms]);
    const id = fresh.add("brandnew", 0, 8, termHash("brandnew"));
    expect(id).toBe(terms.length);
    expect(fresh.get("brandnew")).toBe(id);
    expect(fresh.get("refresh")).toBe(terms.indexOf("refresh"));
  });

  it("a loaded index answers every term by the same id as the index it was saved from", () => {
    const built = new TermIndex();
    built.addDocuments(0, texts);
    const back = loaded();
    for (const probe of [...probes, ...built.termTexts()]) expect(back.termId(probe), probe).toBe(built.termId(probe));
    // Adding documents builds the table of the loaded index and keeps ids in step.
    back.addDocuments(back.docCount, ["a brandnew refresh"]);
    built.addDocuments(built.docCount, ["a brandnew refresh"]);
    expect(back.termTexts()).toEqual(built.termTexts());
    expect(back.termId("brandnew")).toBe(built.termId("brandnew"));
  });

  it("a scanned prefix lookup gives the bucketed ids, in id order, limit and minimum length kept", () => {
    const terms = loaded().termTexts();
    const prefixes = ["ref", "refr", "refresh", "nee", "needle-3", "needle-3-5", "com", "compact", "ün", "xyz", "de", "sha"];
    for (const limit of [1, 2, 50]) {
      const scanned = new TermPrefixes(terms);
      const bucketed = new TermPrefixes(terms);
      // Spend the bucketed one's scans, so it answers from its buckets.
      for (let k = 0; k < 8; k++) bucketed.longerThan("zzz", 1);
      for (const prefix of prefixes) expect(scanned.longerThan(prefix, limit), `${prefix} / ${String(limit)}`).toEqual(bucketed.longerThan(prefix, limit));
    }
    const found = new TermPrefixes(terms).longerThan("refr", 50).map((id) => terms[id]);
    expect(found).toEqual(terms.filter((t) => t.length > 4 && t.startsWith("refr")));
    expect(found).toEqual(expect.arrayContaining(["refresh-token", "refresh", "refreshed", "refreshing"]));
  });

  it("a loaded index answers prefix lookups from its packed terms as the built index does, past the packed lookups too", () => {
    const built = new TermIndex();
    built.addDocuments(0, texts);
    const back = loaded();
    const prefixes = ["ref", "refr", "refresh", "nee", "needle-3", "needle-3-5", "com", "compact", "ün", "xyz", "de", "sha", "a\nb", "Refr"];
    for (let round = 0; round < 4; round++) {
      for (const prefix of prefixes) for (const limit of [1, 3, 50]) expect(back.termsWithPrefix(prefix, limit), `${prefix} / ${String(limit)}`).toEqual(built.termsWithPrefix(prefix, limit));
      for (const probe of probes) expect(back.termId(probe), probe).toBe(built.termId(probe));
      expect(back.termCount).toBe(built.termCount);
    }
  });

  it("packed terms: whole-term matches only, empty terms, newlines in a probe, counts checked", () => {
    const packed = new PackedTerms(["ab", "", "abc", "b", "abcd"].join("\n"), 5);
    expect(["ab", "", "abc", "b", "abcd", "a", "bc", "x", "ab\n", "\nabc"].map((t) => packed.indexOf(t))).toEqual([0, 1, 2, 3, 4, -1, -1, -1, -1, -1]);
    expect(packed.withPrefix("ab", 10)).toEqual([2, 4]);
    expect(packed.withPrefix("ab", 1)).toEqual([2]);
    expect(packed.withPrefix("abcd", 10)).toEqual([]);
    expect(packed.withPrefix("b\na", 10)).toEqual([]);
    expect(packed.list()).toEqual(["ab", "", "abc", "b", "abcd"]);
    expect(new PackedTerms("", 0).indexOf("")).toBe(-1);
    expect(new PackedTerms("", 1).indexOf("")).toBe(0);
    expect(() => new PackedTerms("a\nb", 3)).toThrow(RangeError);
    expect(() => new PackedTerms("a\nb\nc", 2)).toThrow(RangeError);
    expect(() => new PackedTerms("a", 0)).toThrow(RangeError);
  });
});
