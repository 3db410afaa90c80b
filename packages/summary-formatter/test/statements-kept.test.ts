// What the user said survives a compaction: long messages keep the words around what was pasted, the
// kept tail's statements and commits are listed too, statements the summary has no room for travel in
// the digest, and a foreign previous summary is clipped in its longest section first.
import { readSession } from "@context-fold/ledger-reader";
import { LINEAR_TIME_MS, tempDir } from "@context-fold/test-support";
import { compactSession, parseSummary, splitForeignSummary } from "@context-fold/summary-formatter";
import { describe, expect, it } from "vitest";
import { foreignSectionLines } from "../src/foreign-summary.js";
import { STATEMENT_MAX, statementLine } from "../src/statement-line.js";
import { piWriter } from "./pi-session.js";

const NOW = "2026-03-01T10:00:00.000Z";

describe("statementLine", () => {
  it("keeps a message that fits whole, whitespace flattened", () => {
    expect(statementLine("use pnpm,\n  never npm")).toBe("use pnpm, never npm");
  });

  it("drops a pasted list before the user's own closing words", () => {
    const list = Array.from({ length: 12 }, (_, i) => `  - custom thing ${String(i)}: read docs/thing-${String(i)}.md`).join("\n");
    const text = `ok, the documentation section needs to say where things are\n\n${list}\n\nplease update system-prompt.ts accordingly, keep it super concise. then check each of the mentioned .md files against the current state of affairs`;
    const line = statementLine(text);
    expect(line.length).toBeLessThanOrEqual(STATEMENT_MAX);
    expect(line).toContain("ok, the documentation section needs to say where things are");
    expect(line).toContain("keep it super concise");
    expect(line).toContain("current state of affairs");
  });

  it("keeps the ask after a pasted table and heading, and as much of the paste as fits", () => {
    const rows = Array.from({ length: 20 }, (_, i) => `| \`pkg-${String(i)}\` | purpose ${String(i)} |`).join("\n");
    const text = `## Available Imports\n\n| Package | Purpose |\n|---|---|\n${rows}\n\nis this true for hooks as well? then we should document it.`;
    const line = statementLine(text);
    expect(line.length).toBeLessThanOrEqual(STATEMENT_MAX);
    expect(line.endsWith("is this true for hooks as well? then we should document it.")).toBe(true);
    expect(line).toContain("pkg-0");
  });

  it("keeps a message that is mostly code as its code, clipped", () => {
    const code = Array.from({ length: 40 }, (_, i) => `const wrapped${String(i)} = session.agent.streamFn;`).join("\n");
    const line = statementLine(`what about this\n\`\`\`ts\n${code}\n\`\`\``);
    expect(line.startsWith("what about this ```ts const wrapped0 = session.agent.streamFn;")).toBe(true);
    expect(line.length).toBeLessThanOrEqual(STATEMENT_MAX);
  });

  it("clips long prose to its opening and closing", () => {
    const text = `${"opening words ".repeat(20)}${"middle ".repeat(200)}the closing ask is here`;
    const line = statementLine(text);
    expect(line.length).toBeLessThanOrEqual(STATEMENT_MAX);
    expect(line.startsWith("opening words")).toBe(true);
    expect(line).toContain(" … ");
    expect(line.endsWith("the closing ask is here")).toBe(true);
  });

  it("adversarial: reads a huge message in linear time (a megabyte of list items and fences)", { timeout: LINEAR_TIME_MS }, () => {
    const big = `${"- item\n```\n".repeat(100_000)}done`;
    expect(statementLine(big).length).toBeLessThanOrEqual(STATEMENT_MAX);
  });
});

describe("compaction keeps the user's statements", () => {
  it("lists the kept tail's statements and commits in the summary", async () => {
    const w = piWriter(tempDir());
    w.user("fix the login redirect in src/login.ts, it loops forever");
    w.assistant([{ type: "toolCall", id: "e1", name: "edit", arguments: { path: "src/login.ts", oldText: "a", newText: "b" } }]);
    w.result("e1", "edit", "ok");
    w.assistant([{ type: "text", text: "Fixed the loop." }]);
    w.user("that approach is too frail for my taste, use the router guard");
    w.assistant([{ type: "toolCall", id: "c1", name: "bash", arguments: { command: 'git commit -am "use router guard"' } }]);
    w.result("c1", "bash", "[main 9f8e7d6] use router guard\n 1 file changed");
    w.assistant([{ type: "text", text: "Committed." }]);
    const session = await readSession(w.file);
    const r = compactSession(session, { now: NOW, keepTail: 4 });
    const doc = parseSummary(r.summary);
    // The last turn is the kept tail: before this, neither its statement nor its commit was listed.
    expect(r.stats.keptMessages).toBeGreaterThan(0);
    expect(doc.statements.map((s) => s.text)).toContain("that approach is too frail for my taste, use the router guard");
    expect(doc.commits.map((c) => c.hash)).toContain("9f8e7d6");
  });

  it("names the files the kept tail writes, once, and raises a file read earlier to written", async () => {
    const w = piWriter(tempDir());
    w.user("make the retry budget configurable in src/retry.ts");
    w.assistant([{ type: "toolCall", id: "r1", name: "read", arguments: { path: "src/retry.ts" } }]);
    w.result("r1", "read", "export const RETRIES = 3;\n");
    w.assistant([{ type: "text", text: "Read it." }]);
    w.user("write the budget to config/retry.json and read it from there");
    w.assistant([{ type: "toolCall", id: "w1", name: "write", arguments: { path: "config/retry.json", content: "{\"retries\": 3}\n" } }]);
    w.result("w1", "write", "Successfully wrote 15 bytes to config/retry.json");
    w.assistant([{ type: "toolCall", id: "e1", name: "edit", arguments: { path: "src/retry.ts", oldText: "3", newText: "load().retries" } }]);
    w.result("e1", "edit", "Successfully replaced text in src/retry.ts.");
    w.assistant([{ type: "text", text: "Done." }]);
    const session = await readSession(w.file);
    const r = compactSession(session, { now: NOW, keepTail: 6 });
    const files = parseSummary(r.summary).files;
    // The second turn is the kept tail: its files were not listed before.
    expect(r.stats.keptMessages).toBeGreaterThan(0);
    expect(files.filter((f) => f.path === "config/retry.json").map((f) => f.status)).toEqual(["created"]);
    expect(files.filter((f) => f.path === "src/retry.ts").map((f) => f.status)).toEqual(["modified"]);
  });

  it("carries the statements the summary has no room for in the digest, oldest first out", async () => {
    const w = piWriter(tempDir());
    w.user("build the report exporter; the output goes to reports/ as csv");
    const said = Array.from({ length: 40 }, (_, i) => `constraint ${String(i)}: column ${String(i)} keeps its name qx${String(i)}z and its order`);
    for (const text of said) {
      w.user(text);
      w.assistant([{ type: "text", text: "Noted." }]);
    }
    w.user("now write it");
    w.assistant([{ type: "text", text: "Writing." }]);
    const session = await readSession(w.file);
    const r = compactSession(session, { now: NOW, budget: 600 });
    const doc = parseSummary(r.summary);
    expect(doc.statements.length).toBeLessThan(said.length);
    const inSummary = new Set(doc.statements.map((s) => s.text));
    const left = said.filter((s) => !inSummary.has(s));
    expect(left.length).toBeGreaterThan(0);
    expect(r.digest).toContain("User statements the summary had no room for:");
    // Every statement is in the summary, in the digest, or counted there with a recall pointer.
    const inDigest = left.filter((s) => r.digest.includes(s));
    expect(inDigest.length).toBeGreaterThan(0);
    expect(inDigest.length + r.stats.digest.omitted.statements).toBe(left.length);
    expect(r.stats.digest.statements).toBe(inDigest.length);
    for (const s of doc.statements) expect(r.digest).not.toContain(s.text);
  });
});

describe("foreign previous summary sections", () => {
  it("puts sections shortest first so a budget clips the longest one", () => {
    const done = Array.from({ length: 30 }, (_, i) => `- [x] step ${String(i)} done with a long description of what changed`).join("\n");
    const text = `## Goal\n- ship it\n\n## Progress\n### Done\n${done}\n\n## Critical Context\n- the browser cannot reach localhost; use file:// pages\n\n## Next Steps\n1. open the PR`;
    const lines = foreignSectionLines(splitForeignSummary(text));
    const at = (prefix: string): number => lines.findIndex((l) => l.startsWith(prefix));
    expect(lines[0]).toMatch(/^Sections: ## Goal → Session Goal; ## Progress \(30\); ## Critical Context \(1\); ## Next Steps \(1\)$/);
    expect(at("## Next Steps")).toBeLessThan(at("## Progress"));
    expect(at("## Critical Context")).toBeLessThan(at("## Progress"));
  });
});

describe("Pi's model-written file sections", () => {
  it("lifts the paths of `## Files Created/Modified` with the status its labels give", () => {
    const text = [
      "## Goal",
      "- refactor the agent",
      "",
      "## Files Created/Modified",
      "",
      "**New files:**",
      "- `/repo/src/core/agent-session.ts` (885 lines)",
      "- `/repo/docs/refactor.md` (full plan with checkboxes)",
      "",
      "**Modified:**",
      "- `/repo/src/main.ts` - wired the new session",
      "",
      "**Reference files (old code):**",
      "- `/repo/src/tui/tui-renderer.ts`",
      "",
      "## Next Steps",
      "- `npm run check` must pass",
    ].join("\n");
    const split = splitForeignSummary(text);
    expect(split.files.map((f) => [f.status, f.text])).toEqual([
      ["created", "/repo/src/core/agent-session.ts"],
      ["created", "/repo/docs/refactor.md"],
      ["modified", "/repo/src/main.ts"],
      ["read", "/repo/src/tui/tui-renderer.ts"],
    ]);
    expect(split.lifted).toContainEqual({ heading: "## Files Created/Modified", items: 4 });
    // A backticked command under another heading is no file.
    expect(split.sections.find((s) => s.heading === "## Next Steps")?.lines).toEqual(["- `npm run check` must pass"]);
  });
});
