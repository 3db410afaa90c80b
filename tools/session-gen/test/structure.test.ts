// A generated session opens in Pi's own SessionManager with exactly the lineage, branches,
// compactions, needles and facts its manifest claims.
import { join } from "node:path";
import { tempDir } from "@context-fold/test-support";
import { generateSession, type Manifest } from "@context-fold/session-gen";
import { beforeAll, describe, expect, it } from "vitest";
import { entryText, openInPi, readEntries, type RawEntry } from "./helpers.js";

describe("a 40-turn session", () => {
  let file = "";
  let manifest: Manifest;
  let entries: RawEntry[];
  beforeAll(async () => {
    file = join(tempDir(), "s.jsonl");
    manifest = await generateSession(file, { seed: 11, turns: 40 });
    entries = readEntries(file);
  });

  it("has a v3 header with the manifest's session id and the default cwd", () => {
    const sm = openInPi(file);
    expect(sm.getHeader()).toMatchObject({ type: "session", version: 3, id: manifest.sessionId, cwd: "/home/dev/project", timestamp: "2026-03-01T09:00:00.000Z" });
    expect(manifest.entries).toBe(entries.length);
  });

  it("Pi loads every entry, and its active leaf is the manifest's leaf", () => {
    const sm = openInPi(file);
    expect(sm.getEntries().length).toBe(entries.length);
    expect(sm.getLeafId()).toBe(manifest.leafId);
    expect(entries[entries.length - 1]?.id).toBe(manifest.leafId);
  });

  it("each branch point has an abandoned child off the lineage, one reached via branch_summary", () => {
    const sm = openInPi(file);
    const lineage = new Set(sm.getBranch().map((e) => e.id));
    expect(manifest.branchPoints.length).toBe(2);
    for (const point of manifest.branchPoints) {
      expect(lineage.has(point)).toBe(true);
      const children = sm.getChildren(point);
      expect(children.length).toBeGreaterThanOrEqual(2);
      expect(children.some((c) => !lineage.has(c.id))).toBe(true);
    }
    const summaries = entries.filter((e) => e.type === "branch_summary");
    expect(summaries.length).toBe(1);
    expect(manifest.branchPoints).toContain(summaries[0]?.parentId);
    expect(lineage.has(summaries[0]?.id ?? "")).toBe(true);
  });

  it("compactions are on the lineage, the last keeps nothing (retain-none), the others keep a lineage entry", () => {
    const sm = openInPi(file);
    const lineage = sm.getBranch().map((e) => e.id);
    expect(manifest.compactions.length).toBeGreaterThanOrEqual(1);
    for (const c of manifest.compactions) {
      const entry = sm.getEntry(c.entryId);
      expect(entry?.type).toBe("compaction");
      if (entry?.type === "compaction") expect(entry.firstKeptEntryId).toBe(c.firstKeptEntryId);
      expect(lineage).toContain(c.entryId);
      if (c.firstKeptEntryId !== c.entryId) expect(lineage.indexOf(c.firstKeptEntryId)).toBeLessThan(lineage.indexOf(c.entryId));
    }
  });

  it("with two or more compactions one is retain-none", async () => {
    const f = join(tempDir(), "c.jsonl");
    const m = await generateSession(f, { seed: 3, turns: 30, compactions: 3 });
    expect(m.compactions.length).toBe(3);
    expect(m.compactions.filter((c) => c.firstKeptEntryId === c.entryId).length).toBe(1);
    const sm = openInPi(f);
    // Pi builds a context from the retain-none compaction without error: summary first.
    expect(sm.buildSessionContext().messages.length).toBeGreaterThan(0);
  });

  it("holds context_edits, an unknown entry type, extension entries, bashExecution and thinking with responseId", () => {
    const types = new Set(entries.map((e) => e.type));
    for (const t of ["context_edit", "checkpoint_marker", "custom", "custom_message", "label", "session_info", "model_change", "thinking_level_change"]) expect(types).toContain(t);
    const ids = new Set(entries.map((e) => e.id));
    for (const edit of entries.filter((e) => e.type === "context_edit")) expect(ids.has(String(edit.targetId))).toBe(true);
    const messages = entries.filter((e) => e.type === "message").map((e) => e.message as { role: string; content?: unknown; responseId?: string });
    expect(messages.some((m) => m.role === "bashExecution")).toBe(true);
    const assistants = messages.filter((m) => m.role === "assistant");
    expect(assistants.every((m) => typeof m.responseId === "string")).toBe(true);
    expect(assistants.some((m) => JSON.stringify(m.content).includes(`"type":"thinking"`))).toBe(true);
  });

  it("every needle sits in the entry the manifest names, anchored by its toolCallId, with the right lineage flag", () => {
    const sm = openInPi(file);
    const lineage = new Set(sm.getBranch().map((e) => e.id));
    expect(manifest.needles.length).toBeGreaterThanOrEqual(8);
    const kinds = new Set(manifest.needles.map((n) => n.kind));
    expect(kinds).toEqual(new Set(["identifier", "hex", "error-line", "decision"]));
    expect(manifest.needles.some((n) => n.where === "user-text")).toBe(true);
    expect(manifest.needles.some((n) => !n.onLineage)).toBe(true);
    for (const n of manifest.needles) {
      const entry = sm.getEntry(n.entryId);
      expect(entry?.type).toBe("message");
      if (entry?.type !== "message") continue;
      expect(n.onLineage).toBe(lineage.has(n.entryId));
      const m = entry.message as { role: string; toolCallId?: string; content: unknown };
      if (n.where === "tool-output") {
        expect(m.role).toBe("toolResult");
        expect(n.anchor).toBe(`r:${m.toolCallId ?? ""}`);
        const text = (m.content as { text: string }[]).map((p) => p.text).join("\n");
        const lines = text.split("\n");
        const at = lines.findIndex((l) => l.includes(n.value));
        expect(lines.length).toBeGreaterThan(100);
        // Deep inside: neither near the head nor near the tail of the output.
        expect(at).toBeGreaterThan(lines.length * 0.2);
        expect(at).toBeLessThan(lines.length * 0.8);
      } else {
        expect(m.role).toBe("user");
        expect(n.anchor).toBeUndefined();
        expect(String(m.content)).toContain(n.value);
      }
      // A needle value occurs exactly once in the file.
      expect(entries.filter((e) => entryText(e).includes(n.value)).length).toBe(1);
    }
  });

  it("turns follow the contract: 1-based user messages on the path from the root (branches continue the fork's count)", () => {
    const sm = openInPi(file);
    const userTurns = (id: string): number => sm.getBranch(id).filter((e) => e.type === "message" && e.message.role === "user").length;
    for (const n of manifest.needles) expect(n.turn).toBe(userTurns(n.entryId));
    expect(manifest.needles.filter((n) => n.where === "user-text").every((n) => n.turn >= 1)).toBe(true);
    const byHash = new Map(manifest.commits.map((c) => [c.hash, c.turn]));
    for (const e of sm.getBranch()) {
      if (e.type !== "message" || e.message.role !== "toolResult") continue;
      const text = JSON.stringify(e.message.content);
      const hash = /\[main ([0-9a-f]{7})\]/.exec(text)?.[1];
      if (hash !== undefined && byHash.has(hash)) expect(byHash.get(hash)).toBe(userTurns(e.id));
    }
  });

  it("commits, corrections, preferences and errors are on the lineage; abandoned facts live only off it", () => {
    const sm = openInPi(file);
    const lineage = sm.getBranch() as unknown as RawEntry[];
    const lineageText = lineage.map(entryText).join("\n");
    const offText = entries.filter((e) => !lineage.some((l) => l.id === e.id)).map(entryText).join("\n");
    expect(manifest.foundingRequest.length).toBeGreaterThan(50);
    expect(lineageText.includes(JSON.stringify(manifest.foundingRequest).slice(1, -1)), String(JSON.stringify(manifest.foundingRequest).slice(1, -1))).toBe(true);
    expect(manifest.commits.length).toBeGreaterThanOrEqual(5);
    for (const c of manifest.commits) {
      expect(c.hash).toMatch(/^[0-9a-f]{7}$/);
      expect(lineageText.includes(`[main ${c.hash}] ${c.subject}`), String(`[main ${c.hash}] ${c.subject}`)).toBe(true);
    }
    expect(new Set(manifest.commits.map((c) => c.hash)).size).toBe(manifest.commits.length);
    for (const t of [...manifest.corrections, ...manifest.preferences]) expect(lineageText.includes(JSON.stringify(t).slice(1, -1)), String(JSON.stringify(t).slice(1, -1))).toBe(true);
    expect(manifest.corrections.every((c) => c.startsWith("No, actually"))).toBe(true);
    expect(manifest.preferences.every((p) => /^(Always|Never) /.test(p))).toBe(true);
    expect(manifest.errorsOpenAtEnd.length).toBeGreaterThanOrEqual(1);
    for (const e of [...manifest.errorsOpenAtEnd, ...manifest.errorsFixed]) expect(lineageText.includes(JSON.stringify(e).slice(1, -1)), String(JSON.stringify(e).slice(1, -1))).toBe(true);
    expect(manifest.errorsOpenAtEnd.filter((e) => manifest.errorsFixed.includes(e))).toEqual([]);
    expect(manifest.abandonedBranchFacts.length).toBeGreaterThanOrEqual(2);
    for (const fact of manifest.abandonedBranchFacts) {
      const needle = JSON.stringify(fact).slice(1, -1);
      expect(offText.includes(needle), String(needle)).toBe(true);
      expect(lineageText.includes(needle), String(needle)).toBe(false);
    }
    expect(manifest.modifiedFiles.length).toBeGreaterThan(0);
    expect(manifest.createdFiles.length).toBeGreaterThan(0);
  });

  it("long outputs obey Pi's limits: bash keeps the tail and names the full output file, read says where to continue", () => {
    const results = entries
      .filter((e) => e.type === "message" && (e.message as { role: string }).role === "toolResult")
      .map((e) => e.message as { toolName: string; content: { text: string }[]; details?: { fullOutputPath?: string; truncation?: { truncated: boolean } } });
    let truncatedBash = 0;
    for (const r of results) {
      const text = r.content.map((p) => p.text).join("\n");
      expect(Buffer.byteLength(text)).toBeLessThan(50 * 1024 + 200);
      expect(text.split("\n").length).toBeLessThanOrEqual(2003);
      if (r.toolName === "bash" && r.details?.fullOutputPath !== undefined) {
        truncatedBash++;
        expect(r.details.truncation?.truncated).toBe(true);
        expect(text.endsWith(`Full output: ${r.details.fullOutputPath}]`)).toBe(true);
        expect(r.details.fullOutputPath).toMatch(/^\/tmp\/pi-bash-[0-9a-f]{16}\.log$/);
      }
      if (r.toolName === "read" && r.details?.truncation?.truncated) expect(text).toMatch(/Use offset=\d+ to continue\.\]$/);
    }
    expect(truncatedBash).toBeGreaterThan(0);
  });

  it("writes code in several languages and output of every test runner and tsc", () => {
    const text = entries.map(entryText).join("\n");
    for (const marker of ["export function", "def ", "func (s *Store)", "pub fn", " RUN  v4.1.12", "Tests:", "passed in", "--- PASS:", "test result:", "error TS2322"]) {
      expect(text.includes(marker), String(marker)).toBe(true);
    }
  });
});
