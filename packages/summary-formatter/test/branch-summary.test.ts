// A branch_summary entry (the summary of a branch the user left, written by Pi's SessionManager) on the
// current branch is context the continuation keeps: the summary carries it as a previous summary,
// pointing to its block, and a later compaction keeps it.
import { blockAt, readSession } from "@context-fold/ledger-reader";
import { tempDir } from "@context-fold/test-support";
import { compactSession, estimateTokens, parseSummary } from "@context-fold/summary-formatter";
import { describe, expect, it } from "vitest";
import { piWriter } from "./pi-session.js";

const NOW = "2026-03-01T10:00:00.000Z";
const ABANDONED = "## Goal\nTry a Redis cache for sessions.\n\n## Progress\n- Redis cache prototype in src/cache/redis.ts: 40 % faster, but drops sessions on failover\n\n## Key Decisions\n- Abandoned: failover loses sessions; stay with the in-memory LRU";

describe("branch summaries", () => {
  it("keeps the summary of an abandoned branch on the current branch as a previous summary", async () => {
    const w = piWriter(tempDir());
    w.user("Speed up session lookups in the auth service without changing the public API.");
    w.assistant([{ type: "text", text: "I will profile the lookup path first." }]);
    const fork = w.sm.getLeafId();
    w.user("try a redis cache");
    w.assistant([{ type: "text", text: "Prototyped a Redis cache; failover drops sessions." }]);
    // The user goes back to the fork: Pi writes the abandoned branch's summary on the new branch.
    w.sm.branchWithSummary(fork, ABANDONED);
    w.user("ok, tune the in-memory LRU instead: raise its size to 50000 entries");
    for (let i = 0; i < 6; i++) {
      w.assistant([{ type: "toolCall", id: `r${String(i)}`, name: "read", arguments: { path: `src/auth/lru-${String(i)}.ts` } }]);
      w.result(`r${String(i)}`, "read", `export const SIZE_${String(i)} = ${String(i)};\n`);
    }
    w.user("now run the benchmarks");
    w.assistant([{ type: "text", text: "Running them." }]);
    const session = await readSession(w.file);
    const r = compactSession(session, { now: NOW, keepTail: 2 });
    expect(estimateTokens(r.summary)).toBeLessThanOrEqual(4000);
    const doc = parseSummary(r.summary);
    const kept = doc.previous.find((p) => p.label === "branch summary");
    expect(kept, r.summary).toBeDefined();
    // It points to the branch_summary block, and names every section of it.
    expect(blockAt(session, kept?.index ?? -1)?.kind).toBe("branchSummary");
    expect(kept?.lines[0]).toContain("## Key Decisions");
    expect(kept?.lines.join("\n")).toContain("Abandoned: failover loses sessions; stay with the in-memory LRU");
    // The abandoned branch's own messages are not on this branch: they are not the summary's.
    expect(r.summary).not.toContain("try a redis cache");
    // Repeats byte for byte; a compaction after this one keeps it (merged from our own summary).
    expect(compactSession(await readSession(w.file), { now: NOW, keepTail: 2 })).toEqual(r);
    w.sm.appendCompaction(r.summary, r.firstKeptEntryId, r.tokensBefore);
    w.user("the benchmarks pass, commit it");
    w.assistant([{ type: "text", text: "Committing." }]);
    w.user("thanks");
    w.assistant([{ type: "text", text: "Done." }]);
    const again = parseSummary(compactSession(await readSession(w.file), { now: NOW, keepTail: 1 }).summary);
    expect(again.previous.filter((p) => p.label === "branch summary").map((p) => p.index)).toEqual([kept?.index]);
  });
});
