// `context-fold compact`: summary text, --json document, --format pi, --previous, --keep-tail, errors.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SessionManager } from "@earendil-works/pi-coding-agent";
import { describeShared, sharedFixture, tempDir } from "@context-fold/test-support";
import { afterEach, describe, expect, it } from "vitest";
import { cli } from "./support/run-cli.js";

afterEach(() => {
  process.exitCode = 0;
});

const FOUNDING = "Add retry with backoff to the HTTP client in src/http/client.ts.";
const usage = { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };

function piSession(dir: string): { file: string; sm: SessionManager } {
  const sm = SessionManager.create(join(dir, "project"), dir);
  let t = Date.parse("2026-04-01T08:00:00.000Z");
  const assistant = (content: unknown[]): void =>
    void sm.appendMessage({ role: "assistant", content, api: "anthropic-messages", provider: "anthropic", model: "m", usage, stopReason: "toolUse", timestamp: (t += 1000) } as never);
  const result = (id: string, name: string, text: string, isError = false): void =>
    void sm.appendMessage({ role: "toolResult", toolCallId: id, toolName: name, content: [{ type: "text", text }], isError, timestamp: (t += 1000) } as never);
  sm.appendMessage({ role: "user", content: FOUNDING, timestamp: (t += 1000) } as never);
  assistant([{ type: "toolCall", id: "a", name: "edit", arguments: { path: "src/http/client.ts", oldText: "x", newText: "export function retry(n: number): void {" } }]);
  result("a", "edit", "Successfully replaced text in src/http/client.ts.");
  assistant([{ type: "toolCall", id: "b", name: "bash", arguments: { command: "git commit -am 'retry with backoff'" } }]);
  result("b", "bash", "[main 9f8e7d6] retry with backoff\n 1 file changed");
  sm.appendMessage({ role: "user", content: "Now add jitter.", timestamp: (t += 1000) } as never);
  assistant([{ type: "text", text: "Adding jitter." }]);
  return { file: sm.getSessionFile() ?? "", sm };
}

describe("context-fold compact", () => {
  it("prints the summary, and --json the whole result, byte-identical on repeat", async () => {
    const { file } = piSession(tempDir());
    const human = await cli(["compact", file]);
    expect(human.exit).toBe(0);
    expect(human.stdout.startsWith("[context-fold summary v1]\n")).toBe(true);
    expect(human.stdout).toContain(`- [Founding request] ${FOUNDING} (#0)`);
    expect(human.stdout).toContain("- 9f8e7d6: retry with backoff");
    // Default time: the last entry's timestamp.
    const lastLine = readFileSync(file, "utf8").trimEnd().split("\n").pop() ?? "{}";
    expect(human.stdout).toContain(`Compacted at ${(JSON.parse(lastLine) as { timestamp: string }).timestamp} | `);
    const json = await cli(["compact", file, "--json", "--now", "2026-04-02T00:00:00.000Z"]);
    const doc = JSON.parse(json.stdout) as { summary: string; firstKeptEntryId: string; tokensBefore: number; estimatedTokensAfter: number; digest: string; stats: { summary: { budget: number } } };
    expect(Object.keys(doc)).toEqual(["summary", "firstKeptEntryId", "tokensBefore", "estimatedTokensAfter", "digest", "stats"]);
    expect(doc.summary).toContain("Compacted at 2026-04-02T00:00:00.000Z");
    expect(doc.tokensBefore).toBeGreaterThan(0);
    expect(doc.digest).toContain(FOUNDING);
    expect(doc.stats.summary.budget).toBe(4000);
    expect((await cli(["compact", file, "--json", "--now", "2026-04-02T00:00:00.000Z"])).stdout).toBe(json.stdout);
  });

  it("--format pi, --budget, --keep-tail and --previous", async () => {
    const dir = tempDir();
    const { file } = piSession(dir);
    const pi = await cli(["compact", file, "--format", "pi", "--budget", "300"]);
    expect(pi.stdout.startsWith("## Goal\n")).toBe(true);
    expect(pi.stdout).toContain("<modified-files>\nsrc/http/client.ts\n</modified-files>");
    expect(Math.ceil(Buffer.byteLength(pi.stdout.slice(0, -1)) / 4)).toBeLessThanOrEqual(300);
    const keep = JSON.parse((await cli(["compact", file, "--json", "--keep-tail", "1"])).stdout) as { stats: { keptMessages: number } };
    expect(keep.stats.keptMessages).toBe(1);
    const prev = join(dir, "prev.txt");
    writeFileSync(prev, "## Goal\nAn earlier summary by someone else.\n");
    const merged = await cli(["compact", file, "--previous", prev]);
    // A file's summary has no block to point to: kept section by section, each heading with its count.
    expect(merged.stdout).toContain("[Previous Summary]\n- from file:\n  Sections: ## Goal (1)\n  ## Goal (1 item)\n  An earlier summary by someone else.\n");
  });

  it("uses the latest compaction on the lineage as the previous summary", async () => {
    const dir = tempDir();
    const { file, sm } = piSession(dir);
    const first = JSON.parse((await cli(["compact", file, "--json"])).stdout) as { summary: string; firstKeptEntryId: string; tokensBefore: number };
    sm.appendCompaction(first.summary, first.firstKeptEntryId, first.tokensBefore, undefined, true);
    sm.appendMessage({ role: "user", content: "Also log each retry.", timestamp: Date.parse("2026-04-01T09:00:00.000Z") } as never);
    const second = JSON.parse((await cli(["compact", file, "--json", "--keep-tail", "1"])).stdout) as { summary: string; stats: { summary: { previous: string } } };
    expect(second.stats.summary.previous).toBe("merged");
    expect(second.summary).toContain(`- [Founding request] ${FOUNDING} (#0)`);
  });

  it("exits 2 on bad options and unreadable input, 1 when nothing can be compacted", async () => {
    const dir = tempDir();
    const { file } = piSession(dir);
    for (const args of [
      ["compact", file, "--format", "xml"],
      ["compact", file, "--budget", "ten"],
      ["compact", file, "--budget", "10"],
      ["compact", file, "--keep-tail", "0"],
      ["compact", file, "--now", "yesterday"],
      ["compact", join(dir, "missing.jsonl")],
      ["compact", file, "--previous", join(dir, "missing.txt")],
    ]) {
      const r = await cli(args);
      expect(r.exit, args.join(" ")).toBe(2);
      expect(r.stdout).toBe("");
      expect(r.stderr).not.toContain("    at ");
    }
    const nothing = await cli(["compact", file, "--keep-tail", "500"]);
    expect(nothing.exit).toBe(1);
    expect(nothing.stderr).toContain("nothing to compact");
  });
});

describeShared("context-fold compact on a real fixture", () => {
  it("keeps pi-mono's two LLM compactions as [Previous Summary]", async () => {
    const r = await cli(["compact", sharedFixture("sessions", "pi-mono__before-compaction.jsonl"), "--json"]);
    expect(r.exit).toBe(0);
    const doc = JSON.parse(r.stdout) as { summary: string; firstKeptEntryId: string };
    expect(doc.summary).toContain("- from compaction 1 (#");
    expect(doc.summary).toContain("- from compaction 2 (#");
    expect(doc.firstKeptEntryId).toMatch(/^v1-\d{6}$/);
  });
});
