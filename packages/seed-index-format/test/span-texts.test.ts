// `appendNextRecord` with `spanTexts`: the spans a writer appends in record after record (a `compact`
// record lists every span of the lineage again) are checked and serialized once per span object, and
// the line is the very one appended without it; an invalid span or record is refused as before.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "@context-fold/test-support";
import { appendNextRecord, type FoldIndexRecord, InvalidRecordError, readSeedIndexFile, type Span, SpanTexts } from "@context-fold/seed-index-format";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { recordArb } from "./arbitraries.js";

const dir = tempDir("sif-span-texts-");
let fileNo = 0;
const nextFile = (): string => join(dir, `index-${String(fileNo++)}.jsonl`);

/** A span whose every property read is counted (JSON.stringify and the contract's check both read them). */
function counted(span: Span, reads: { n: number }): Span {
  return new Proxy(span, {
    get(target, key, receiver) {
      reads.n += 1;
      return Reflect.get(target, key, receiver) as unknown;
    },
  });
}

describe("appendNextRecord with span texts", () => {
  it("appends the bytes it appends without them (generated records, appended twice over)", async () => {
    await fc.assert(
      fc.asyncProperty(recordArb(), async (record) => {
        const plain = nextFile();
        const cached = nextFile();
        const texts = new SpanTexts();
        for (let i = 0; i < 2; i++) {
          await appendNextRecord(plain, (seq) => ({ ...record, seq }));
          await appendNextRecord(cached, (seq) => ({ ...record, seq }), { spanTexts: texts });
        }
        expect(readFileSync(cached, "utf8")).toBe(readFileSync(plain, "utf8"));
      }),
      { numRuns: 60 },
    );
  });

  it("appends the bytes it appends without them when records share, drop, reorder or extend leading spans", async () => {
    const recordsArb = fc.array(recordArb().filter((r) => r.spans.length >= 1), { minLength: 1, maxLength: 3 });
    await fc.assert(
      fc.asyncProperty(recordsArb, fc.array(fc.tuple(fc.nat(), fc.nat(), fc.nat()), { minLength: 2, maxLength: 6 }), async (records, picks) => {
        // One pool of span objects (the same objects listed again, as compaction after compaction does).
        const pool = records.flatMap((r) => r.spans);
        const base = records[0] as FoldIndexRecord;
        const plain = nextFile();
        const cached = nextFile();
        const texts = new SpanTexts();
        let spans: Span[] = [];
        for (const [keep, add, rotate] of picks) {
          // Keep a prefix of the last spans, then add spans from the pool (sometimes rotated: reordered).
          spans = [...spans.slice(0, keep % (spans.length + 1)), ...pool.slice(0, 1 + (add % pool.length))];
          if (rotate % 3 === 0 && spans.length > 1) spans = [...spans.slice(1), spans[0] as Span];
          const listed = spans;
          await appendNextRecord(plain, (seq) => ({ ...base, seq, spans: listed }));
          await appendNextRecord(cached, (seq) => ({ ...base, seq, spans: listed }), { spanTexts: texts });
        }
        expect(readFileSync(cached, "utf8")).toBe(readFileSync(plain, "utf8"));
      }),
      { numRuns: 60 },
    );
  });

  it("appends the bytes JSON.stringify gives for records whose other fields hold what it writes apart (toJSON, undefined, functions, non-ASCII)", async () => {
    const [record] = fc.sample(recordArb().filter((r) => r.spans.length >= 1), { numRuns: 1, seed: 11 }) as [FoldIndexRecord];
    const when = { toJSON: (key: string) => `at ${key}` };
    // Long arrays are written item by item (the writer's ITEM_BY_ITEM), short ones whole: both here.
    const long = (items: unknown[]): unknown[] => [...items, ...Array.from({ length: 1100 }, (_, i) => (i % 2 === 0 ? `pad ${String(i)}` : { i }))];
    const extras: Record<string, unknown>[] = [
      { userMessages: Array.from({ length: 1100 }, (_, i) => ({ turn: i, firstLine: i % 3 === 0 ? `keep the old signature — other callers depend on it 😀 ${String(i)}` : `plain ${String(i)}` })) },
      { notes: long([1, "two", null, undefined, () => 3, Symbol("s"), [4, undefined], { deep: [when] }, Number.NaN]) },
      { notes: [1, "two", null, undefined, () => 3, Symbol("s"), [4, undefined], { deep: [when] }, Number.NaN] },
      { notes: long([when, "x"]) },
      { stamp: when },
      { skipped: undefined, fn: () => 1 },
      { nested: { list: [undefined, when] }, empty: [] },
    ];
    for (const extra of extras) {
      const plain = nextFile();
      const cached = nextFile();
      const texts = new SpanTexts();
      const withExtra = { ...record, ...extra } as FoldIndexRecord;
      await appendNextRecord(plain, (seq) => ({ ...withExtra, seq }));
      await appendNextRecord(cached, (seq) => ({ ...withExtra, seq }), { spanTexts: texts });
      expect(readFileSync(cached, "utf8"), Object.keys(extra).join(",")).toBe(readFileSync(plain, "utf8"));
    }
  });

  it("reads a span again only when it is a new one", async () => {
    const [record] = fc.sample(recordArb().filter((r) => r.spans.length >= 2), { numRuns: 1, seed: 29 }) as [FoldIndexRecord];
    const reads = { n: 0 };
    const spans = record.spans.map((span) => counted(span, reads));
    const file = nextFile();
    const texts = new SpanTexts();
    await appendNextRecord(file, (seq) => ({ ...record, seq, spans }), { spanTexts: texts });
    expect(reads.n).toBeGreaterThan(0);
    // The next compaction lists the same spans again, and one more.
    reads.n = 0;
    const extra = { n: 0 };
    const added = counted(record.spans[0] as Span, extra);
    await appendNextRecord(file, (seq) => ({ ...record, seq, spans: [...spans, added] }), { spanTexts: texts });
    expect(reads.n).toBe(0);
    expect(extra.n).toBeGreaterThan(0);
    const { outcomes } = await readSeedIndexFile(file);
    const last = outcomes.at(-1);
    expect(last?.outcome === "record" ? last.record.spans.length : -1).toBe(spans.length + 1);
  });

  it("refuses an invalid span, and an invalid record, leaving the file as it was", async () => {
    const [record] = fc.sample(recordArb().filter((r) => r.spans.length >= 1), { numRuns: 1, seed: 7 }) as [FoldIndexRecord];
    const file = nextFile();
    const texts = new SpanTexts();
    await appendNextRecord(file, (seq) => ({ ...record, seq }), { spanTexts: texts });
    const before = readFileSync(file, "utf8");
    const badSpan = { ...(record.spans[0] as Span), blockId: "not an anchor" };
    await expect(appendNextRecord(file, (seq) => ({ ...record, seq, spans: [...record.spans, badSpan] }), { spanTexts: texts })).rejects.toThrow(InvalidRecordError);
    await expect(appendNextRecord(file, (seq) => ({ ...record, seq, harness: "" as never }), { spanTexts: texts })).rejects.toThrow(InvalidRecordError);
    expect(readFileSync(file, "utf8")).toBe(before);
    // A span refused after valid ones leaves the texts as they were: the next record, listing the same
    // spans and valid ones after them, is the line a writer without span texts appends.
    const more = { ...(record.spans[0] as Span), turn: 99 };
    await expect(appendNextRecord(file, (seq) => ({ ...record, seq, spans: [...record.spans, more, badSpan] }), { spanTexts: texts })).rejects.toThrow(InvalidRecordError);
    expect(readFileSync(file, "utf8")).toBe(before);
    const plain = nextFile();
    await appendNextRecord(plain, (seq) => ({ ...record, seq }));
    await appendNextRecord(plain, (seq) => ({ ...record, seq, spans: [...record.spans, more, more] }));
    await appendNextRecord(file, (seq) => ({ ...record, seq, spans: [...record.spans, more, more] }), { spanTexts: texts });
    expect(readFileSync(file, "utf8")).toBe(readFileSync(plain, "utf8"));
  });
});
