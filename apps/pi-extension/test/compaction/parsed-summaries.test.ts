// Earlier compactions' summaries are read once, when their blocks are fed (session start or the turn
// after the compaction), and the hook merges those parsed documents instead of parsing again.
import { join } from "node:path";
import { expect, test } from "vitest";
import { lineageBlocks, readSession } from "@context-fold/ledger-reader";
import { CodeAssigner } from "@context-fold/seed-index-format";
import { generateSession } from "@context-fold/session-gen";
import { compactSession, parseOwnSummary, type SummaryDoc } from "@context-fold/summary-formatter";
import { tempDir } from "@context-fold/test-support";
import { CompactionFacts } from "../../src/compaction/compaction-facts.js";
import { computeHookCompaction } from "../../src/compaction/compute-compaction.js";

test("feeding parses each compaction's summary once, by entry id, and the hook merges those documents", async () => {
  const file = join(tempDir("parsed-summaries-"), "session.jsonl");
  await generateSession(file, { seed: 12, size: 400_000, compactions: 2 });
  const session = await readSession(file);
  expect(session.compactions.length).toBe(2);
  const codes = new CodeAssigner();
  const facts = new CompactionFacts(session.header.cwd, codes);
  expect(facts.parsedSummaries.size).toBe(0);
  for (const block of lineageBlocks(session)) if (block.role === "user") facts.feed(session, block.entryPosition);
  expect([...facts.parsedSummaries.keys()]).toEqual(session.compactions.map((c) => c.entryId));
  for (const c of session.compactions) expect(facts.parsedSummaries.get(c.entryId)).toEqual(parseOwnSummary(c.summary));

  // The generator's summaries are foreign (null: split at their headings when merged). The hook takes
  // the kept documents: one of ours kept for the latest compaction (not what the file holds) is merged.
  const latest = session.compactions[session.compactions.length - 1];
  const ours = parseOwnSummary(compactSession(session, { budget: 4000 }).summary);
  const goal = ours?.goal as NonNullable<SummaryDoc["goal"]>;
  expect(goal).toBeTruthy();
  const marker = "GOAL-FROM-THE-KEPT-DOCUMENT";
  (facts.parsedSummaries as Map<string, SummaryDoc | null>).set(latest?.entryId ?? "", { ...(ours as SummaryDoc), goal: { ...goal, text: marker } });
  const input = { session, facts, sessionId: session.header.id, seq: 1, codes, summaryBudget: 4000, digestBudget: 1500 };
  const hook = computeHookCompaction(input);
  expect(session.compactions.some((c) => c.summary.includes(marker))).toBe(false);
  expect(hook.result.stats.summary.previous).toBe("merged");
  expect(hook.result.summary.includes(marker)).toBe(true);
});
