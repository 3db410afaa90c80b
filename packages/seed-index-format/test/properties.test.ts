// Property tests: write → read round trip, anchors round trip, and the union of any interleaving of
// records and retractions equals the contract's definition (computed here by a direct, naive model).
import { hash } from "node:crypto";
import { join } from "node:path";
import { tempDir } from "@context-fold/test-support";
import {
  appendRecord,
  archivalUnion,
  base32Lower,
  codeFor,
  currentView,
  formatAnchor,
  isEditedAnchor,
  nextSeq,
  parseAnchor,
  readSeedIndexFile,
  validateRecord,
  type FoldIndexRecord,
  type FoldRetractRecord,
  type ReadOutcome,
} from "@context-fold/seed-index-format";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { anchorArb, recordArb, retractArb } from "./arbitraries.js";

const dir = tempDir("sif-prop-");
let fileNo = 0;

describe("properties", () => {
  it("anchors round-trip, including ids with :, |, _, -", () => {
    fc.assert(
      fc.property(anchorArb, (anchor) => {
        let text: string;
        try {
          text = formatAnchor(anchor);
        } catch {
          // Only an id that itself ends in ":edit:<entry id>" cannot be written; it must be such an id.
          const id = anchor.kind === "result" ? anchor.toolCallId : anchor.responseId;
          return /:edit:[0-9a-f-]+$/.test(id);
        }
        expect(parseAnchor(text)).toEqual({ ok: true, anchor });
        return true;
      }),
      { numRuns: 2000 },
    );
  });

  it("isEditedAnchor agrees with parseAnchor on written anchors and on arbitrary text", () => {
    const agrees = (text: string): boolean => {
      const parsed = parseAnchor(text);
      return isEditedAnchor(text) === (parsed.ok && parsed.anchor.editId !== undefined);
    };
    fc.assert(
      fc.property(anchorArb, (anchor) => {
        let text: string;
        try {
          text = formatAnchor(anchor);
        } catch {
          return true;
        }
        return agrees(text);
      }),
      { numRuns: 2000 },
    );
    fc.assert(fc.property(fc.string(), (text) => agrees(text) && agrees(`${text}:edit:0123abcd`) && agrees(`r:${text}:edit:0123abcd`)), { numRuns: 2000 });
    expect(isEditedAnchor("r:call_1:edit:0123abcd")).toBe(true);
    expect(isEditedAnchor("r:call_1")).toBe(false);
    expect(isEditedAnchor("x:call_1:edit:0123abcd")).toBe(false);
  });

  it("codeFor is the first 10 (12) characters of base32(sha256(blockId)), for any blockId", () => {
    const reference = (blockId: string, length: 10 | 12): string => base32Lower(hash("sha256", blockId, "buffer")).slice(0, length);
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: "grapheme" }), anchorArb.map((a) => (a.kind === "result" ? `r:${a.toolCallId}` : `a:${a.responseId}:p${String(a.part)}`))), (blockId) => {
        return codeFor(blockId) === reference(blockId, 10) && codeFor(blockId, 12) === reference(blockId, 12);
      }),
      { numRuns: 5000 },
    );
  });

  it("every generated record validates", () => {
    fc.assert(fc.property(recordArb(), (record) => validateRecord(record).ok), { numRuns: 300 });
  });

  it("write → read round-trips records and retractions exactly, in order", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.oneof({ weight: 3, arbitrary: recordArb() }, { weight: 1, arbitrary: retractArb() }), { maxLength: 12 }), async (items) => {
        const file = join(dir, `rt-${fileNo++}`, "seed-index.jsonl");
        for (const item of items) await appendRecord(file, item);
        const { outcomes, exists } = await readSeedIndexFile(file);
        expect(exists).toBe(items.length > 0);
        expect(outcomes.map((o) => o.outcome)).toEqual(items.map((i) => (i.kind === "fold-index" ? "record" : "retract")));
        // JSON has no undefined and -0 becomes 0: compare with the JSON image of what was written.
        expect(outcomes.map((o) => ("record" in o ? o.record : undefined))).toEqual(items.map((i) => JSON.parse(JSON.stringify(i)) as unknown));
      }),
      { numRuns: 60 },
    );
  });

  it("any interleaving of records and retractions yields the contract's union", () => {
    const item = fc.oneof(
      { weight: 3, arbitrary: recordArb(fc.nat({ max: 5 })) },
      { weight: 1, arbitrary: retractArb(fc.nat({ max: 5 })) },
    );
    fc.assert(
      fc.property(fc.array(item, { maxLength: 30 }), (items) => {
        const outcomes: ReadOutcome[] = items.map((record, i) =>
          record.kind === "fold-index"
            ? { line: i + 1, byteOffset: i, outcome: "record", record }
            : { line: i + 1, byteOffset: i, outcome: "retract", record: record },
        );
        // The model, straight from the contract: a record stands unless a retraction of its seq comes after it.
        const standing = items
          .map((r, i) => ({ r, i }))
          .filter((x): x is { r: FoldIndexRecord; i: number } => x.r.kind === "fold-index")
          .filter(({ r, i }) => !items.slice(i + 1).some((later) => later.kind === "fold-retract" && later.seq === r.seq));
        const archival = standing.map((x) => x.r);
        const seqs = [...new Set(archival.map((r) => r.seq))].sort((a, b) => a - b);
        const current = seqs.map((seq) => archival.filter((r) => r.seq === seq).at(-1));
        expect(archivalUnion(outcomes)).toEqual(archival);
        expect(currentView(outcomes)).toEqual(current);
        const all = items.map((r: FoldIndexRecord | FoldRetractRecord) => r.seq);
        expect(nextSeq(outcomes)).toBe(all.length === 0 ? 0 : Math.max(...all) + 1);
      }),
      { numRuns: 1000 },
    );
  });
});
