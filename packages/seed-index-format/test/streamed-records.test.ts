// Records too long to hold (a whole-session record of a 1 GB session is one 213 MB line): the streamed
// writer must append the very bytes `appendRecord` does, the lean reader must give every outcome
// `readSeedIndex` gives (spans read back in order), and the compact code assigner the codes
// `CodeAssigner` hands out — on generated records and on lines the scan must refuse.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "@context-fold/test-support";
import {
  appendNextRecordStreamed,
  appendRecord,
  appendRecordStreamed,
  CodeAssigner,
  codeFor,
  CompactBlockSet,
  CompactCodeAssigner,
  currentView,
  type FoldIndexRecord,
  forEachSpan,
  HARNESS,
  InvalidRecordError,
  type LeanReadOutcome,
  nextSeqFromTail,
  type ReadOutcome,
  readSeedIndex,
  readSeedIndexLean,
  recordSpans,
  resultAnchor,
  type Span,
  SpanSpool,
} from "@context-fold/seed-index-format";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { recordArb, retractArb } from "./arbitraries.js";

const dir = tempDir("sif-streamed-");
let fileNo = 0;
const nextFile = (): string => join(dir, `index-${String(fileNo++)}.jsonl`);

function spool(target: string, spans: readonly Span[], holdBytes?: number): SpanSpool {
  const s = new SpanSpool({ target, ...(holdBytes === undefined ? {} : { holdBytes }) });
  for (const span of spans) s.add(span);
  return s;
}

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

/** Lean outcomes with their spans read back: comparable with `readSeedIndex`'s. */
function withSpans(outcomes: LeanReadOutcome[]): ReadOutcome[] {
  return outcomes.map((o) => {
    if (o.outcome !== "record") return o;
    const { spansInFile, ...rest } = o;
    const spans: Span[] = [];
    forEachSpan(o.record, spansInFile, (span) => spans.push(span));
    return { ...rest, record: { ...o.record, spans } } as ReadOutcome;
  });
}

const span = (i: number): Span => {
  const blockId = resultAnchor(`call_${String(i)}`);
  return { blockId, code: codeFor(blockId), turn: 1 + (i % 7), log: { bytes: i, lines: i % 3 }, sha256: "ab".repeat(32) };
};
const record = (seq: number, spans: Span[] = []): FoldIndexRecord => ({
  v: 2,
  kind: "fold-index",
  harness: HARNESS,
  session: "s-1",
  seq,
  at: "2026-07-28T21:14:03.000Z",
  trigger: "compact",
  files: ["a.ts"],
  commands: [],
  errors: [],
  identifiers: ["x"],
  userMessages: [{ turn: 1, firstLine: "go" }],
  spans,
});

describe("appendRecordStreamed", () => {
  it("appends the bytes appendRecord appends, spans held in memory or in a temp file", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(recordArb(), { minLength: 1, maxLength: 4 }), fc.boolean(), async (records, torn) => {
        const whole = nextFile();
        const streamed = nextFile();
        if (torn) {
          // A torn tail: both start the record on a new line.
          writeFileSync(whole, '{"v":2,"kind":"fold-in');
          writeFileSync(streamed, '{"v":2,"kind":"fold-in');
        }
        for (const [i, r] of records.entries()) {
          await appendRecord(whole, r);
          const s = spool(streamed, r.spans, i % 2 === 0 ? 0 : undefined);
          try {
            await appendRecordStreamed(streamed, { ...r, spans: [] }, s);
          } finally {
            s.dispose();
          }
        }
        expect(readFileSync(streamed, "utf8")).toBe(readFileSync(whole, "utf8"));
      }),
      { numRuns: 60 },
    );
    // Temp files are gone once disposed.
    expect(readdirSync(dir).filter((name) => name.endsWith(".tmp"))).toEqual([]);
  });

  it("spills a large record to a temp file beside the index and removes it on dispose", async () => {
    const whole = nextFile();
    const streamed = nextFile();
    const spans = Array.from({ length: 20_000 }, (_, i) => span(i));
    await appendRecord(whole, record(0, spans));
    const s = spool(streamed, spans, 64 * 1024);
    expect(readdirSync(dir).some((name) => name.startsWith(`.${streamed.split("/").pop() ?? ""}.`) && name.endsWith(".tmp"))).toBe(true);
    await appendRecordStreamed(streamed, record(0), s);
    const printed: Span[] = [];
    s.forEach((one) => printed.push(one));
    s.dispose();
    expect(printed).toEqual(spans);
    expect(readFileSync(streamed, "utf8")).toBe(readFileSync(whole, "utf8"));
    expect(readdirSync(dir).filter((name) => name.endsWith(".tmp"))).toEqual([]);
  });

  it("takes the next seq under the lock, as appendNextRecord does", async () => {
    const file = nextFile();
    await appendRecord(file, record(4, [span(1)]));
    const s = spool(file, [span(2), span(3)]);
    const appended = await appendNextRecordStreamed(file, (seq) => record(seq), s);
    s.dispose();
    expect(appended.seq).toBe(5);
    const lines = readFileSync(file, "utf8").split("\n");
    expect(lines[1]).toBe(JSON.stringify(record(5, [span(2), span(3)])));
  });

  it("finds the next seq past a record line longer than it holds, a torn tail and an invalid long line", async () => {
    const file = nextFile();
    await appendRecord(file, record(3, [span(0)]));
    const many = Array.from({ length: 60_000 }, (_, i) => span(i));
    const s = spool(file, many);
    await appendRecordStreamed(file, record(7), s);
    s.dispose();
    expect(readFileSync(file).length).toBeGreaterThan(9 * 1024 * 1024);
    expect(nextSeqFromTail(file)).toBe(8);
    // A crash mid-append leaves a torn line, and a long line that is no record is stepped over too.
    writeFileSync(file, `${readFileSync(file, "utf8")}{"v":2,"kind":"fold-index","seq":99,"spans":[`);
    expect(nextSeqFromTail(file)).toBe(8);
    writeFileSync(file, `${readFileSync(file, "utf8")}\n${JSON.stringify({ v: 2, kind: "fold-index", seq: 50, pad: "x".repeat(9 * 1024 * 1024) })}\n`);
    expect(nextSeqFromTail(file)).toBe(8);
    await appendRecord(file, record(9));
    expect(nextSeqFromTail(file)).toBe(10);
  });

  it("refuses an invalid span when it is added, naming its path in the record", () => {
    const s = new SpanSpool({ target: join(dir, "x.jsonl") });
    s.add(span(0));
    let error: unknown;
    try {
      s.add({ ...span(1), blockId: "q:not-an-anchor" });
    } catch (e) {
      error = e;
    }
    s.dispose();
    expect(error).toBeInstanceOf(InvalidRecordError);
    expect((error as InvalidRecordError).message).toContain("/spans/1/blockId");
  });
});

describe("recordSpans", () => {
  it("walks the current view's spans as the whole read holds them, in record order, as often as asked", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.oneof(recordArb(), retractArb()), { maxLength: 6 }), async (items) => {
        const file = nextFile();
        writeFileSync(file, items.map((item) => `${JSON.stringify(item)}\n`).join(""));
        const expected = currentView(await collect(readSeedIndex(file))).flatMap((record) => record.spans.map((span) => [record.seq, span] as const));
        const outcomes = await collect(readSeedIndexLean(file, { holdLineUpTo: 0 }));
        const spans = recordSpans(currentView(outcomes), outcomes);
        expect(spans.count).toBe(expected.length);
        for (let pass = 0; pass < 2; pass++) {
          const walked: (readonly [number, Span])[] = [];
          spans.forEach((span, record) => walked.push([record.seq, span]));
          expect(walked).toEqual(expected);
        }
      }),
      { numRuns: 60 },
    );
  });
});

describe("readSeedIndexLean", () => {
  it("gives readSeedIndex's outcomes, spans read back in order, on generated files", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.oneof(recordArb(), retractArb()), { maxLength: 6 }), fc.boolean(), async (items, tornTail) => {
        const file = nextFile();
        let text = items.map((item) => `${JSON.stringify(item)}\n`).join("");
        if (tornTail && items.length > 0) text = text.slice(0, -7);
        writeFileSync(file, text);
        const expected = await collect(readSeedIndex(file));
        expect(withSpans(await collect(readSeedIndexLean(file, { holdLineUpTo: 0 })))).toEqual(expected);
        expect(withSpans(await collect(readSeedIndexLean(file)))).toEqual(expected);
      }),
      { numRuns: 80 },
    );
  });

  it("leaves the spans of long lines in the file, and reads whole every line the scan cannot take", async () => {
    const file = nextFile();
    const good = JSON.stringify(record(0, [span(1), span(2)]));
    const lines = [
      good,
      `  ${good}\r`, // spaces before, a CR after
      "\uFEFF" + good, // a byte order mark
      good.replace('"spans":[', '"sp\\u0061ns":['), // the key written with an escape
      good.replace('"files":', '"spans":[],"files":'), // two spans keys (the last one counts)
      good.replace('"spans":[', '"spans":[,'), // an empty element
      good.replace(/\]\}$/, ",]}"), // a trailing comma
      good.replace('"turn":1', '"turn":-1'), // an invalid span
      good.replace('"spans":[', '"spans":[{"a":"]"},'), // brackets in a string, an invalid span
      JSON.stringify({ ...record(1), spans: [] }),
      JSON.stringify({ ...record(2, [span(3)]), v: 3 }), // a newer version: skipped
      JSON.stringify({ kind: "other", spans: [1, 2] }),
      JSON.stringify({ ...record(3, [span(4)]), "x-after": { spans: [9] } }), // a nested spans key after
      `{"v":2,"kind":"fold-index","spans":[{"blockId":"r:a","code":"abc","turn":1,"log":{"bytes":1,"lines":1}}`, // cut short
      good.slice(0, -9), // a torn tail
    ];
    writeFileSync(file, lines.join("\n"));
    const expected = await collect(readSeedIndex(file));
    const lean = await collect(readSeedIndexLean(file, { holdLineUpTo: 0 }));
    expect(withSpans(lean)).toEqual(expected);
    expect(expected.map((o) => o.outcome)).toEqual([
      "record",
      "record",
      "record",
      "record",
      "record",
      "invalid",
      "invalid",
      "invalid",
      "invalid",
      "record",
      "skipped",
      "skipped",
      "record",
      "invalid",
      "torn-tail",
    ]);
    // The plain lines were scanned (spans left in the file); the escaped key was read whole.
    const left = lean.map((o) => (o.outcome === "record" ? o.spansInFile?.count : undefined));
    expect(left.slice(0, 5)).toEqual([2, 2, undefined, undefined, undefined]);
    expect(left[9]).toBe(0);
    expect(left[12]).toBe(1);
    expect(lean[0]?.outcome === "record" ? lean[0].record.spans : null).toEqual([]);
  });

  it("says when a record's bytes changed before its spans were read again", async () => {
    const file = nextFile();
    writeFileSync(file, `${JSON.stringify(record(0, [span(1), span(2)]))}\n`);
    const [outcome] = await collect(readSeedIndexLean(file, { holdLineUpTo: 0 }));
    if (outcome?.outcome !== "record") throw new Error("expected a record");
    writeFileSync(file, `${JSON.stringify(record(0, [span(1)]))}\n`);
    expect(() => forEachSpan(outcome.record, outcome.spansInFile, () => undefined)).toThrow(/changed while read/);
  });
});

describe("CompactCodeAssigner", () => {
  const blockIdArb = fc.oneof(fc.constantFrom("r:a", "r:b", "a:m:p0", "a:m:p1"), fc.string({ minLength: 1, maxLength: 6 }).map((s) => `r:${s}`));
  const codeArb = fc.oneof(
    blockIdArb.map((id) => codeFor(id)),
    blockIdArb.map((id) => codeFor(id, 12)),
    fc.stringMatching(/^[a-z0-9]{1,12}$/),
  );

  it("hands out the codes CodeAssigner does, existing pairs and repeats included", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(blockIdArb, codeArb), { maxLength: 12 }), fc.array(blockIdArb, { maxLength: 30 }), (existing, asked) => {
        const exact = new CodeAssigner(existing);
        const compact = new CompactCodeAssigner(existing);
        for (const id of asked) {
          let want: string | Error;
          try {
            want = exact.assign(id);
          } catch (error) {
            want = error as Error;
          }
          if (want instanceof Error) expect(() => compact.assign(id)).toThrow(want.message);
          else expect(compact.assign(id)).toBe(want);
        }
      }),
      { numRuns: 400 },
    );
  });

  it("gives a block whose code another block holds the 12-character code, and keeps it", () => {
    const taken = codeFor("r:a");
    const compact = new CompactCodeAssigner([["r:other", taken]]);
    expect(compact.assign("r:a")).toBe(codeFor("r:a", 12));
    expect(compact.assign("r:a")).toBe(codeFor("r:a", 12));
    expect(compact.assign("r:other")).toBe(taken);
  });

  it("tells the code a block holds, whether a code is held and by which block, as CodeAssigner keeps them", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(blockIdArb, codeArb), { maxLength: 12 }), fc.array(blockIdArb, { maxLength: 10 }), fc.nat(5000), (existing, asked, expected) => {
        const exact = new CodeAssigner(existing);
        const compact = new CompactCodeAssigner(existing, expected);
        const ids = [...new Set([...existing.map(([id]) => id), ...asked])];
        const codes = [...new Set([...existing.map(([, code]) => code), ...ids.flatMap((id) => [codeFor(id), codeFor(id, 12)])])];
        for (const code of codes) {
          const holder = exact.blockFor(code);
          expect(compact.holds(code)).toBe(holder !== undefined);
          // A code kept as a string is told with its block; a block's own 10-character code, as numbers, is not.
          const told = compact.holderOf(code);
          if (told !== undefined || code.length === 12) expect(told).toBe(holder);
        }
        for (const id of ids) {
          const held = codes.find((code) => exact.blockFor(code) === id);
          expect(compact.codeOf(id)).toBe(held);
        }
      }),
      { numRuns: 400 },
    );
  });

  it("keeps its table exact as it grows (many times past its first size)", () => {
    const compact = new CompactCodeAssigner();
    const exact = new CodeAssigner();
    for (let i = 0; i < 50_000; i++) expect(compact.assign(`r:call_${String(i)}`)).toBe(exact.assign(`r:call_${String(i)}`));
    for (let i = 0; i < 50_000; i += 997) expect(compact.assign(`r:call_${String(i)}`)).toBe(codeFor(`r:call_${String(i)}`));
  });
});

describe("CompactBlockSet", () => {
  it("answers as a Set of the block ids added, growing or sized up front", () => {
    const idArb = fc.oneof(fc.constantFrom("r:a", "r:b", "a:m:p0", "a:m:p1"), fc.string({ minLength: 1, maxLength: 4 }).map((s) => `r:${s}`));
    fc.assert(
      fc.property(fc.array(idArb, { maxLength: 60 }), fc.array(idArb, { maxLength: 20 }), fc.nat(3000), (added, asked, expected) => {
        for (const set of [new CompactBlockSet(), new CompactBlockSet(expected)]) {
          const exact = new Set<string>();
          for (const id of added) {
            expect(set.add(id)).toBe(!exact.has(id));
            exact.add(id);
          }
          expect(set.size).toBe(exact.size);
          for (const id of [...added, ...asked]) expect(set.has(id)).toBe(exact.has(id));
        }
      }),
      { numRuns: 300 },
    );
  });

  it("stays exact many times past its first size", () => {
    const set = new CompactBlockSet();
    for (let i = 0; i < 50_000; i += 2) set.add(`r:call_${String(i)}`);
    expect(set.size).toBe(25_000);
    for (let i = 0; i < 50_000; i++) expect(set.has(`r:call_${String(i)}`)).toBe(i % 2 === 0);
  });
});
