// Differential: the hook's compaction, from facts accumulated turn by turn as the extension feeds them,
// is byte-identical to `compactSession` computed from scratch on the same session (same cut, same
// previous summaries, same `now`): summary, digest, cut and stats; and its `compact` record equals one
// extracted afresh from the blocks before the cut. Over generated sessions with 0, 1 and 3 earlier
// compactions and over the real session fixtures in ../shared.
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { createSeedAccumulator, recordBlocks } from "@context-fold/extractors";
import { lineageBlocks, readSession, type Session } from "@context-fold/ledger-reader";
import { CodeAssigner } from "@context-fold/seed-index-format";
import { generateSession } from "@context-fold/session-gen";
import { compactSession } from "@context-fold/summary-formatter";
import { SessionManager } from "@earendil-works/pi-coding-agent";
import { describeShared, sessionFixtures, sharedFixture, tempDir } from "@context-fold/test-support";
import { CompactionFacts } from "../../src/compaction/compaction-facts.js";
import { computeHookCompaction } from "../../src/compaction/compute-compaction.js";

const SUMMARY_BUDGET = 4000;
const DIGEST_BUDGET = 1500;

/**
 * How the facts are fed before the hook: at each user message only; also prepared at each (what a turn's
 * end near a compaction does); prepared at each but the last (the hook finds its prepared parts stale);
 * prepared at each with the tail as it stood at the end of its run, the last without the session's last
 * entry (the hook's kept tail grew since: the parts made of the tail are not the hook's); prepared after
 * the last feed once per entry of the tail as it grows (its facts accumulated turn by turn), then whole.
 */
type Replay = "fed" | "prepared" | "stale" | "short-tail" | "growing-tail";

/** The hook after a replay (facts fed at each user message, as `agent_end` does), beside the compaction from scratch. */
function both(session: Session, replay: Replay = "fed"): CompactionFacts {
  const codes = new CodeAssigner();
  const facts = new CompactionFacts(session.header.cwd, codes);
  const users = lineageBlocks(session).filter((block) => block.role === "user");
  const lastEntry = session.lineage[session.lineage.length - 1]?.position;
  users.forEach((block, i) => {
    facts.feed(session, block.entryPosition);
    if (replay === "prepared" || (replay === "stale" && i < users.length - 2)) facts.prepare(session, SUMMARY_BUDGET);
    if (replay === "short-tail") facts.prepare(session, SUMMARY_BUDGET, users[i + 1]?.entryPosition ?? lastEntry);
  });
  if (replay === "growing-tail") {
    const from = users[users.length - 1]?.entryPosition ?? 0;
    for (const entry of session.lineage) if (entry.position > from) facts.prepare(session, SUMMARY_BUDGET, entry.position);
    facts.prepare(session, SUMMARY_BUDGET);
  }
  const made = facts.parts.made;
  const found = facts.parts.found;
  let hookError: unknown;
  let hook;
  try {
    hook = computeHookCompaction({ session, facts, sessionId: session.header.id, seq: 7, codes, summaryBudget: SUMMARY_BUDGET, digestBudget: DIGEST_BUDGET });
  } catch (error) {
    hookError = error;
  }
  let scratch;
  try {
    scratch = compactSession(session, { budget: SUMMARY_BUDGET, digestBudget: DIGEST_BUDGET, ...(hook === undefined ? {} : { now: hook.artifacts.at }) });
  } catch (error) {
    // Nothing to compact from scratch: the hook refuses the same way.
    expect((hookError as { code?: string } | undefined)?.code).toBe((error as { code?: string }).code);
    return facts;
  }
  if (hook === undefined) throw hookError;
  // The hook reads prepared parts and never keeps what it makes; prepared at the last turn's end, it finds some.
  expect(facts.parts.made).toBe(made);
  if (replay !== "fed" && replay !== "stale") expect(facts.parts.found).toBeGreaterThan(found);
  expect(hook.result.firstKeptEntryId).toBe(scratch.firstKeptEntryId);
  expect(hook.result.summary).toBe(scratch.summary);
  expect(hook.result.digest).toBe(scratch.digest);
  expect(hook.result).toEqual(scratch);
  // Prepared parts are shared by every hook that uses them: nothing the hook does changes them.
  if (replay === "prepared") expect(computeHookCompaction({ session, facts, sessionId: session.header.id, seq: 7, codes, summaryBudget: SUMMARY_BUDGET, digestBudget: DIGEST_BUDGET }).result).toEqual(scratch);

  const firstKept = session.byId.get(hook.result.firstKeptEntryId);
  const before = recordBlocks(session, { scope: "lineage" }).filter((b) => b.entryPosition < (firstKept?.position ?? 0));
  const fresh = createSeedAccumulator({ cwd: session.header.cwd })
    .add(before)
    .record({ sessionId: session.header.id, seq: 7, at: hook.artifacts.at, trigger: "compact", favourRecent: true, codes: new CodeAssigner() });
  expect(hook.record).toEqual(fresh);
  return facts;
}

describe("the hook's compaction equals compactSession from scratch", () => {
  for (const compactions of [0, 1, 3]) {
    test(`a generated session with ${String(compactions)} earlier compaction(s)`, async () => {
      const file = join(tempDir("hook-matches-scratch-"), "session.jsonl");
      await generateSession(file, { seed: 11 + compactions, size: 400_000, compactions });
      const session = await readSession(file);
      expect(session.compactions.length).toBe(compactions);
      for (const replay of ["fed", "stale", "short-tail", "growing-tail"] as const) both(session, replay);
      // The earlier summaries were folded at a turn's end (so the hook's use of that base is what was compared).
      const prepared = both(session, "prepared");
      expect(prepared.previousBase?.entryIds ?? []).toEqual(session.compactions.map((c) => c.entryId));
    });
  }
});

describeShared("the hook's compaction equals compactSession from scratch on the real fixtures", () => {
  const real = ["castai-kimchi-dev-910d402__session.jsonl", "pinion05-act-3ae80f5__01-youtube-noheader.jsonl", "pinion05-act-3ae80f5__03-raddit-dashboard-pr.jsonl"];
  for (const file of [...sessionFixtures(), ...real.map((name) => sharedFixture("real", name))]) {
    test(file.split("/").pop() ?? file, async () => {
      // A fixture without a header line is read as a fragment of a session (as the CLI reads one).
      const session = await readSession(file).catch((error: unknown) => {
        if ((error as { code?: string }).code === "NO_HEADER") return readSession(file, { fragment: true });
        throw error;
      });
      for (const replay of ["fed", "prepared", "stale", "short-tail", "growing-tail"] as const) both(session, replay);
    });
  }
});

describe("the hook's compaction equals compactSession from scratch with a branch summary", () => {
  test("a session written by Pi's SessionManager that left a branch with a summary", async () => {
    const dir = tempDir("hook-branch-summary-");
    const sm = SessionManager.create(join(dir, "project"), dir);
    let clock = Date.parse("2026-03-01T09:00:00.000Z");
    const usage = { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
    const user = (text: string): void => void sm.appendMessage({ role: "user", content: text, timestamp: (clock += 1000) } as never);
    const say = (text: string): void =>
      void sm.appendMessage({ role: "assistant", content: [{ type: "text", text }], api: "anthropic-messages", provider: "anthropic", model: "m", usage, stopReason: "stop", timestamp: (clock += 1000) } as never);
    user("Speed up session lookups in the auth service without changing the public API.");
    say("I will profile the lookup path first.");
    const fork = sm.getLeafId();
    user("try a redis cache");
    say("Prototyped a Redis cache; failover drops sessions.");
    sm.branchWithSummary(fork, "## Goal\nTry a Redis cache.\n\n## Key Decisions\n- Abandoned: failover loses sessions");
    user("ok, tune the in-memory LRU instead: raise its size to 50000 entries");
    say("Raised the LRU size to 50000.");
    user("now run the benchmarks");
    say("Running them.");
    const session = await readSession(sm.getSessionFile() ?? "");
    for (const replay of ["fed", "prepared", "stale", "short-tail", "growing-tail"] as const) both(session, replay);
    expect(compactSession(session, { budget: SUMMARY_BUDGET }).summary).toContain("- from branch summary (#");
  });
});
