// A history segment against the one-session term index it is written from: the same term ids, prefix
// expansions (oldest first, capped), postings and document lengths, read in place; a segment extended by
// appended documents equals one written whole; bytes that do not read are refused naming the file.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "@context-fold/test-support";
import { CorruptIndexError } from "../src/errors.js";
import { decodeSegment, encodePostings, encodeSegment, type SegmentTerm } from "../src/history-segment.js";
import { SegmentParts } from "../src/history-segment-parts.js";
import { SegmentReader } from "../src/history-segment-reader.js";
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

function sameAs(reader: SegmentReader | SegmentParts, index: TermIndex): void {
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
  // A prefix's postings read ahead in one range (as ranking asks: the prefix's terms, then their postings) are the same lists.
  reader.close();
  for (const prefix of ["ref", "refresh", "term", "übe", "alp"]) {
    const ids = reader.termsWithPrefix(prefix, 256);
    for (const id of [...ids, reader.termId(prefix)]) if (id >= 0) expect(flat(reader.postingListsOf(id)), `${prefix} #${String(id)}`).toEqual(flat(index.postingListsOf(id)));
  }
}

/** Ids of many terms at once, as a growth asks them (their UTF-8 bytes, in byte order). */
function idsOf(reader: SegmentParts, terms: readonly string[]): Int32Array {
  const keys = terms.map((t) => Buffer.from(t, "utf8"));
  const order = Array.from(keys.keys()).sort((a, b) => Buffer.compare(keys[a] as Buffer, keys[b] as Buffer));
  return reader.termIds(keys, order);
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

  it("grown by parts over appended documents, answers as the segment written whole", () => {
    const whole = new TermIndex();
    whole.addDocuments(0, TEXTS);
    const first = new TermIndex();
    first.addDocuments(0, TEXTS.slice(0, 30));
    const paths = [join(dir, "grown.seg")];
    writeFileSync(paths[0] as string, encodeSegment(segmentTerms(first), lengths(first)));
    // Two growths: each part holds only its appended documents, a known term under its earlier id.
    for (const [from, to] of [[30, 31], [31, TEXTS.length]] as const) {
      const before = SegmentParts.open(paths);
      const part = new TermIndex([], EMPTY, new Array<number>(from).fill(0));
      part.addDocuments(from, TEXTS.slice(from, to));
      let next = before.termCount;
      const terms = part.termTexts().map((term, id) => {
        const had = before.termId(term);
        return { key: Buffer.from(term, "utf8"), id: had >= 0 ? had : next++, ...encodePostings(part.postingListsOf(id), 0) };
      });
      before.close();
      const path = join(dir, `grown.seg.${String(paths.length)}`);
      writeFileSync(path, encodeSegment(terms, Array.from({ length: to - from }, (_, k) => part.docLength(from + k)), from, next));
      paths.push(path);
    }
    const reader = SegmentParts.open(paths);
    try {
      expect(reader.termCount).toBe(whole.termCount);
      sameAs(reader, whole);
      // Many ids at once (a growth's lookup) equal one lookup per term, whatever the order of their units.
      for (const list of [[...whole.termTexts(), "absent", "zzzz", "\uE001", "😁"], whole.termTexts().filter((t) => !/[\uD800-\uFFFF]/.test(t)).concat(["absent"])]) {
        const ids = idsOf(reader, list);
        expect(Array.from(ids)).toEqual(list.map((t) => whole.termId(t)));
      }
    } finally {
      reader.close();
    }
    // A part that does not continue the one before (written after a rewrite) is refused.
    expect(() => SegmentParts.open([paths[0] as string, paths[2] as string])).toThrow(/grown\.seg\.2: begins at document 31/);
  });

  it("looks up many terms at once exactly, also where their UTF-16 order is not their UTF-8 byte order", () => {
    // "𝐀bc" (a surrogate pair) sorts before "ｆｕｌｌ" as a JS string, after it by UTF-8 bytes.
    const texts = ["abc", "ｆｕｌｌ", "𝐀bc", ...Array.from({ length: 70 }, (_, k) => `t${String(k).padStart(3, "0")}`)];
    const path = join(dir, "units.seg");
    writeFileSync(path, encodeSegment(texts.map((t, id) => ({ key: Buffer.from(t, "utf8"), id, ...encodePostings([Uint32Array.of(0, 1)], 0) })), [1]));
    const reader = SegmentParts.open([path]);
    try {
      const list = ["ｆｕｌｌ", "absent", "𝐀bc", "abc", "t069", "\uE001", "t000"];
      expect(Array.from(idsOf(reader, list))).toEqual([1, -1, 2, 0, 72, -1, 3]);
    } finally {
      reader.close();
    }
  });

  it("keeps the directory starts and lengths as u32 columns read in place: lengths past a byte and two, many blocks, and a start pointing past its range refused", () => {
    // Lengths that a varint would take one, two and three bytes for; enough terms for many directory blocks.
    const texts = [...TEXTS, Array.from({ length: 70_000 }, (_, k) => `w${String(k % 300)}`).join(" "), "x ".repeat(200)];
    const index = new TermIndex();
    index.addDocuments(0, texts);
    expect(index.termTexts().length).toBeGreaterThan(10 * 32);
    expect(Math.max(...lengths(index))).toBeGreaterThan(65_535);
    const bytes = encodeSegment(segmentTerms(index), lengths(index));
    const path = join(dir, "u32.seg");
    writeFileSync(path, bytes);
    const reader = SegmentReader.open(path);
    try {
      sameAs(reader, index);
    } finally {
      reader.close();
    }
    // The first directory start's first term made to end past the sparse section: refused on open, naming the file.
    const head = JSON.parse(bytes.subarray(12, 12 + bytes.readUInt32LE(8)).toString("utf8")) as { sparse: [number, number] };
    const altered = Buffer.from(bytes);
    altered.writeUInt32LE(head.sparse[1] + 1, head.sparse[0] + 12);
    writeFileSync(path, altered);
    expect(() => SegmentReader.open(path)).toThrow(/u32\.seg: directory start 0 runs past its range/);
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
