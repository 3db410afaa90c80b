// A history segment against the one-session term index it is written from: the same term ids, prefix
// expansions (oldest first, capped), postings and document lengths, read in place; a segment extended by
// appended documents equals one written whole; bytes that do not read are refused naming the file.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "@context-fold/test-support";
import { CorruptIndexError } from "../src/errors.js";
import { decodeSegment, encodePostings, encodeSegment, extendTerm, SegmentReader, type SegmentTerm } from "../src/history-segment.js";
import { EMPTY } from "../src/segments.js";
import { TermIndex } from "../src/term-index.js";

const TEXTS = [
  "refresh the token before the checksum drift check",
  "refreshToken rotation failed: src/ledger/reader.ts line 40",
  "",
  "über straße 잔량비율 and the refreshing refreshments",
  ...Array.from({ length: 60 }, (_, k) => `term${String(k)} shared words alpha beta ${String(k * 7919)} refresh${String(k)}`),
];

function segmentTerms(index: TermIndex, from = 0): SegmentTerm[] {
  return index.termTexts().map((term, id) => ({ key: Buffer.from(term, "utf8"), id, ...encodePostings(index.postingListsOf(id), from) }));
}

function lengths(index: TermIndex): number[] {
  return Array.from({ length: index.docCount }, (_, d) => index.docLength(d));
}

function flat(lists: readonly ArrayLike<number>[]): number[] {
  return lists.flatMap((l) => Array.from(l));
}

function sameAs(reader: SegmentReader, index: TermIndex): void {
  expect(reader.docCount).toBe(index.docCount);
  expect(reader.averageLength).toBe(index.averageLength);
  for (let d = 0; d < index.docCount; d++) expect(reader.docLength(d)).toBe(index.docLength(d));
  for (const term of [...index.termTexts(), "absent", "refres", "zzzz"]) {
    expect(reader.termId(term), term).toBe(index.termId(term));
    expect(flat(reader.postingLists(term)), term).toEqual(flat(index.postingLists(term)));
  }
  for (const prefix of ["ref", "refresh", "term", "übe", "alp", "zzz", "re"]) {
    for (const limit of [1, 5, 256]) expect(reader.termsWithPrefix(prefix, limit), `${prefix} ${String(limit)}`).toEqual(index.termsWithPrefix(prefix, limit));
  }
}

describe("history segment", () => {
  const dir = tempDir("history-seg-");

  it("answers what ranking asks as the term index it was written from does", () => {
    const index = new TermIndex();
    index.addDocuments(0, TEXTS);
    const path = join(dir, "whole.seg");
    writeFileSync(path, encodeSegment(segmentTerms(index), lengths(index)));
    const reader = SegmentReader.open(path);
    try {
      sameAs(reader, index);
    } finally {
      reader.close();
    }
  });

  it("extended by appended documents, equals the segment written whole", () => {
    const whole = new TermIndex();
    whole.addDocuments(0, TEXTS);
    const first = new TermIndex();
    first.addDocuments(0, TEXTS.slice(0, 30));
    const old = decodeSegment(encodeSegment(segmentTerms(first), lengths(first)), "first.seg");
    const part = new TermIndex([], EMPTY, new Array<number>(30).fill(0));
    part.addDocuments(30, TEXTS.slice(30));
    const byText = new Map(old.terms.map((t) => [t.key.toString("utf8"), t]));
    let next = old.terms.length;
    part.termTexts().forEach((term, id) => {
      const had = byText.get(term);
      byText.set(term, had === undefined ? { key: Buffer.from(term, "utf8"), id: next++, ...encodePostings(part.postingListsOf(id), 0) } : extendTerm(had, part.postingListsOf(id)));
    });
    const grownLengths = [...old.lengths, ...Array.from({ length: TEXTS.length - 30 }, (_, k) => part.docLength(30 + k))];
    expect(encodeSegment([...byText.values()], grownLengths)).toEqual(encodeSegment(segmentTerms(whole), lengths(whole)));
  });

  it("refuses bytes it cannot read, naming the file", () => {
    const index = new TermIndex();
    index.addDocuments(0, TEXTS);
    const bytes = encodeSegment(segmentTerms(index), lengths(index));
    const altered = Buffer.from(bytes);
    altered[altered.length - 40] = (altered[altered.length - 40] as number) ^ 1;
    expect(() => decodeSegment(altered, "s.seg")).toThrow(/s\.seg: segment checksum does not match/);
    const path = join(dir, "short.seg");
    writeFileSync(path, bytes.subarray(0, 40));
    expect(() => SegmentReader.open(path)).toThrow(CorruptIndexError);
    writeFileSync(path, "CFHSEG1\n");
    expect(() => SegmentReader.open(path)).toThrow(/short\.seg: not a history segment/);
    expect(readFileSync(path, "utf8")).toBe("CFHSEG1\n");
  });
});
