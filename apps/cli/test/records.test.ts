// `context-fold records validate|show` on real seed-index files written by the format package's writer.
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { appendRecord, codeFor, type FoldIndexRecord, HARNESS, resultAnchor, sha256Hex } from "@context-fold/seed-index-format";
import { tempDir } from "@context-fold/test-support";
import { afterEach, describe, expect, it } from "vitest";
import { cli } from "./support/run-cli.js";

afterEach(() => {
  process.exitCode = 0;
});

const record = (seq: number, over: Partial<FoldIndexRecord> = {}): FoldIndexRecord => ({
  v: 2,
  kind: "fold-index",
  harness: HARNESS,
  session: "s-1",
  seq,
  at: "2026-07-28T21:14:03.000Z",
  trigger: "threshold",
  files: ["src/a.ts"],
  commands: ["npm test"],
  errors: [],
  identifiers: ["RECALL_SLICE_TOKEN_CAP"],
  userMessages: [{ turn: 1, firstLine: "fold it" }],
  spans: [{ blockId: resultAnchor(`call_${seq}`), code: codeFor(`r:call_${seq}`), tool: "bash", turn: 1, log: { bytes: 1, lines: 1 }, sha256: sha256Hex("x") }],
  ...over,
});

const dir = tempDir("cli-records-");

async function cleanIndex(name: string): Promise<string> {
  const file = join(dir, name, "seed-index.jsonl");
  await appendRecord(file, record(0));
  await appendRecord(file, record(1));
  await appendRecord(file, record(1, { trigger: "compact", "x-note": "kept" } as Partial<FoldIndexRecord>));
  await appendRecord(file, record(2));
  await appendRecord(file, { v: 2, kind: "fold-retract", seq: 2, at: "2026-07-28T21:15:00.000Z" });
  return file;
}

describe("records validate", () => {
  it("prints every line's outcome and exits 0 for a clean file", async () => {
    const file = await cleanIndex("clean");
    appendFileSync(file, "\n");
    appendFileSync(file, `${JSON.stringify({ v: 3, kind: "fold-index" })}\n`);
    const r = await cli(["records", "validate", file, "--json"]);
    expect(r.exit).toBe(0);
    const doc = JSON.parse(r.stdout) as { valid: boolean; counts: Record<string, number>; outcomes: { line: number; outcome: string; reason?: string }[] };
    expect(doc.valid).toBe(true);
    expect(doc.counts).toEqual({ record: 4, retract: 1, skipped: 2, invalid: 0, "torn-tail": 0 });
    expect(doc.outcomes.map((o) => o.outcome)).toEqual(["record", "record", "record", "record", "retract", "skipped", "skipped"]);
    expect(doc.outcomes[6]?.reason).toMatch(/v3 is newer/);
    const human = await cli(["records", "validate", file]);
    expect(human.exit).toBe(0);
    expect(human.stdout).toMatch(/line 5 \(byte \d+\): retract seq 2/);
    expect(human.stdout).toMatch(/7 line\(s\): 4 record, 1 retract, 2 skipped, 0 invalid, 0 torn-tail/);
  });

  it("exits 1 when any line is invalid, naming the line, offset and JSON path", async () => {
    const file = await cleanIndex("bad");
    appendFileSync(file, `${JSON.stringify({ ...record(3), seq: -1 })}\nnot json\n`);
    const r = await cli(["records", "validate", file, "--json"]);
    expect(r.exit).toBe(1);
    const doc = JSON.parse(r.stdout) as { valid: boolean; outcomes: { line: number; byteOffset: number; outcome: string; reason?: string; errors?: { path: string }[] }[] };
    expect(doc.valid).toBe(false);
    expect(doc.outcomes[5]).toMatchObject({ line: 6, outcome: "invalid", errors: [{ path: "/seq" }] });
    expect(doc.outcomes[6]).toMatchObject({ line: 7, outcome: "invalid", reason: expect.stringMatching(/malformed JSON/) });
    const human = await cli(["records", "validate", file]);
    expect(human.exit).toBe(1);
    expect(human.stdout).toMatch(/line 6 \(byte \d+\): invalid shape error at \/seq/);
  });

  it("reports a torn tail and still exits 0", async () => {
    const file = await cleanIndex("torn");
    appendFileSync(file, '{"v":2,"kind":"fold-in');
    const r = await cli(["records", "validate", file, "--json"]);
    expect(r.exit).toBe(0);
    expect((JSON.parse(r.stdout) as { outcomes: { outcome: string }[] }).outcomes.at(-1)).toMatchObject({ outcome: "torn-tail", line: 6 });
  });

  it("exits 2 for a missing or unreadable file, with a message and no stack", async () => {
    const missing = await cli(["records", "validate", join(dir, "nope.jsonl")]);
    expect(missing.exit).toBe(2);
    expect(missing.stdout).toBe("");
    expect(missing.stderr).toMatch(/no such seed index/);
    const folder = join(dir, "folder");
    mkdirSync(folder);
    const unreadable = await cli(["records", "validate", folder, "--json"]);
    expect(unreadable.exit).toBe(2);
    expect(unreadable.stderr).toMatch(/cannot read seed index/);
    expect(unreadable.stderr).not.toMatch(/\n\s+at /);
  });
});

describe("records show", () => {
  it("prints the current view as stored, with diagnostics", async () => {
    const file = await cleanIndex("show");
    appendFileSync(file, "garbage\n");
    const r = await cli(["records", "show", file, "--json"]);
    const doc = JSON.parse(r.stdout) as { records: Record<string, unknown>[]; diagnostics: { line: number; reason: string }[] };
    expect(doc.records.map((x) => [x["seq"], x["trigger"]])).toEqual([[0, "threshold"], [1, "compact"]]);
    expect(doc.records[1]?.["x-note"]).toBe("kept");
    expect(doc.diagnostics).toEqual([{ line: 6, reason: expect.stringMatching(/^invalid: malformed JSON/) }]);
    expect(r.exit).toBe(1);
  });

  it("--archival keeps superseded records and drops retracted ones", async () => {
    const file = await cleanIndex("archival");
    const r = await cli(["records", "show", file, "--archival", "--json"]);
    expect(r.exit).toBe(0);
    const doc = JSON.parse(r.stdout) as { records: { seq: number; trigger: string }[]; diagnostics: unknown[] };
    expect(doc.records.map((x) => [x.seq, x.trigger])).toEqual([[0, "threshold"], [1, "threshold"], [1, "compact"]]);
    expect(doc.diagnostics).toEqual([]);
  });

  it("prints v1 records as stored", async () => {
    const file = join(dir, "v1.jsonl");
    const v1 = { ...record(0), v: 1, spans: [{ blockId: "r:call_0", code: "k3f9a2", turn: 1, log: { path: "/spool", byteStart: 0, byteEnd: 10 } }] };
    writeFileSync(file, `${JSON.stringify(v1)}\n`);
    const r = await cli(["records", "show", file, "--json"]);
    expect(JSON.parse(r.stdout)).toEqual({ records: [v1], diagnostics: [] });
  });

  it("prints a human view with spans, diagnostics on stderr", async () => {
    const file = await cleanIndex("human");
    appendFileSync(file, "\n");
    const r = await cli(["records", "show", file]);
    expect(r.exit).toBe(0);
    expect(r.stdout).toMatch(/^2 record\(s\) in the current view/);
    expect(r.stdout).toContain(`${codeFor("r:call_1")} r:call_1 bash turn 1 1 B / 1 lines`);
    expect(r.stderr).toMatch(/:6: skipped: blank line/);
  });
});
