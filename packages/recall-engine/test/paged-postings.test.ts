// A recall cache's postings are read by offset, page by page (paged-postings.ts; forced here with a hold
// limit of 0 bytes, as a cache of a 1 GB session is read): a term's postings read
// from the file are the ones the index was built with, wherever they fall across pages; a search of a
// loaded cache ranks exactly as the built index; only the pages a term lies on are read, and each is
// checked against the digest the head lists for it.
import { createHash } from "node:crypto";
import { closeSync, openSync, readFileSync, readSync, statSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readSession } from "@context-fold/ledger-reader";
import { generateSession, type Manifest } from "@context-fold/session-gen";
import { tempDir } from "@context-fold/test-support";
import { CorruptIndexError, RecallIndex, TermIndex } from "@context-fold/recall-engine";
import { FileSource } from "../src/paged-postings.js";
import { PAGE_BYTES } from "../src/term-codec.js";

/** A cache file read through a real descriptor, counting the bytes each read asks for (`read` reads through `readInto`). */
class CountingSource extends FileSource {
  bytesRead = 0;
  override readInto(out: Buffer, position: number): void {
    this.bytesRead += out.length;
    super.readInto(out, position);
  }
}

describe("a recall cache's postings read by offset", () => {
  const dir = tempDir("recall-paged-");
  const file = join(dir, "s.jsonl");
  const cachePath = join(dir, "c.recall");
  let manifest: Manifest;
  let built: TermIndex;
  let texts: string[];

  it("every term's postings read from the file are the built index's, across page boundaries", { timeout: 300_000 }, async () => {
    manifest = await generateSession(file, { seed: 41, turns: 120 });
    const session = await readSession(file);
    texts = session.blocks.map((b) => b.text);
    built = new TermIndex();
    built.addDocuments(0, texts);
    writeFileSync(cachePath, built.serialize({ k: 1 }));
    // Several pages of postings, so terms straddle page boundaries.
    expect(statSync(cachePath).size).toBeGreaterThan(6 * PAGE_BYTES);
    const { index: back, source } = TermIndex.openFile(cachePath, 0);
    try {
      expect(back.docCount).toBe(built.docCount);
      const terms = built.termTexts();
      expect(back.termTexts()).toEqual(terms);
      for (const term of terms) expect(Array.from(back.postings(term) ?? []), term).toEqual(Array.from(built.postings(term) ?? []));
    } finally {
      source.close();
    }
  });

  it("a search of the loaded cache gives the built index's results (needles, words, both scopes, page 2)", { timeout: 300_000 }, async () => {
    const session = await readSession(file);
    const fresh = RecallIndex.build(session);
    const { index: terms, source } = TermIndex.openFile(cachePath, 0);
    try {
      const loaded = RecallIndex.fromTerms(session, terms);
      const queries = [...manifest.needles.map((n) => n.value), "refresh token", "error failed test", "deploy staging", "the user asked"];
      for (const query of queries) {
        for (const scope of ["lineage", "all"]) {
          for (const page of [1, 2]) expect(loaded.search(query, { scope, page }), `${query} ${scope} ${String(page)}`).toEqual(fresh.search(query, { scope, page }));
        }
      }
    } finally {
      source.close();
    }
  });

  it("a load for one search (as read) reads no postings until a term's are asked for, then each page once, and gives the built index's", () => {
    const source = new CountingSource(cachePath);
    try {
      const { index: back } = TermIndex.openSource(source, undefined, true);
      const terms = built.termTexts();
      const postingBytes = 4 * terms.reduce((sum, term) => sum + (built.postings(term)?.length ?? 0), 0);
      // The head only (terms, lengths, offsets, digests, the trailer), not one page of postings.
      expect(source.bytesRead).toBeLessThan(source.size - postingBytes + PAGE_BYTES);
      expect(source.bytesRead).toBeLessThan(postingBytes);
      const rare = terms.find((term, t) => t > terms.length / 2 && built.postings(term)?.length === 2) ?? "";
      source.bytesRead = 0;
      expect(Array.from(back.postings(rare) ?? [])).toEqual(Array.from(built.postings(rare) ?? []));
      expect(source.bytesRead).toBeGreaterThan(0);
      expect(source.bytesRead).toBeLessThanOrEqual(2 * PAGE_BYTES);
      // Held once read: the same term again reads nothing.
      source.bytesRead = 0;
      expect(Array.from(back.postings(rare) ?? [])).toEqual(Array.from(built.postings(rare) ?? []));
      expect(source.bytesRead).toBe(0);
      // Every term's, reading each page at most once in all.
      for (const term of terms) expect(Array.from(back.postings(term) ?? []), term).toEqual(Array.from(built.postings(term) ?? []));
      expect(source.bytesRead).toBeLessThanOrEqual(postingBytes);
    } finally {
      source.close();
    }
  });

  it("a load for one search checks a term's offsets when its postings are read: bad ones are refused then, not at load", () => {
    const bytes = Buffer.from(readFileSync(cachePath));
    const magic = bytes.indexOf(10) + 1;
    const [metaLength, termLength, docCount, termCount] = [0, 4, 8, 12].map((k) => bytes.readUInt32LE(magic + k)) as [number, number, number, number];
    const textEnd = magic + 24 + metaLength + termLength;
    const offsetsAt = textEnd + ((4 - (textEnd % 4)) % 4) + 4 * docCount;
    const terms = built.termTexts();
    expect(terms.length).toBe(termCount);
    const t = terms.findIndex((term, id) => id > termCount / 2 && built.postings(term)?.length === 2);
    // Term t's postings end one word past where they begin (an odd length): the head's sha256 (the
    // trailer) made again, so only the offsets' own check can tell.
    const at = offsetsAt + 4 * (t + 1);
    bytes.writeUInt32LE(bytes.readUInt32LE(offsetsAt + 4 * t) + 1, at);
    const headLength = bytes.length - 32 - 4 * terms.reduce((sum, term) => sum + (built.postings(term)?.length ?? 0), 0);
    createHash("sha256").update(bytes.subarray(0, headLength)).digest().copy(bytes, bytes.length - 32);
    const bad = join(dir, "bad-offsets.recall");
    writeFileSync(bad, bytes);
    expect(() => TermIndex.openFile(bad)).toThrow(/bad offsets for term/);
    const source = new FileSource(bad);
    try {
      const { index: back } = TermIndex.openSource(source, undefined, true);
      expect(() => back.postings(terms[t] as string)).toThrow(/bad offsets for term/);
      const fine = terms.findIndex((term) => built.postings(term)?.length === 2);
      expect(Array.from(back.postings(terms[fine] as string) ?? [])).toEqual(Array.from(built.postings(terms[fine] as string) ?? []));
    } finally {
      source.close();
    }
  });

  it("reads only the pages a term lies on, each checked: a page changed after the load is refused when read", () => {
    const source = new CountingSource(cachePath);
    const { index: back } = TermIndex.openSource(source, 0);
    const terms = built.termTexts();
    // Term ids are the order of termTexts: a term's words start at the sum of the earlier terms' postings.
    const starts: number[] = [];
    let total = 0;
    for (const term of terms) {
      starts.push(total);
      total += built.postings(term)?.length ?? 0;
    }
    const postingsAt = source.size - 32 - 4 * total;
    // A rare term in the middle of the postings, and one on another page.
    const pick = (from: number): number => {
      for (let t = from; t < terms.length; t++) if ((built.postings(terms[t] as string)?.length ?? 0) === 2) return t;
      throw new Error("no rare term");
    };
    const rare = pick(Math.floor(terms.length / 2));
    const rarePage = Math.floor((4 * (starts[rare] as number)) / PAGE_BYTES);
    let other = pick(0);
    while (Math.floor((4 * (starts[other] as number)) / PAGE_BYTES) === rarePage) other = pick(other + 1);
    source.bytesRead = 0;
    expect(Array.from(back.postings(terms[rare] as string) ?? [])).toEqual(Array.from(built.postings(terms[rare] as string) ?? []));
    expect(source.bytesRead).toBeGreaterThan(0);
    expect(source.bytesRead).toBeLessThanOrEqual(PAGE_BYTES);
    // One byte of the rare term's page flipped in place (no cache writer does this: a tamper or a disk fault).
    const position = postingsAt + 4 * (starts[rare] as number);
    const fd = openSync(cachePath, "r+");
    try {
      const one = Buffer.alloc(1);
      readSync(fd, one, 0, 1, position);
      one[0] = (one[0] ?? 0) ^ 0xff;
      writeSync(fd, one, 0, 1, position);
    } finally {
      closeSync(fd);
    }
    expect(() => back.postings(terms[rare] as string)).toThrow(CorruptIndexError);
    expect(Array.from(back.postings(terms[other] as string) ?? [])).toEqual(Array.from(built.postings(terms[other] as string) ?? []));
    source.close();
    // Opened again, the load checks every page and refuses the file.
    expect(() => TermIndex.openFile(cachePath, 0)).toThrow(/checksum mismatch in postings page/);
    // Small enough to be held whole: read and checked at once (the digest of all the postings), refused the same.
    expect(() => TermIndex.openFile(cachePath)).toThrow(/checksum mismatch in postings$/);
  });
});
