// The index build splits each distinct run of text once and repeats its terms for every later
// occurrence of the same run: the postings must be exactly what tokenizing every document on its own
// gives, whatever repeats, in whatever segments the documents arrive.
import { describe, expect, it } from "vitest";
import { TermIndex, tokenize } from "@context-fold/recall-engine";

/** term → [doc, tf, …] from tokenizing each document by itself (the reference). */
function expected(texts: readonly string[]): Map<string, number[]> {
  const out = new Map<string, number[]>();
  texts.forEach((text, doc) => {
    const tf = new Map<string, number>();
    tokenize(text, (term) => tf.set(term, (tf.get(term) ?? 0) + 1));
    for (const [term, count] of tf) {
      let list = out.get(term);
      if (list === undefined) out.set(term, (list = []));
      list.push(doc, count);
    }
  });
  return out;
}

function postingsOf(index: TermIndex, term: string): number[] {
  return index.postingLists(term).flatMap((list) => Array.from(list));
}

function checkAgainstReference(index: TermIndex, texts: readonly string[]): void {
  const want = expected(texts);
  expect(index.termCount).toBeGreaterThanOrEqual(want.size);
  for (const [term, list] of want) expect(postingsOf(index, term), term).toEqual(list);
  // No term beyond the reference's holds postings.
  let held = 0;
  for (const term of index.termTexts()) if (index.postingLists(term).length > 0) held++;
  expect(held).toBe(want.size);
}

// Runs that repeat exactly, repeat with other capitals (different terms: `FooBar` splits, `foobar`
// does not), repeat with joiners trimmed off, or are too long to be remembered; non-ASCII runs whose
// lowercase changes length; CJK runs (bigrams repeat within one run).
const long = `https://example.test/${"segment-".repeat(12)}end?id=4b1e9d07`;
const texts = [
  "FooBar foobar FOOBAR fooBar FooBar src/db/pool.ts src/db/pool.ts, (src/db/pool.ts) --flag --flag",
  `sha256 sha256 5f49cd NEEDLE-3-5f49cd needle-3-5f49cd ${long} ${long}.`,
  "İstanbul İSTANBUL istanbul straße STRASSE Straße ünïcode ÜNÏCODE",
  "호가잔량비율 호가잔량비율 가잔가잔가잔 東京都東京都",
  "",
  "drizzle-orm.config.ts drizzle-orm@0.30 XMLHttpRequest xml_http_request XMLHttpRequest.send",
  "FooBar src/db/pool.ts sha256 호가잔량비율 foobar İstanbul drizzle-orm.config.ts",
  `${"word ".repeat(50)}${"Word ".repeat(3)}${long}`,
];

describe("segment build with repeated runs", () => {
  it("one segment holds what tokenizing each document gives", () => {
    const index = new TermIndex();
    index.addDocuments(0, texts);
    checkAgainstReference(index, texts);
  });

  it("documents added one by one (a segment each, merged) hold the same", () => {
    const index = new TermIndex();
    texts.forEach((text, doc) => index.addDocument(doc, text));
    checkAgainstReference(index, texts);
  });

  it("appends over a large term table (the segment-local lookup) hold the same", () => {
    // 70 000 distinct terms first: past the size where a segment answers repeats from its own table.
    const vocabulary = Array.from({ length: 700 }, (_, d) => Array.from({ length: 100 }, (_, k) => `v${String(d)}x${String(k)}`).join(" "));
    const all = [...vocabulary, ...texts, ...texts];
    const index = new TermIndex();
    index.addDocuments(0, vocabulary);
    index.addDocuments(vocabulary.length, texts);
    index.addDocuments(vocabulary.length + texts.length, texts);
    checkAgainstReference(index, all);
  });
});

describe("segments built by one builder kept across appends", () => {
  it("an index grown by many appends saves the same bytes as one built at once, and answers the same", () => {
    // Varied documents: repeats of earlier runs, new terms, capitals, joiners, CJK, long runs.
    const docs = Array.from({ length: 240 }, (_, d) => `${texts[d % texts.length] ?? ""} item-${String(d % 37)} Row${String(d)} src/m${String(d % 11)}/f.ts ${"x".repeat(d % 5)}`);
    const whole = new TermIndex();
    whole.addDocuments(0, docs);
    const grown = new TermIndex();
    // Uneven appends (1 to 23 documents): segments merge along the way.
    for (let at = 0, k = 0; at < docs.length; k++) {
      const count = Math.min(docs.length - at, 1 + ((k * 7) % 23));
      grown.addDocuments(at, docs.slice(at, at + count));
      at += count;
    }
    expect(grown.serialize({})).toEqual(whole.serialize({}));
    checkAgainstReference(grown, docs);
  });

  it("past 8 segments only the smallest adjacent appended pair merges: older appended segments are not copied again, and no fold into a base four times larger", () => {
    const doc = (d: number): string => `common word${String(d)} item-${String(d % 7)}`;
    const index = new TermIndex();
    index.addDocuments(0, Array.from({ length: 400 }, (_, d) => doc(d)));
    index.serialize({});
    // One document per append, all the same size: 56 appends leave seven appended segments of 8.
    for (let d = 400; d < 456; d++) index.addDocument(d, doc(d));
    const before = index.postingLists("common");
    expect(before).toHaveLength(8);
    for (let d = 456; d < 464; d++) index.addDocument(d, doc(d));
    const after = index.postingLists("common");
    expect(after).toHaveLength(8);
    // The first six appended segments are the same arrays: only the newest were merged.
    for (let k = 1; k <= 6; k++) expect((after[k] as Uint32Array).buffer, `segment ${String(k)}`).toBe((before[k] as Uint32Array).buffer);
    // Never folded into the base: what was added still saves as a tail record.
    expect(index.canSerializeTail).toBe(true);
    const whole = new TermIndex();
    whole.addDocuments(0, Array.from({ length: 464 }, (_, d) => doc(d)));
    expect(index.serialize({}).equals(whole.serialize({}))).toBe(true);
  });
});
