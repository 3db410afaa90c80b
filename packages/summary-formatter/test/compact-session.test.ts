// compactSession on sessions written by Pi's SessionManager: golden output for both layouts, byte-identical
// repeats, (#N) refs that expand to the block each line describes, the cut, merging and the digest.
import { readFileSync, writeFileSync, existsSync, copyFileSync } from "node:fs";
import { join } from "node:path";
import { readSession, type Session } from "@context-fold/ledger-reader";
import { LINEAR_TIME_MS, tempDir } from "@context-fold/test-support";
import {
  briefLines,
  briefTail,
  buildDigest,
  compactSession,
  compactWithFacts,
  estimateTokens,
  parseSummary,
  planCut,
  splitForeignSummary,
  SummaryError,
} from "@context-fold/summary-formatter";
import { SessionManager } from "@earendil-works/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { authSession, CORRECTION, factsBefore, FOUNDING, piWriter } from "./pi-session.js";
import { checkRefs } from "./ref-check.js";

const GOLDEN = join(import.meta.dirname, "fixtures", "golden");
const NOW = "2026-03-01T10:00:00.000Z";

/** Compare with a golden file; UPDATE_GOLDEN=1 rewrites it (never set in CI). */
function golden(name: string, text: string): void {
  const file = join(GOLDEN, name);
  if (process.env["UPDATE_GOLDEN"] === "1" && process.env["CI"] === undefined) writeFileSync(file, text);
  expect(existsSync(file), `${name} missing: run with UPDATE_GOLDEN=1 and review the diff`).toBe(true);
  expect(text).toBe(readFileSync(file, "utf8"));
}

async function auth(): Promise<Session> {
  const w = authSession(tempDir());
  return readSession(w.file);
}

/** Normalizes the temp dir out of a summary so golden files do not depend on it. */
function stable(text: string, session: Session): string {
  return session.header.cwd === undefined ? text : text.replaceAll(session.header.cwd, "<cwd>");
}

describe("compactSession on a Pi-written session", () => {
  it("matches the golden summaries in both layouts and repeats byte for byte", async () => {
    const session = await auth();
    const a = compactSession(session, { now: NOW });
    const b = compactSession(await readSession(session.path), { now: NOW });
    expect(b).toEqual(a);
    golden("auth-brackets.txt", stable(a.summary, session));
    golden("auth-pi.txt", stable(compactSession(session, { now: NOW, format: "pi" }).summary, session));
    golden("auth-digest.txt", stable(a.digest, session));
  });

  it("keeps the founding request and corrections verbatim and lists files, commit and the open failure", async () => {
    const session = await auth();
    const r = compactSession(session, { now: NOW });
    const doc = parseSummary(r.summary);
    expect(doc.goal?.text).toBe(FOUNDING);
    expect(doc.corrections.map((c) => c.text)).toEqual([CORRECTION]);
    expect(doc.files.find((f) => f.path === "src/auth/session.ts")?.status).toBe("modified");
    expect(doc.commits.map((c) => c.hash)).toEqual(["1a2b3c4"]);
    expect(doc.outstanding.some((o) => o.tag === "ERROR" && o.text.includes("refresh token should work"))).toBe(true);
    expect(doc.outstanding.some((o) => o.tag === "RESOLVED" && o.text.includes("TS2304"))).toBe(true);
    expect(r.digest).toContain(`  ${FOUNDING.split("\n")[1] ?? ""} (#0)`);
    expect(r.digest.trimEnd().split("\n").pop()).toMatch(/^preserved verbatim: 1 initial prompt\(s\), 1 corrections \(~\d+ B\)$/);
    expect(r.stats.summary.withinBudget).toBe(true);
  });

  it("every (#N) expands through the ledger reader to the block its line describes", async () => {
    const session = await auth();
    const r = compactSession(session, { now: NOW, keepTail: 1 });
    expect(checkRefs(session, r.summary)).toBeGreaterThan(10);
  });

  it("builds only the brief tail it keeps, counting the earlier lines", async () => {
    const session = await auth();
    const all = briefLines(session.blocks);
    for (const n of [0, 1, 5, all.length, all.length + 3]) {
      const tail = briefTail(session.blocks, n);
      expect(tail.lines).toEqual(n === 0 ? [] : all.slice(-n));
      expect(tail.earlier).toBe(all.length - tail.lines.length);
    }
  });

  it("cuts at the last user turn, never at a tool result, and reports what Pi's hook expects", async () => {
    const session = await auth();
    const plan = planCut(session);
    const kept = session.byId.get(plan.firstKeptEntryId);
    expect((kept?.raw["message"] as { role?: string } | undefined)?.role).toBe("user");
    expect(plan.keptMessages).toBe(4);
    expect(plan.tokensBefore).toBeGreaterThan(plan.keptTokens);
    for (let n = 1; n <= 12; n++) {
      const p = planCut(session, { keepTail: n });
      const role = (session.byId.get(p.firstKeptEntryId)?.raw["message"] as { role?: string } | undefined)?.role;
      expect(role).not.toBe("toolResult");
      expect(p.keptMessages).toBeGreaterThanOrEqual(n);
      // A call and its result are on the same side of the cut.
      const summarizedCalls = new Set(p.summarizedBlocks.filter((b) => b.kind === "toolCall").map((b) => b.toolCallId));
      for (const b of p.keptBlocks) if (b.kind === "toolResult") expect(summarizedCalls.has(b.toolCallId)).toBe(false);
    }
    expect(() => planCut(session, { keepTail: 500 })).toThrow(SummaryError);
  });

  it("Pi accepts the cut: after appendCompaction its context is the summary, then the kept tail", async () => {
    const w = authSession(tempDir());
    const session = await readSession(w.file);
    const r = compactSession(session, { now: NOW });
    const plan = planCut(session);
    w.sm.appendCompaction(r.summary, r.firstKeptEntryId, r.tokensBefore, undefined, true);
    const entries = w.sm.buildContextEntries();
    expect(entries[0]?.type).toBe("compaction");
    expect(entries[1]?.id).toBe(r.firstKeptEntryId);
    expect(entries.length - 1).toBe(plan.keptMessages);
    // The extension's path gives the same result from facts accumulated beforehand.
    expect(compactWithFacts(session, factsBefore(plan, session.header.cwd), { now: NOW })).toEqual(r);
  });

  it("splits a single-prompt session so a tail remains", async () => {
    const w = piWriter(tempDir());
    w.user("Port the parser to Rust.");
    for (let i = 0; i < 8; i++) {
      w.assistant([{ type: "toolCall", id: `t${String(i)}`, name: "read", arguments: { path: `src/p${String(i)}.ts` } }]);
      w.result(`t${String(i)}`, "read", "x".repeat(2000));
    }
    w.assistant([{ type: "text", text: "Now writing the Rust module." }]);
    const session = await readSession(w.file);
    const plan = planCut(session);
    expect(plan.splitTurn).toBe(true);
    expect(plan.keptMessages).toBeGreaterThan(0);
    expect(plan.summarizedMessages).toBeGreaterThan(0);
    const role = (session.byId.get(plan.firstKeptEntryId)?.raw["message"] as { role?: string } | undefined)?.role;
    expect(role).toBe("assistant");
    const r = compactSession(session, { now: NOW });
    expect(parseSummary(r.summary).goal?.text).toBe("Port the parser to Rust.");
  });

  it("merges with its own previous summary and keeps a foreign one with no block to point to section by section", async () => {
    const dir = tempDir();
    const w = authSession(dir);
    const first = compactSession(await readSession(w.file), { now: NOW });
    // Pi records the compaction, the session goes on.
    w.sm.appendCompaction(first.summary, first.firstKeptEntryId, first.tokensBefore, undefined, true);
    w.assistant([{ type: "toolCall", id: "d1", name: "write", arguments: { path: "src/auth/expiry.test.ts", content: "export const t = 1;\n" } }]);
    w.result("d1", "write", "Wrote src/auth/expiry.test.ts");
    w.user("Now document the expiry constant.");
    w.assistant([{ type: "text", text: "Documenting." }]);
    const session = await readSession(w.file);
    const second = compactSession(session, { now: NOW, scope: "window" });
    expect(second.stats.summary.previous).toBe("merged");
    const doc = parseSummary(second.summary);
    expect(doc.goal?.text).toBe(FOUNDING);
    expect(doc.commits.map((c) => c.hash)).toEqual(["1a2b3c4"]);
    expect(doc.files.map((f) => f.path)).toEqual(expect.arrayContaining(["src/auth/session.ts", "src/auth/expiry.test.ts"]));
    expect(checkRefs(session, second.summary)).toBeGreaterThan(5);

    const foreign = "## Goal\nFix login.\n\n## Progress\n- [x] Read the code\n\n<modified-files>\nsrc/x.ts\n</modified-files>";
    const third = compactSession(session, { now: NOW, previous: foreign });
    expect(third.stats.summary.previous).toBe("kept-foreign");
    const kept = parseSummary(third.summary);
    // From a file there is no block to point a lifted goal or file at: every line stays, blank lines
    // dropped, each section under its heading with its item count, an index line first.
    expect(kept.previous).toEqual([
      {
        label: "file",
        index: null,
        lines: ["Sections: ## Goal (1); ## Progress (1)", "## Goal (1 item)", "Fix login.", "## Progress (1 item)", "- [x] Read the code", "<modified-files>", "src/x.ts", "</modified-files>"],
      },
    ]);
    expect(kept.goal?.text).toBe(FOUNDING);
  });

  it("merges a Pi-written LLM compaction: its goal becomes the goal, its file lists join the files once", async () => {
    const w = authSession(tempDir());
    const plan = planCut(await readSession(w.file));
    const llm = "## Goal\nFix login.\n\n<read-files>\nsrc/legacy/notes.md\n</read-files>\n\n<modified-files>\nsrc/legacy/login.ts\n</modified-files>";
    w.sm.appendCompaction(llm, plan.firstKeptEntryId, plan.tokensBefore);
    w.user("Continue with the expiry check.");
    w.assistant([{ type: "text", text: "On it." }]);
    const session = await readSession(w.file);
    const r = compactSession(session, { now: NOW, scope: "window" });
    const doc = parseSummary(r.summary);
    const compactionBlock = session.blocks.find((b) => b.kind === "compaction");
    expect(doc.files.find((f) => f.path === "src/legacy/login.ts")).toEqual({ status: "modified", path: "src/legacy/login.ts", symbols: [], index: compactionBlock?.index });
    expect(doc.files.find((f) => f.path === "src/legacy/notes.md")?.status).toBe("read");
    // Window scope: the window's own first request (#16, a kept entry before the compaction) is no
    // founding request; the earlier summary's goal is, and the window's request is kept as a scope change.
    expect(doc.goal).toEqual({ text: "Fix login.", index: compactionBlock?.index });
    expect(doc.scopeChanges).toEqual([{ text: "Also always run the whole test suite before committing.", index: 16 }]);
    expect(doc.previous.map((p) => p.lines)).toEqual([["Sections: ## Goal → Session Goal; <read-files> 1 → Files And Changes; <modified-files> 1 → Files And Changes"]]);
    checkRefs(session, r.summary);
    // A cut inside the previously kept entries (before the compaction entry in the file) still points
    // the kept summary at its compaction block.
    const early = compactSession(session, { now: NOW, keepTail: 5 });
    expect(session.byId.get(early.firstKeptEntryId)?.position).toBeLessThan(session.byId.get(compactionBlock?.entryId ?? "")?.position ?? -1);
    expect(parseSummary(early.summary).previous.map((p) => p.index)).toEqual([compactionBlock?.index]);
  });

  it("merges a pi-vcc bracket summary section by section: goal kept, files and commits once, every section pointed to", async () => {
    const w = authSession(tempDir());
    const plan = planCut(await readSession(w.file));
    const vcc = [
      "[Session Goal]",
      "- Fix the authentication bug in login flow",
      "- [Scope change]",
      "- Also update the session token refresh logic",
      "",
      "[Files And Changes]",
      "- Modified: src/auth/session.ts (refreshToken, verifyToken)",
      "- Read: src/types.ts (User)",
      "- Created: tests/auth-refresh.test.ts",
      "- … and 3 more read files",
      "",
      "[Commits]",
      "- a1b2c3d: fix(auth): refresh token after password reset",
      "- 1a2b3c4: the session's own commit, named again",
      "",
      "[Outstanding Context]",
      "- [ERROR] [bash:exit 1] bun test tests/auth.test.ts → 3 tests failed",
      "- [INFO]  [no matches] grep \"verifyCredentials\"",
      "",
      "[Earlier Turns]",
      "- Set up the project structure → read package.json",
      "",
      "[Current Status]",
      "- Working on: fix the auth bug",
      "",
      "---",
      "",
      "[user]",
      "Fix the auth bug, users can't log in after password reset",
    ].join("\n");
    w.sm.appendCompaction(vcc, plan.firstKeptEntryId, plan.tokensBefore);
    w.user("Continue with the expiry check.");
    w.assistant([{ type: "text", text: "On it." }]);
    const session = await readSession(w.file);
    const at = session.blocks.find((b) => b.kind === "compaction")?.index;
    const r = compactSession(session, { now: NOW, scope: "window" });
    const doc = parseSummary(r.summary);
    expect(doc.goal).toEqual({ text: "Fix the authentication bug in login flow", index: at });
    expect(doc.scopeChanges.map((c) => c.text)).toContain("Also update the session token refresh logic");
    // Files: once each, the session's own entry kept for a path both name; pi-vcc's symbols carried.
    const paths = doc.files.map((f) => f.path);
    expect(new Set(paths).size).toBe(paths.length);
    expect(paths).toEqual(expect.arrayContaining(["src/auth/session.ts", "src/types.ts", "tests/auth-refresh.test.ts"]));
    expect(doc.files.find((f) => f.path === "tests/auth-refresh.test.ts")).toEqual({ status: "created", path: "tests/auth-refresh.test.ts", symbols: [], index: at });
    expect(doc.files.find((f) => f.path === "src/types.ts")?.symbols).toEqual(["User"]);
    // Commits: the summary's and the session's, each once.
    expect(doc.commits.map((c) => c.hash).sort()).toEqual(["1a2b3c4", "a1b2c3d"]);
    expect(r.summary.split("\n").filter((l) => l.startsWith("- 1a2b3c4"))).toHaveLength(1);
    // Every section is named with its count on the index line; the kept ones follow under their heading.
    const previous = doc.previous[0]?.lines ?? [];
    expect(previous[0]).toBe(
      "Sections: [Session Goal] → Session Goal; [Files And Changes] 3 → Files And Changes; [Commits] 2 → Commits; [Files And Changes] (1); [Outstanding Context] (2); [Earlier Turns] (1); [Current Status] (1); --- (2)",
    );
    expect(previous).toEqual(expect.arrayContaining(["[Outstanding Context] (2 items)", "- [INFO]  [no matches] grep \"verifyCredentials\"", "[user]", "- … and 3 more read files"]));
    checkRefs(session, r.summary);
    expect(compactSession(session, { now: NOW, scope: "window" }).summary).toBe(r.summary);
  });

  it("splits adversarial foreign summaries (1 MB of heading-like text) in linear time", { timeout: LINEAR_TIME_MS }, () => {
    const mb = 1 << 20;
    for (const text of [`[${"A".repeat(mb)}`, `${"[A]\n".repeat(mb / 4)}`, `- ${"0".repeat(mb)}`, `${" (#1".repeat(mb / 4)})`, `${"<read-files>".repeat(mb / 12)}x`, `## ${"#".repeat(mb)}`]) {
      const start = performance.now();
      const s = splitForeignSummary(text);
      expect(performance.now() - start).toBeLessThan(10_000);
      expect(s.sections.length + s.lifted.length).toBeGreaterThan(0);
    }
  });

  it("stays within the budget and clips verbatim items beyond half of it with a recall pointer", async () => {
    const w = piWriter(tempDir());
    const long = `Build the importer. ${"Requirement: keep every column and log each row. ".repeat(200)}`;
    w.user(long);
    w.assistant([{ type: "text", text: "Starting." }]);
    w.user("ok continue");
    w.assistant([{ type: "text", text: "Continuing." }]);
    const session = await readSession(w.file);
    const r = compactSession(session, { now: NOW, budget: 400 });
    expect(estimateTokens(r.summary)).toBeLessThanOrEqual(400);
    const goal = parseSummary(r.summary).goal;
    expect(goal?.text.endsWith(`… (clipped; recall #${String(goal.index)})`)).toBe(true);
    expect(r.stats.summary.clippedVerbatim).toEqual([0]);
    expect(long.startsWith(goal?.text.slice(0, 100) ?? "x")).toBe(true);
  });

  it("counts what a cap leaves out, with a pointer", async () => {
    const w = piWriter(tempDir());
    w.user("Survey the code base.");
    for (let i = 0; i < 60; i++) {
      w.assistant([{ type: "toolCall", id: `r${String(i)}`, name: "read", arguments: { path: `src/module-${String(i)}/index.ts` } }]);
      w.result(`r${String(i)}`, "read", `export function f${String(i)}(): void {}\n`);
    }
    w.user("Summarize.");
    const session = await readSession(w.file);
    const r = compactSession(session, { now: NOW, budget: 600 });
    const doc = parseSummary(r.summary);
    const omitted = doc.filesOmitted.find((o) => o.what === "more read files");
    expect(omitted?.recall).toBe("files");
    expect(doc.files.length + (omitted?.count ?? 0)).toBe(60);
    expect(r.summary).toMatch(/- … and \d+ more read files \(recall: files\)/);
    expect(estimateTokens(r.summary)).toBeLessThanOrEqual(600);
  });

  it("keeps what the user said in any phrasing once, counted, ranked above files and commits", async () => {
    const w = piWriter(tempDir());
    w.user("we're in the directoy of our bespoke coding harness, why is the user agent wrong?");
    const said = ["isn't there a way for us to access it programatically?", "작업 착수하자", "the staging db is db-2.internal:6543", "pr까지"];
    for (const [i, text] of said.entries()) {
      w.assistant([{ type: "toolCall", id: `e${String(i)}`, name: "edit", arguments: { path: `src/f${String(i)}.ts`, oldText: "a", newText: "b" } }]);
      w.result(`e${String(i)}`, "edit", "ok");
      w.user(text);
      w.user("ok");
    }
    w.user("the staging db is db-2.internal:6543!");
    w.assistant([{ type: "text", text: "Noted." }]);
    const more = Array.from({ length: 10 }, (_, i) => `module ${String(i)} keeps its API: client ${String(i)} depends on it`);
    for (const text of more) w.user(text);
    w.assistant([{ type: "text", text: "Noted." }]);
    w.user("thanks, that's all for now");
    const session = await readSession(w.file);
    const doc = parseSummary(compactSession(session, { now: NOW }).summary);
    expect(doc.statements.map((s) => [s.text, s.count])).toEqual([
      [said[0], 1],
      [said[1], 1],
      [said[2], 2],
      [said[3], 1],
      ...more.map((m) => [m, 1]),
      // Said in the kept tail: still listed, the summary outlives the tail.
      ["thanks, that's all for now", 1],
    ]);
    // A budget too small for all of them: files and commits go first, then the oldest statements, counted.
    const small = compactSession(session, { now: NOW, budget: 256 });
    const tight = parseSummary(small.summary);
    expect(estimateTokens(small.summary)).toBeLessThanOrEqual(256);
    expect(tight.files.filter((f) => f.status !== "read")).toEqual([]);
    expect(tight.statements.length).toBeGreaterThan(0);
    expect(tight.statements.length).toBeLessThan(15);
    expect(tight.statements.length + (tight.statementsOmitted?.count ?? 0)).toBe(15);
    expect(small.summary).toMatch(/- … and \d+ more user statements \(recall: user messages\)/);
  });

  it("builds a digest within its budget, lowest priority trimmed first", () => {
    const artifacts = {
      initialPrompts: [{ text: FOUNDING, turn: 1, index: 0 }],
      corrections: [{ text: CORRECTION, turn: 2, index: 9 }],
      errorLedger: Array.from({ length: 50 }, (_, i) => ({ text: `error number ${String(i)} ${"x".repeat(80)}`, source: "tsc" as const, severity: "ERROR" as const, resolved: false, index: 10 + i })),
      workingCommands: [{ command: "pnpm test", failedIndex: 3, succeededIndex: 5 }],
      hexConstants: [{ value: "0xDEADBEEF", index: 4 }],
      files: Array.from({ length: 40 }, (_, i) => `src/f${String(i)}.ts`),
    };
    const d = buildDigest(artifacts, { budget: 300 });
    expect(d.stats.estimatedTokens).toBeLessThanOrEqual(300);
    expect(d.text).toContain(`- ${FOUNDING.replace("\n", "\n  ")} (#0)`);
    expect(d.text).toContain(`- ${CORRECTION} (#9)`);
    expect(d.stats.omitted.files).toBe(40);
    expect(d.stats.omitted.hexConstants).toBe(1);
    expect(d.stats.omitted.errorLedger).toBeGreaterThan(0);
    expect(d.stats.omitted.corrections).toBe(0);
    expect(d.text).toMatch(/- … and 40 more files \(recall: files\)/);
    expect(d.text.trimEnd().split("\n").pop()).toBe(`preserved verbatim: 1 initial prompt(s), 1 corrections (~${String(Buffer.byteLength(FOUNDING) + Buffer.byteLength(CORRECTION))} B)`);
  });

  it("handles adversarial session text (1 MB of one character) in linear time", { timeout: LINEAR_TIME_MS }, async () => {
    const w = piWriter(tempDir());
    w.user(`${" ".repeat(1 << 20)}x`);
    w.assistant([{ type: "text", text: "(".repeat(1 << 20) }]);
    w.user("\n".repeat(1 << 20));
    w.assistant([{ type: "text", text: "ok" }]);
    const session = await readSession(w.file);
    const start = performance.now();
    const r = compactSession(session, { now: NOW, previous: `${"\n".repeat(1 << 20)}x` });
    expect(performance.now() - start).toBeLessThan(10_000);
    expect(estimateTokens(r.summary)).toBeLessThanOrEqual(4000);
  });

  it("reads a compaction Pi wrote through SessionManager.open as the previous summary", async () => {
    const dir = tempDir();
    const w = authSession(dir);
    const first = compactSession(await readSession(w.file), { now: NOW });
    w.sm.appendCompaction(first.summary, first.firstKeptEntryId, first.tokensBefore, undefined, true);
    const copy = join(dir, "copy.jsonl");
    copyFileSync(w.file, copy);
    const sm = SessionManager.open(copy, dir);
    sm.appendMessage({ role: "user", content: "Also add a changelog entry.", timestamp: Date.parse(NOW) } as never);
    const r = compactSession(await readSession(copy), { now: NOW, keepTail: 1 });
    expect(r.stats.summary.previous).toBe("merged");
    expect(parseSummary(r.summary).scopeChanges.map((s) => s.text)).toContain("Also always run the whole test suite before committing.");
  });
});
