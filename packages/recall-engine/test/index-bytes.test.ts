// A cache's numbers are read in place when they lie 4-aligned in the bytes handed over, and copied when
// they do not (term-codec.ts decodeIndex): the index read back is the same wherever its bytes lie.
import { describe, expect, it } from "vitest";
import { TermIndex } from "@context-fold/recall-engine";

const texts = ["deploy the refresh-token rotation to staging", "refresh refreshed refreshing", "compaction of the ledger", "", "staging deploy failed twice"];

describe("an index read back from bytes at any offset", () => {
  it("gives the same terms, lengths and postings at offsets 0 to 7 of a larger buffer", () => {
    const built = new TermIndex();
    built.addDocuments(0, texts);
    const bytes = built.serialize({ any: "meta" });
    const expected = TermIndex.deserialize(Buffer.from(bytes));
    const terms = expected.termTexts();
    for (let offset = 0; offset < 8; offset++) {
      const host = Buffer.alloc(bytes.length + 16, 0xff);
      bytes.copy(host, offset);
      const back = TermIndex.deserialize(host.subarray(offset, offset + bytes.length));
      expect(back.termTexts()).toEqual(terms);
      expect(back.docCount).toBe(expected.docCount);
      for (let doc = 0; doc < texts.length; doc++) expect(back.docLength(doc)).toBe(expected.docLength(doc));
      for (const term of terms) expect([...(back.postings(term) ?? [])]).toEqual([...(expected.postings(term) ?? [])]);
    }
  });
});
