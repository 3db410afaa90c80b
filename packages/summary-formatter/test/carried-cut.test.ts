// The cut a turn's end carries on to the next (`prepareCutParts` → `planCutCarried`: only the entries a
// turn appended are weighed) is `planCut`'s of the session read afresh after every kind of growth: turns,
// a last turn long enough that the cut splits it and then moves on inside it, a context edit of an
// earlier message, a compaction appended, a branch back to an earlier entry. Each step also says whether
// it was carried on or made whole, so a carry reused where it no longer applies fails here (issue 25).
import { readSession, updateSession } from "@context-fold/ledger-reader";
import { compactSession, compactWithFacts, type CutPlan, planCut, prepareCutParts, SummaryParts } from "@context-fold/summary-formatter";
import { tempDir } from "@context-fold/test-support";
import { describe, expect, it } from "vitest";
import { SLOT } from "../src/summary-parts.js";
import { factsBefore, importerSession } from "./pi-session.js";

const NOW = "2026-03-01T10:00:00.000Z";

/** What a plan decides, with its blocks as #N lists. */
function shape(plan: CutPlan): unknown {
  const ids = (blocks: readonly { index: number }[]): number[] => blocks.map((b) => b.index);
  return {
    firstKeptEntryId: plan.firstKeptEntryId,
    tokensBefore: plan.tokensBefore,
    keptTokens: plan.keptTokens,
    summarizedMessages: plan.summarizedMessages,
    keptMessages: plan.keptMessages,
    splitTurn: plan.splitTurn,
    summarizedBlocks: ids(plan.summarizedBlocks),
    keptBlocks: ids(plan.keptBlocks),
    lineageBefore: ids(plan.lineageBefore),
  };
}

describe("a cut carried from one turn's end to the next", () => {
  it("is planCut's of the session read afresh after turns, a split last turn, an edit, a compaction and a branch", async () => {
    const w = importerSession(tempDir(), "Build the CSV importer for the billing service — every column kept, rejected rows logged.", 12);
    let session = await readSession(w.file);
    const parts = new SummaryParts();
    const how: string[] = [];
    /** Where the cut split the long turn, step by step. */
    const splitAt = new Set<string>();
    /** Prepare at this turn's end, then check the prepared cut (and, with `compact`, the compaction made with it). */
    const step = async (name: string, compact = false): Promise<void> => {
      session = await updateSession(session);
      prepareCutParts(parts, session);
      const slot = parts.slots[SLOT.cut];
      expect(slot?.a, name).toBe(session);
      expect(shape(slot?.value as CutPlan), name).toEqual(shape(planCut(session)));
      expect(planCut(session).tokensBefore, name).toBeGreaterThan(0);
      const plan = slot?.value as CutPlan;
      how.push(`${name}: ${parts.cutCarry?.context.grown === true ? "carried" : "whole"}${plan.splitTurn ? ", split" : ""}`);
      if (plan.splitTurn) splitAt.add(plan.firstKeptEntryId);
      if (!compact) return;
      const extracted = (plan: CutPlan): ReturnType<typeof factsBefore> => factsBefore(plan, session.header.cwd);
      expect(compactWithFacts(session, extracted, { budget: 900, now: NOW, parts }), name).toEqual(compactSession(session, { budget: 900, now: NOW }));
    };
    await step("start", true);
    for (let k = 13; k <= 15; k++) {
      w.assistant([{ type: "text", text: `Batch ${String(k)} streams.` }]);
      w.user(`Now make batch ${String(k)} report its row count.`);
      await step(`turn ${String(k)}`);
    }
    // A last turn past the tail's cap: the cut splits it, then moves on inside it as it grows.
    const big = (k: number): string => `row ${String(k)}: ${"0123456789abcdef".repeat(1200)}\n`.repeat(3);
    for (let k = 1; k <= 4; k++) {
      w.assistant([{ type: "toolCall", id: `big${String(k)}`, name: "read", arguments: { path: `data/big-${String(k)}.csv` } }]);
      w.result(`big${String(k)}`, "read", big(k));
      await step(`long turn ${String(k)}`, k === 4);
    }
    w.user("Now the rejected-rows log.");
    await step("after the long turn", true);
    // A context edit removes an earlier message from the context: weighed whole again.
    const target = session.lineage.find((entry) => entry.type === "message" && (entry.raw["message"] as { role?: string }).role === "toolResult");
    w.sm.appendContextEdit(target?.id ?? "", null);
    await step("context edit");
    w.assistant([{ type: "text", text: "The log lists each rejected row." }]);
    w.user("And the summary line at the end.");
    await step("turn after the edit", true);
    // A compaction starts a new context.
    const kept = session.lineage[session.lineage.length - 2];
    w.sm.appendCompaction("## Goal\nThe CSV importer.", kept?.id ?? null, 12_000);
    w.assistant([{ type: "text", text: "Continuing after the compaction." }]);
    w.user("Carry on with batch 16.");
    await step("compaction");
    w.assistant([{ type: "text", text: "Batch 16 streams." }]);
    w.user("Then batch 17.");
    await step("turn after the compaction", true);
    // A branch back to an earlier entry: another lineage.
    const from = session.lineage[Math.floor(session.lineage.length / 3)];
    w.sm.branch(from?.id ?? "");
    w.user("Take the other road: parse with a streaming tokenizer instead.");
    await step("branch", true);
    w.assistant([{ type: "text", text: "Tokenizer in place." }]);
    w.user("Now batch 18 on it.");
    await step("turn on the branch", true);
    // A branch from just before the leaf, grown past the old leaf's length: the same length of lineage, other entries.
    const near = session.lineage[session.lineage.length - 3];
    w.sm.branch(near?.id ?? "");
    w.assistant([{ type: "text", text: "Back before batch 18: batch 18 the old way." }]);
    w.user("Batch 19 then.");
    w.assistant([{ type: "text", text: "Batch 19 streams." }]);
    w.user("And batch 20.");
    await step("branch near the leaf", true);

    expect(how).toEqual([
      "start: whole",
      "turn 13: carried",
      "turn 14: carried",
      "turn 15: carried",
      "long turn 1: carried",
      "long turn 2: carried, split",
      "long turn 3: carried, split",
      "long turn 4: carried, split",
      "after the long turn: carried",
      "context edit: whole",
      "turn after the edit: carried",
      "compaction: whole",
      "turn after the compaction: carried",
      "branch: whole",
      "turn on the branch: carried",
      "branch near the leaf: whole",
    ]);
    // The split cut moved on inside the long turn at each step.
    expect(splitAt.size).toBe(3);
  });
});
