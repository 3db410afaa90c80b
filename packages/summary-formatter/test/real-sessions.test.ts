// Every real Pi session fixture: ground truth computed here from the raw JSONL (first request, files
// written or edited, commit hashes before the cut) is retained by the summary, named or counted.
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { blockAt, readSession } from "@context-fold/ledger-reader";
import { describeShared, sessionFixtures, sharedFixture } from "@context-fold/test-support";
import { compactSession, estimateTokens, parseSummary } from "@context-fold/summary-formatter";
import { expect, it } from "vitest";
import { checkRefs } from "./ref-check.js";

type Raw = Record<string, unknown> & { id?: string; parentId?: string | null; type?: string; message?: Record<string, unknown> };

interface Truth {
  firstRequest: string | null;
  modifiedFiles: Set<string>;
  commits: Set<string>;
  cwd: string;
}

const COMMIT_LINE = /^\[[^\s\]]{1,200}(?: \(root-commit\))? ([0-9a-f]{7,40})\] /;

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((p): p is { type: string; text: string } => typeof p === "object" && p !== null && (p as { type?: unknown }).type === "text")
    .map((p) => p.text)
    .join("\n");
}

/** Lineage entries before `firstKeptEntryId`, from the raw lines (v1: ids from line numbers). */
function truthBefore(file: string, firstKeptEntryId: string): Truth {
  const lines = readFileSync(file, "utf8").split("\n");
  const header = JSON.parse(lines[0] ?? "{}") as { cwd?: string; version?: number };
  const entries: Raw[] = [];
  lines.forEach((line, i) => {
    if (i === 0 || line.trim() === "") return;
    try {
      const e = JSON.parse(line) as Raw;
      if (e.id === undefined && header.version === undefined) e.id = `v1-${String(i + 1).padStart(6, "0")}`;
      entries.push(e);
    } catch {
      // a torn line: the ground truth leaves it out (the summary may know more, never less)
    }
  });
  let path = entries;
  if (header.version !== undefined) {
    const byId = new Map(entries.map((e) => [e.id, e]));
    const chain: Raw[] = [];
    for (let e: Raw | undefined = entries[entries.length - 1]; e !== undefined; e = e.parentId == null ? undefined : byId.get(e.parentId)) chain.push(e);
    path = chain.reverse();
  }
  const cut = path.findIndex((e) => e.id === firstKeptEntryId);
  const before = cut < 0 ? path : path.slice(0, cut);
  const truth: Truth = { firstRequest: null, modifiedFiles: new Set(), commits: new Set(), cwd: header.cwd ?? "" };
  for (const e of before) {
    const m = e.message;
    if (e.type !== "message" || m === undefined) continue;
    if (m["role"] === "user" && truth.firstRequest === null) {
      const text = textOf(m["content"]);
      if (text.trim() !== "" && !text.startsWith("/")) truth.firstRequest = text;
    }
    if (m["role"] === "assistant" && Array.isArray(m["content"])) {
      for (const part of m["content"] as Record<string, unknown>[]) {
        if (part["type"] !== "toolCall" || (part["name"] !== "write" && part["name"] !== "edit")) continue;
        const args = part["arguments"] as Record<string, unknown> | undefined;
        if (typeof args?.["path"] === "string") truth.modifiedFiles.add(args["path"]);
      }
    }
    if (m["role"] === "toolResult" && m["isError"] !== true) {
      for (const line of textOf(m["content"]).split("\n")) {
        const c = COMMIT_LINE.exec(line);
        if (c?.[1] !== undefined) truth.commits.add(c[1]);
      }
    }
  }
  return truth;
}

describeShared("compactSession on the real session fixtures", () => {
  for (const file of sessionFixtures()) {
    it(`retains the ground truth of ${basename(file)}`, async () => {
      const session = await readSession(file);
      const r = compactSession(session);
      expect(estimateTokens(r.summary)).toBeLessThanOrEqual(4000);
      const doc = parseSummary(r.summary);
      const truth = truthBefore(file, r.firstKeptEntryId);
      if (truth.firstRequest !== null) {
        const goal = doc.goal?.text ?? "";
        const clipped = goal.indexOf(" … (clipped; recall #");
        if (doc.goal === null) {
          // Not taken as the founding request (too short to be one): still in the brief or earlier turns.
          const flat = truth.firstRequest.replace(/\s+/g, " ").trim();
          expect([...doc.brief, ...doc.earlierTurns.map((t) => t.text)].some((l) => l.includes(flat.slice(0, 100)))).toBe(true);
        } else if (clipped < 0) expect(goal).toBe(truth.firstRequest);
        else expect(truth.firstRequest.startsWith(goal.slice(0, clipped))).toBe(true);
      }
      const named = new Set(doc.files.filter((f) => f.status !== "read").map((f) => f.path));
      const omittedModified = doc.filesOmitted.find((o) => o.what === "more modified files")?.count ?? 0;
      let missing = 0;
      for (const p of truth.modifiedFiles) {
        const rel = truth.cwd !== "" && p.startsWith(`${truth.cwd}/`) ? p.slice(truth.cwd.length + 1) : p;
        if (!named.has(rel) && !named.has(p)) missing++;
      }
      expect(missing, `modified files neither named nor counted in ${basename(file)}`).toBeLessThanOrEqual(omittedModified);
      const hashes = doc.commits.map((c) => c.hash);
      const commitsOmitted = doc.commitsOmitted?.count ?? 0;
      const missingCommits = [...truth.commits].filter((h) => !hashes.some((x) => x.startsWith(h) || h.startsWith(x)));
      expect(missingCommits.length, `commits ${missingCommits.join(", ")}`).toBeLessThanOrEqual(commitsOmitted);
      // Every (#N) is the block its line describes.
      checkRefs(session, r.summary);
      expect(compactSession(await readSession(file))).toEqual(r);
    });
  }

  it("merges both earlier LLM compactions of pi-mono__before-compaction section by section", async () => {
    const file = sharedFixture("sessions", "pi-mono__before-compaction.jsonl");
    const session = await readSession(file);
    const r = compactSession(session);
    const doc = parseSummary(r.summary);
    expect(doc.previous.map((p) => p.label)).toEqual(["compaction 1", "compaction 2"]);
    expect(r.stats.summary.previous).toBe("kept-foreign");
    for (const [i, p] of doc.previous.entries()) {
      const original = session.compactions[i]?.summary ?? "";
      expect(p.index).not.toBeNull();
      expect(blockAt(session, p.index ?? -1)?.kind).toBe("compaction");
      expect(blockAt(session, p.index ?? -1)?.text).toBe(original);
      // Every heading is named on the first line, which survives any clipping: nothing is lost unpointed.
      const index = p.lines[0] ?? "";
      // The model-written "## Files Created/Modified" list went to Files And Changes (named first, with its count).
      const rest = i === 0 ? index.replace(/^Sections: ## Files Created\/Modified 9 → Files And Changes; /, "Sections: ") : index;
      expect(rest.startsWith("Sections: # Context Checkpoint: Coding Agent Refactoring (0); ## Branch (1); ## Goal (1); "), index).toBe(true);
      for (const h of original.split("\n").filter((l) => /^#{1,2} /.test(l))) expect(index, h).toContain(h);
      // Below it each kept line is a line of the original, or a heading with its item count.
      const lines = new Set(original.split("\n"));
      for (const l of p.lines.slice(1)) if (!l.startsWith("… (clipped; recall #")) expect(lines.has(l) || /^#{1,2} .* \(\d+ items?\)$/.test(l), l).toBe(true);
    }
    // The founding request, re-derived from the file, stays the goal; the summaries' "## Goal" restating
    // it stays one of their sections.
    expect(doc.goal?.index).toBe(0);
    expect(doc.goal?.text.startsWith("alright, read @packages/coding-agent/src/main.ts")).toBe(true);
    // Window scope (facts of the window alone): the latest summary's goal is the goal, stated once.
    const w = parseSummary(compactSession(session, { scope: "window" }).summary);
    const goal = "Refactor `coding-agent` to eliminate code duplication";
    expect(w.goal?.text.startsWith(goal)).toBe(true);
    expect(w.goal?.index).toBe(doc.previous[0]?.index);
    expect([...w.scopeChanges, ...w.corrections].filter((c) => c.text.startsWith(goal))).toEqual([]);
    expect(w.previous[1]?.lines[0]?.startsWith("Sections: ## Goal → Session Goal; # Context Checkpoint")).toBe(true);
    checkRefs(session, r.summary);
  });

  it("keeps a headless extension-written compaction line for line", async () => {
    const file = sharedFixture("sessions", "generated-pi-1.6.0__agentsession-faux-ext-compaction.jsonl");
    const session = await readSession(file);
    const r = compactSession(session);
    const doc = parseSummary(r.summary);
    const original = session.compactions[0]?.summary ?? "";
    const p = doc.previous[0];
    expect(p?.index).not.toBeNull();
    const nonBlank = original.split("\n").filter((l) => l.trim() !== "");
    expect(p?.lines).toEqual([`Sections: (untitled) (${String(nonBlank.length)})`, `(untitled) (${String(nonBlank.length)} items)`, ...nonBlank]);
    checkRefs(session, r.summary);
  });
});
