// Damaged and foreign files: every problem is reported with line, byte offset and reason, or is a typed
// LedgerError — never a stack trace, never a silent drop.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { LINEAR_TIME_MS, tempDir } from "@context-fold/test-support";
import { LedgerError, parseSessionText, readSession } from "@context-fold/ledger-reader";
import { describe, expect, it } from "vitest";
import { expectSameAsPi, openWithPi } from "./pi-oracle.js";

const header = JSON.stringify({ type: "session", version: 3, id: "s1", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/p" });
function entry(id: string, parentId: string | null, text: string): string {
  return JSON.stringify({ type: "message", id, parentId, timestamp: "2026-01-01T00:00:01.000Z", message: { role: "user", content: text, timestamp: 1 } });
}

async function errorOf(promise: Promise<unknown>): Promise<LedgerError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof LedgerError) return error;
    throw error;
  }
  throw new Error("expected a LedgerError");
}

describe("damage is recovered and reported", () => {
  it("blank and malformed lines: reported with line, byte offset, reason; the rest is read", () => {
    const lines = [header, entry("a0000001", null, "one"), "", "{not json", entry("a0000002", "a0000001", "two")];
    const text = `${lines.join("\n")}\n`;
    const session = parseSessionText(text);
    expect(session.entries.map((e) => e.id)).toEqual(["a0000001", "a0000002"]);
    const offsetOf = (n: number): number => Buffer.byteLength(lines.slice(0, n - 1).map((l) => `${l}\n`).join(""));
    expect(session.damaged).toEqual([
      { line: 3, byteOffset: offsetOf(3), kind: "blank", reason: "blank line", recovered: false },
      expect.objectContaining({ line: 4, byteOffset: offsetOf(4), kind: "malformed", recovered: false }),
    ]);
    expect(session.damaged[1]?.reason).toMatch(/^not valid JSON/);
  });

  it("a last line without newline that parses is taken and reported", () => {
    const text = `${header}\n${entry("a0000001", null, "one")}`;
    const session = parseSessionText(text);
    expect(session.entries).toHaveLength(1);
    expect(session.byteLength).toBe(Buffer.byteLength(text));
    expect(session.damaged).toEqual([expect.objectContaining({ line: 2, kind: "no-trailing-newline", recovered: true })]);
  });

  it("a torn tail (no newline, does not parse) is reported and not consumed", () => {
    const full = `${header}\n${entry("a0000001", null, "one")}\n`;
    const text = `${full}${entry("a0000002", "a0000001", "two").slice(0, 30)}`;
    const session = parseSessionText(text);
    expect(session.entries).toHaveLength(1);
    expect(session.byteLength).toBe(Buffer.byteLength(full));
    expect(session.damaged).toEqual([expect.objectContaining({ line: 3, byteOffset: Buffer.byteLength(full), kind: "no-trailing-newline", recovered: false })]);
  });

  it("a torn line whose first object is cut short recovers the whole second object", () => {
    const cut = entry("a0000002", "a0000001", "two").slice(0, 40);
    const glued = `${cut}}${entry("a0000003", "a0000001", "three")}`;
    const session = parseSessionText(`${header}\n${entry("a0000001", null, "one")}\n${glued}\n`);
    expect(session.entries.map((e) => [e.id, e.recovered])).toEqual([
      ["a0000001", false],
      ["a0000003", true],
    ]);
    expect(session.damaged).toEqual([expect.objectContaining({ line: 3, kind: "torn-line", recovered: false })]);
  });

  it("UTF-8: byte offsets count bytes, not characters", () => {
    const first = entry("a0000001", null, "héllo wörld — ✓ 🎉");
    const text = `${header}\n${first}\n${entry("a0000002", "a0000001", "x")}\n`;
    const session = parseSessionText(text);
    const bytes = Buffer.from(text);
    for (const e of session.entries) {
      expect(JSON.parse(bytes.subarray(e.byteOffset, e.byteOffset + e.byteLength).toString("utf8"))).toMatchObject({ id: e.id });
    }
  });

  it("self-parents, orphans and cycles are roots or stop the walk; never a hang", () => {
    const lines = [
      header,
      entry("a0000001", "a0000001", "self"),
      entry("a0000002", "ffffffff", "orphan"),
      entry("a0000003", "a0000002", "child"),
    ];
    const session = parseSessionText(`${lines.join("\n")}\n`);
    expect(session.roots).toEqual(["a0000001", "a0000002"]);
    expect(session.lineage.map((e) => e.id)).toEqual(["a0000002", "a0000003"]);
    const cyc = parseSessionText(`${[header, entry("b0000001", "b0000002", "x"), entry("b0000002", "b0000001", "y")].join("\n")}\n`);
    expect(cyc.lineage.map((e) => e.id)).toEqual(["b0000001", "b0000002"]);
  });

  it("bare null/false/0 lines are skipped like Pi skips them, before the header too, and do not shift v1 indexes", () => {
    const v1Header = JSON.stringify({ type: "session", id: "old", timestamp: "2025-01-01T00:00:00.000Z", cwd: "/p" });
    const msg = (text: string): string => JSON.stringify({ type: "message", timestamp: "2025-01-01T00:00:01.000Z", message: { role: "user", content: text, timestamp: 1 } });
    // Pi's index 2 (header = 0) is the second message: lines "null" and "0" are not entries for Pi.
    const compaction = JSON.stringify({ type: "compaction", timestamp: "2025-01-01T00:00:02.000Z", summary: "s", firstKeptEntryIndex: 2, tokensBefore: 1 });
    const session = parseSessionText(`null\n${v1Header}\n${msg("a")}\n0\n${msg("b")}\n${compaction}\n`);
    expect(session.entries.map((e) => e.id)).toEqual(["v1-000003", "v1-000005", "v1-000006"]);
    expect(session.compactions[0]?.firstKeptEntryId).toBe("v1-000005");
    const file = join(tempDir(), "v1-bare.jsonl");
    writeFileSync(file, `null\n${v1Header}\n${msg("a")}\n0\n${msg("b")}\n${compaction}\n`);
    expectSameAsPi(session, openWithPi(file, tempDir()));
    expect(session.damaged.map((d) => [d.line, d.kind])).toEqual([
      [1, "not-an-entry"],
      [4, "not-an-entry"],
    ]);
  });

  it("a second header and non-object lines are reported as not-an-entry", () => {
    const session = parseSessionText(`${header}\n${header}\n[1,2]\n42\n${entry("a0000001", null, "x")}\n`);
    expect(session.entries).toHaveLength(1);
    expect(session.damaged.map((d) => [d.line, d.kind])).toEqual([
      [2, "not-an-entry"],
      [3, "not-an-entry"],
      [4, "not-an-entry"],
    ]);
  });
});

describe("files that are not sessions get typed errors", () => {
  it("missing file, directory, empty file", async () => {
    const dir = tempDir();
    expect((await errorOf(readSession(join(dir, "nope.jsonl")))).code).toBe("NOT_FOUND");
    mkdirSync(join(dir, "d.jsonl"));
    expect((await errorOf(readSession(join(dir, "d.jsonl")))).code).toBe("UNREADABLE");
    writeFileSync(join(dir, "empty.jsonl"), "");
    expect((await errorOf(readSession(join(dir, "empty.jsonl")))).code).toBe("EMPTY");
  });

  it("a fragment without its header", async () => {
    const file = join(tempDir(), "frag.jsonl");
    writeFileSync(file, `${entry("a0000001", null, "x")}\n`);
    const error = await errorOf(readSession(file));
    expect(error.code).toBe("NO_HEADER");
    expect(error.line).toBe(1);
    expect(error.byteOffset).toBe(0);
    expect(error.message).toContain("frag.jsonl");
  });

  it("something else entirely", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "a.jsonl"), '{"name":"package","version":"1.0.0"}\n');
    expect((await errorOf(readSession(join(dir, "a.jsonl")))).code).toBe("NOT_A_SESSION");
    writeFileSync(join(dir, "b.jsonl"), "hello world\nthis is text\n");
    expect((await errorOf(readSession(join(dir, "b.jsonl")))).code).toBe("NOT_A_SESSION");
  });
});

describe("adversarial lines stay linear", { timeout: LINEAR_TIME_MS }, () => {
  it("a 1 MB line of glue seams and a 1 MB line of one char", () => {
    const seams = '}{"type"'.repeat(131_072);
    const ones = "{".repeat(1 << 20);
    const session = parseSessionText(`${header}\n${seams}\n${ones}\n${entry("a0000001", null, "ok")}\n`);
    expect(session.entries.map((e) => e.id)).toEqual(["a0000001"]);
    expect(session.damaged.map((d) => [d.line, d.kind, d.recovered])).toEqual([
      [2, "torn-line", false],
      [3, "malformed", false],
    ]);
  });

  it("the salvage scan of 1 MB malformed lines of quotes, backslashes and key-value pairs", () => {
    const quotes = `{"text":${'"\\'.repeat(1 << 18)}`;
    const pairs = `{"id":"x",${'"text":"a\\*",'.repeat(1 << 16)}`;
    const session = parseSessionText(`${header}\n${quotes}\n${pairs}\n${entry("a0000001", null, "ok")}\n`);
    expect(session.entries.map((e) => e.id)).toEqual(["a0000001"]);
    expect(session.damaged.map((d) => [d.line, d.kind])).toEqual([
      [2, "malformed"],
      [3, "malformed"],
    ]);
    expect(session.damaged[1]?.salvage?.id).toBe("x");
    expect(session.damaged[1]?.salvage?.text.split("\n")).toHaveLength(1 << 16);
    // A torn line of 65k broken pieces, each with readable text: salvaged in one pass.
    const pieces = `${'{"type":"message","text":"t'.repeat(1)}${'"}{"type":"x","text":"t\\*'.repeat(1 << 16)}`;
    const torn = parseSessionText(`${header}\n${pieces}\n`);
    expect(torn.damaged[0]?.kind).toBe("torn-line");
    expect(torn.damaged[0]?.salvage?.text.split("\n").length).toBeGreaterThan(1 << 15);
  });
});

describe("v2 files", () => {
  it("hookMessage becomes custom in memory, as Pi migrates it; the file is untouched", async () => {
    const v2 = [
      JSON.stringify({ type: "session", version: 2, id: "v2s", timestamp: "2025-06-01T00:00:00.000Z", cwd: "/p" }),
      JSON.stringify({ type: "message", id: "aa000001", parentId: null, timestamp: "2025-06-01T00:00:01.000Z", message: { role: "user", content: "hi", timestamp: 1 } }),
      JSON.stringify({ type: "message", id: "aa000002", parentId: "aa000001", timestamp: "2025-06-01T00:00:02.000Z", message: { role: "hookMessage", customType: "hook", content: "injected", display: true, timestamp: 2 } }),
    ];
    const file = join(tempDir(), "v2.jsonl");
    writeFileSync(file, `${v2.join("\n")}\n`);
    const session = await readSession(file);
    expect(session.header.version).toBe(2);
    expect(session.blocks.map((b) => [b.kind, b.role, b.text])).toEqual([
      ["user", "user", "hi"],
      ["custom", "custom", "injected"],
    ]);
    expectSameAsPi(session, openWithPi(file, tempDir()));
    expect(readFileSync(file, "utf8")).toBe(`${v2.join("\n")}\n`);
  });
});

