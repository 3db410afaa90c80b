// The reader on real files (chunk boundaries, large files, unreadable paths) and the writer's guarantees
// (validation before touching the file, torn-tail healing, fsync), plus the adversarial inputs for regexes.
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { LINEAR_TIME_MS, tempDir } from "@context-fold/test-support";
import {
  appendNextRecord,
  type AppendTail,
  appendRecord,
  classifyLine,
  CodeAssigner,
  codeFor,
  type FoldIndexRecord,
  HARNESS,
  parseAnchor,
  readSeedIndex,
  readSeedIndexFile,
  resultAnchor,
  partAnchor,
  formatAnchor,
  SeedIndexUnreadableError,
  validateRecord,
  verifySpanText,
  sha256Hex,
  blockLog,
  joinTextParts,
} from "@context-fold/seed-index-format";
import { describe, expect, it } from "vitest";

const dir = tempDir("sif-rw-");
const record = (seq: number, extra: Partial<FoldIndexRecord> = {}): FoldIndexRecord => ({
  v: 2,
  kind: "fold-index",
  harness: HARNESS,
  session: "s-1",
  seq,
  at: "2026-07-28T21:14:03.000Z",
  trigger: "threshold",
  files: [],
  commands: [],
  errors: [],
  identifiers: [],
  userMessages: [],
  spans: [{ blockId: resultAnchor(`call_${seq}`), code: codeFor(`r:call_${seq}`), turn: 1, log: blockLog("x"), sha256: sha256Hex("x") }],
  ...extra,
});

describe("readSeedIndex", () => {
  it("reports a missing file as exists:false with no outcomes", async () => {
    expect(await readSeedIndexFile(join(dir, "nope.jsonl"))).toEqual({ outcomes: [], exists: false });
  });

  it("throws a typed error for an unreadable path (a directory)", async () => {
    const folder = join(dir, "a-dir");
    mkdirSync(folder);
    await expect(readSeedIndexFile(folder)).rejects.toBeInstanceOf(SeedIndexUnreadableError);
    await expect(readSeedIndexFile(folder)).rejects.toMatchObject({ code: "SEED_INDEX_UNREADABLE", file: folder });
  });

  it("streams lines longer than a read chunk and keeps byte offsets exact", async () => {
    const file = join(dir, "big-lines.jsonl");
    const big = record(0, { identifiers: ["é".repeat(1_500_000)] });
    const lines = [JSON.stringify(record(1)), JSON.stringify(big), JSON.stringify(record(2))];
    writeFileSync(file, `${lines.join("\n")}\n`);
    const seen: { line: number; byteOffset: number; outcome: string }[] = [];
    for await (const o of readSeedIndex(file)) seen.push({ line: o.line, byteOffset: o.byteOffset, outcome: o.outcome });
    const len = (s: string): number => Buffer.byteLength(s, "utf8") + 1;
    expect(seen).toEqual([
      { line: 1, byteOffset: 0, outcome: "record" },
      { line: 2, byteOffset: len(lines[0] ?? ""), outcome: "record" },
      { line: 3, byteOffset: len(lines[0] ?? "") + len(lines[1] ?? ""), outcome: "record" },
    ]);
  });

  it("reads 20,000 records streaming", async () => {
    const file = join(dir, "many.jsonl");
    writeFileSync(file, Array.from({ length: 20_000 }, (_, i) => `${JSON.stringify(record(i))}\n`).join(""));
    let count = 0;
    for await (const o of readSeedIndex(file)) if (o.outcome === "record") count += 1;
    expect(count).toBe(20_000);
  });

  it("reports the failing JSON path and the line of a shape error", async () => {
    const file = join(dir, "shape.jsonl");
    const bad = { ...record(0), spans: [{ ...record(0).spans[0], log: { bytes: 1, lines: -3 } }] };
    writeFileSync(file, `${JSON.stringify(record(1))}\n${JSON.stringify(bad)}\n`);
    const { outcomes } = await readSeedIndexFile(file);
    expect(outcomes[1]).toMatchObject({
      line: 2,
      byteOffset: JSON.stringify(record(1)).length + 1,
      outcome: "invalid",
      errors: [{ path: "/spans/0/log/lines" }],
    });
    expect(outcomes[1]?.outcome === "invalid" && outcomes[1].reason).toMatch(/\/spans\/0\/log\/lines/);
  });

  it("keeps unknown fields and the raw value of skipped lines", () => {
    expect(classifyLine(JSON.stringify({ ...record(0), later: { a: 1 } }))).toMatchObject({ outcome: "record", record: { later: { a: 1 } } });
    expect(classifyLine(JSON.stringify({ v: 7, kind: "fold-index", z: 1 }))).toMatchObject({ outcome: "skipped", raw: { v: 7, z: 1 } });
  });
});

describe("appendRecord", () => {
  it("creates folders, writes one line per record, and reads them back", async () => {
    const file = join(dir, "w1", "deep", "seed-index.jsonl");
    await appendRecord(file, record(0));
    await appendRecord(file, { v: 2, kind: "fold-retract", seq: 0, at: "2026-07-28T21:15:00.000Z" }, { fsync: true });
    const text = readFileSync(file, "utf8");
    expect(text.split("\n")).toHaveLength(3);
    expect(text.endsWith("\n")).toBe(true);
    const { outcomes } = await readSeedIndexFile(file);
    expect(outcomes.map((o) => o.outcome)).toEqual(["record", "retract"]);
  });

  it("refuses an invalid record without touching the file", async () => {
    const file = join(dir, "w2.jsonl");
    await appendRecord(file, record(0));
    const before = readFileSync(file, "utf8");
    await expect(appendRecord(file, { ...record(1), seq: -1 })).rejects.toMatchObject({ code: "INVALID_RECORD", errors: [{ path: "/seq" }] });
    await expect(appendRecord(join(dir, "never", "x.jsonl"), { ...record(1), trigger: "oops" } as unknown as FoldIndexRecord)).rejects.toMatchObject({ code: "INVALID_RECORD" });
    expect(readFileSync(file, "utf8")).toBe(before);
  });

  it("heals a torn last line by starting on a fresh line; the torn bytes stay and are reported", async () => {
    const file = join(dir, "torn.jsonl");
    await appendRecord(file, record(0));
    appendFileSync(file, '{"v":2,"kind":"fold-ind');
    expect((await readSeedIndexFile(file)).outcomes.map((o) => o.outcome)).toEqual(["record", "torn-tail"]);
    await appendRecord(file, record(1));
    const { outcomes } = await readSeedIndexFile(file);
    expect(outcomes.map((o) => o.outcome)).toEqual(["record", "invalid", "record"]);
    expect(readFileSync(file, "utf8")).toContain('{"v":2,"kind":"fold-ind\n{');
  });
});

describe("appendNextRecord with a kept tail", () => {
  it("takes the next seq from what it appended last, and reads the tail again once another writer appended or tore it", async () => {
    const file = join(dir, "kept-tail.jsonl");
    const tail: AppendTail = {};
    expect((await appendNextRecord(file, (seq) => record(seq), { tail })).seq).toBe(0);
    expect(tail.known?.nextSeq).toBe(1);
    expect((await appendNextRecord(file, (seq) => record(seq), { tail })).seq).toBe(1);
    // Another writer (its own process, no shared tail) appends seq 7: the kept tail no longer describes the file.
    await appendRecord(file, record(7));
    expect((await appendNextRecord(file, (seq) => record(seq), { tail })).seq).toBe(8);
    // A torn line after our last append: read back, so the record still starts on a fresh line.
    appendFileSync(file, '{"v":2,"kind":"fold-ind');
    expect((await appendNextRecord(file, (seq) => record(seq), { tail })).seq).toBe(9);
    expect((await readSeedIndexFile(file)).outcomes.map((o) => (o.outcome === "record" ? o.record.seq : o.outcome))).toEqual([0, 1, 7, 8, "invalid", 9]);
  });

  it("forgets the tail when the build throws (nothing appended)", async () => {
    const file = join(dir, "kept-tail-throw.jsonl");
    const tail: AppendTail = {};
    await appendNextRecord(file, (seq) => record(seq), { tail });
    await expect(appendNextRecord(file, (seq) => ({ ...record(seq), trigger: "oops" }) as unknown as FoldIndexRecord, { tail })).rejects.toMatchObject({ code: "INVALID_RECORD" });
    expect(tail.known).toBeUndefined();
    expect((await appendNextRecord(file, (seq) => record(seq), { tail })).seq).toBe(1);
  });
});

describe("anchors, codes, block text", () => {
  it("refuses to format what cannot be read back", () => {
    expect(() => resultAnchor("")).toThrow(expect.objectContaining({ code: "INVALID_ANCHOR" }));
    expect(() => resultAnchor("call:edit:deadbeef")).toThrow(/read back differently/);
    expect(() => partAnchor("resp", -1)).toThrow(expect.objectContaining({ code: "INVALID_ANCHOR" }));
    expect(() => partAnchor("resp", 1.5)).toThrow(expect.objectContaining({ code: "INVALID_ANCHOR" }));
    expect(() => formatAnchor({ kind: "result", toolCallId: "x", editId: "NOT-AN-ID" })).toThrow(/not a Pi entry id/);
  });

  it("CodeAssigner keeps existing codes and takes 12 characters on a collision", () => {
    const taken = codeFor("r:b");
    const assigner = new CodeAssigner([["r:old", "k3f9a2"], ["r:squatter", taken]]);
    expect(assigner.assign("r:old")).toBe("k3f9a2");
    expect(assigner.assign("r:b")).toBe(codeFor("r:b", 12));
    expect(assigner.assign("r:b")).toBe(codeFor("r:b", 12));
    expect(assigner.assign("r:c")).toBe(codeFor("r:c"));
    expect(assigner.blockFor(codeFor("r:c"))).toBe("r:c");
  });

  it("verifySpanText names what differs", () => {
    expect(verifySpanText({}, "x")).toMatchObject({ verified: false, reason: expect.stringMatching(/no sha256/) });
    expect(verifySpanText({ sha256: sha256Hex("y") }, "x")).toMatchObject({ verified: false, reason: expect.stringMatching(/sha256 mismatch/) });
    expect(verifySpanText({ sha256: sha256Hex("x"), log: { bytes: 9, lines: 1 } }, "x")).toMatchObject({ verified: false, reason: expect.stringMatching(/log mismatch/) });
    expect(verifySpanText({ sha256: sha256Hex("x") }, "x")).toEqual({ verified: true });
  });

  it("joinTextParts ignores non-text parts and non-content values", () => {
    expect(joinTextParts(undefined)).toBe("");
    expect(joinTextParts([{ type: "toolCall", text: "no" }, null, 3, { type: "text", text: "yes" }])).toBe("yes");
  });
});

describe("adversarial inputs (every regex that sees record text is linear-time)", { timeout: LINEAR_TIME_MS }, () => {
  const mb = 1_000_000;
  it("parseAnchor on 1 MB of one character and of repeated markers", () => {
    for (const text of [`r:${":".repeat(mb)}`, `a:${":p".repeat(mb / 2)}x`, `a:${"0".repeat(mb)}`, `r:${":edit:".repeat(mb / 6)}`, `a:x:p${"1".repeat(mb)}`]) {
      expect(typeof parseAnchor(text).ok).toBe("boolean");
    }
  });

  it("validateRecord on 1 MB blockIds, timestamps and codes", () => {
    const blockIds = [`a:${":p".repeat(mb / 2)}`, `a:${"x".repeat(mb)}:p0:edit:${"d".repeat(mb)}`, `r:${"a".repeat(mb)}:edit:deadbee`];
    for (const blockId of blockIds) {
      const result = validateRecord({ ...record(0), spans: [{ blockId, code: "a".repeat(mb), turn: 0, log: { bytes: 0, lines: 0 } }] });
      expect(typeof result.ok).toBe("boolean");
    }
    expect(validateRecord({ ...record(0), at: `2026-07-28T21:14:03.${"0".repeat(mb)}` }).ok).toBe(false);
    expect(validateRecord({ ...record(0), spans: [{ ...record(0).spans[0], sha256: "a".repeat(mb) }] }).ok).toBe(false);
  });

  it("classifyLine on a 1 MB line of one character", () => {
    expect(classifyLine("{".repeat(mb)).outcome).toBe("invalid");
    expect(classifyLine(" ".repeat(mb)).outcome).toBe("skipped");
    expect(classifyLine(`${"\r".repeat(mb)}`).outcome).toBe("skipped");
  });
});
