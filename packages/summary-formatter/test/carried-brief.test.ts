// The brief lines a turn's end carries on to the next (`prepareCutParts` → `briefOf`: the unmarked line of
// each block the last prepared brief built, found by block) give `briefTail`'s brief of the window read
// afresh, at every step of a growing Pi-written session: turns, a failing call, a long turn the cut splits,
// a context edit, a compaction. A call's line gains its failure mark when its failed result joins the
// window after the line was carried (issue 25).
import { readSession, updateSession } from "@context-fold/ledger-reader";
import { BRIEF_MAX_LINES, type BriefBlock, briefTail, type CutPlan, prepareCutParts, SummaryParts } from "@context-fold/summary-formatter";
import { tempDir } from "@context-fold/test-support";
import { describe, expect, it } from "vitest";
import { carriedBriefTail } from "../src/brief.js";
import { enterParts, leaveParts, SLOT } from "../src/summary-parts.js";
import { importerSession } from "./pi-session.js";

describe("brief lines carried from one turn's end to the next", () => {
  it("give the brief of the window read afresh at every step of a growing session", async () => {
    const w = importerSession(tempDir(), "Build the CSV importer for the billing service — every column kept, rejected rows logged.", 70);
    let session = await readSession(w.file);
    const parts = new SummaryParts();
    let carried = 0;
    const step = async (name: string): Promise<void> => {
      session = await updateSession(session);
      const before = parts.briefLines;
      prepareCutParts(parts, session);
      const plan = parts.slots[SLOT.cut]?.value as CutPlan;
      const brief = parts.slots[SLOT.brief]?.value as { lines: string[]; earlier: number };
      expect(brief, name).toEqual(briefTail(plan.summarizedBlocks, BRIEF_MAX_LINES));
      expect(parts.briefLines.size, name).toBeLessThanOrEqual(BRIEF_MAX_LINES);
      for (const [block, line] of parts.briefLines) if (before.get(block) === line) carried++;
    };
    await step("start");
    for (let k = 71; k <= 76; k++) {
      w.assistant([{ type: "toolCall", id: `t${String(k)}`, name: "bash", arguments: { command: `pnpm test --batch ${String(k)}` } }]);
      w.result(`t${String(k)}`, "bash", k % 2 === 0 ? "Tests 1 failed\n\nCommand exited with code 1" : "ok", k % 2 === 0);
      w.assistant([{ type: "text", text: `Batch ${String(k)} ${k % 2 === 0 ? "fails" : "passes"}.` }]);
      w.user(`Now batch ${String(k + 1)}.`);
      await step(`turn ${String(k)}`);
    }
    // A last turn past the tail's cap: the cut splits it and moves on inside it as it grows.
    const big = (k: number): string => `row ${String(k)}: ${"0123456789abcdef".repeat(1200)}\n`.repeat(3);
    for (let k = 1; k <= 4; k++) {
      w.assistant([{ type: "toolCall", id: `big${String(k)}`, name: "read", arguments: { path: `data/big-${String(k)}.csv` } }]);
      w.result(`big${String(k)}`, "read", big(k), k === 2);
      await step(`long turn ${String(k)}`);
    }
    w.user("Now the rejected-rows log.");
    await step("after the long turn");
    const target = session.lineage.find((entry) => entry.type === "message" && (entry.raw["message"] as { role?: string }).role === "toolResult");
    w.sm.appendContextEdit(target?.id ?? "", null);
    await step("context edit");
    w.assistant([{ type: "text", text: "The log lists each rejected row." }]);
    w.user("And the summary line at the end.");
    await step("turn after the edit");
    const kept = session.lineage[session.lineage.length - 2];
    w.sm.appendCompaction("## Goal\nThe CSV importer.", kept?.id ?? null, 12_000);
    w.assistant([{ type: "text", text: "Continuing after the compaction." }]);
    w.user("Carry on with batch 80.");
    await step("compaction");
    w.assistant([{ type: "text", text: "Batch 80 streams." }]);
    w.user("Then batch 81.");
    await step("turn after the compaction");
    // Most lines of a turn's brief were the last turn's: carried, not built again.
    expect(carried).toBeGreaterThan(BRIEF_MAX_LINES * 5);
  });

  it("marks a carried call's line once its failed result is in the window", () => {
    const call: BriefBlock = { index: 1, kind: "toolCall", toolName: "bash", toolCallId: "c1", args: { command: "pnpm test" }, text: "" };
    const failed: BriefBlock = { index: 2, kind: "toolResult", toolName: "bash", toolCallId: "c1", isError: true, text: "1 failed" };
    const parts = new SummaryParts();
    const prepared = (blocks: readonly BriefBlock[]): { lines: string[]; earlier: number } => {
      const scope = enterParts(parts, true);
      try {
        return carriedBriefTail(blocks, BRIEF_MAX_LINES);
      } finally {
        leaveParts(scope);
      }
    };
    expect(prepared([call])).toEqual(briefTail([call], BRIEF_MAX_LINES));
    expect(parts.briefLines.get(call)).toBe('* bash "pnpm test" (#1)');
    expect(prepared([call, failed])).toEqual(briefTail([call, failed], BRIEF_MAX_LINES));
    expect(prepared([call, failed]).lines).toEqual(['* bash "pnpm test" [error] (#1)']);
  });
});
