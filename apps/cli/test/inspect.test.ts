// `context-fold inspect` on real fixtures and on files written by Pi's SessionManager.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describeShared, sharedFixture, tempDir } from "@context-fold/test-support";
import { afterEach, describe, expect, it } from "vitest";
import { cli } from "./support/run-cli.js";

afterEach(() => {
  process.exitCode = 0;
});

describeShared("context-fold inspect on fixtures", () => {
  it("--json carries the contract fields (v1 with two compactions)", async () => {
    const { stdout, exit } = await cli(["inspect", sharedFixture("sessions", "pi-mono__before-compaction.jsonl"), "--json"]);
    expect(exit).toBe(0);
    const doc = JSON.parse(stdout) as Record<string, unknown>;
    expect(doc).toMatchObject({
      version: 1,
      entries: 1002,
      byType: { message: 990, compaction: 2, model_change: 5, thinking_level_change: 5 },
      lineage: { length: 1002, leafId: "v1-001003" },
      branchPoints: [],
      damaged: [],
    });
    expect(doc["blocks"]).toBeGreaterThan(1000);
    expect(doc["compactions"]).toEqual([
      expect.objectContaining({ number: 1, id: "v1-000360", firstKeptEntryId: "v1-000294", segment: { from: 0, to: expect.any(Number) as number } }),
      expect.objectContaining({ number: 2, id: "v1-000629", firstKeptEntryId: "v1-000552" }),
    ]);
  });

  it("reports the torn line as recovered damage, with what it does to Pi's view, and exits 1 (inspect checks)", async () => {
    const { stdout, exit } = await cli(["inspect", sharedFixture("sessions", "pi-mono-history__session.jsonl"), "--json"]);
    expect(exit).toBe(1);
    const doc = JSON.parse(stdout) as { damaged: unknown[] };
    expect(doc.damaged).toEqual([
      {
        line: 440,
        byteOffset: 918629,
        kind: "torn-line",
        reason: expect.stringContaining("glued") as string,
        recovered: true,
        consequences: [{ kind: "dropped-by-pi", entries: 2 }],
      },
    ]);
  });

  it("human output names version, lineage, branch points and compactions", async () => {
    const { stdout, exit } = await cli(["inspect", sharedFixture("sessions", "generated-pi-1.6.0__sessionmanager-all-entry-types.jsonl")]);
    expect(exit).toBe(0);
    expect(stdout).toContain("format v3");
    expect(stdout).toContain("branch points: cc1e38d3, 9f2b3327");
    expect(stdout).toContain("lineage 15 entries, leaf f3a2921b");
    expect(stdout).toMatch(/compaction 1: 9f2b3327, kept from 89d165a5, summarized #0–#5/);
  });
});

describe("context-fold inspect on damaged and foreign files", () => {
  const dir = tempDir("cli-inspect-");
  const header = JSON.stringify({ type: "session", version: 3, id: "s1", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/p" });
  const entry = JSON.stringify({ type: "message", id: "a0000001", parentId: null, timestamp: "2026-01-01T00:00:01.000Z", message: { role: "user", content: "hi", timestamp: 1 } });

  it("an unrecoverable line exits 1 and is listed", async () => {
    const file = join(dir, "bad.jsonl");
    writeFileSync(file, `${header}\n{oops\n${entry}\n`);
    const { stdout, exit } = await cli(["inspect", file, "--json"]);
    expect(exit).toBe(1);
    expect((JSON.parse(stdout) as { damaged: unknown[] }).damaged).toEqual([
      expect.objectContaining({ line: 2, byteOffset: header.length + 1, kind: "malformed", recovered: false }),
    ]);
  });

  it("not a session, a fragment, a missing file: exit 2 with a message, no stack", async () => {
    const text = join(dir, "notes.txt");
    writeFileSync(text, "just some notes\n");
    const fragment = join(dir, "fragment.jsonl");
    writeFileSync(fragment, `${entry}\n`);
    for (const [file, code] of [
      [text, "not a Pi session"],
      [fragment, "fragment"],
      [join(dir, "missing.jsonl"), "no such file"],
    ] as const) {
      const { stdout, stderr, exit } = await cli(["inspect", file, "--json"]);
      expect(exit).toBe(2);
      // Under --json the refusal is the one JSON document on stdout; the message is on stderr too.
      expect((JSON.parse(stdout) as { error: { message: string } }).error.message).toContain(code);
      expect(stderr).toContain(code);
      expect(stderr).not.toMatch(/\n\s+at /);
    }
  });
});
