// A summary carrying many previous summaries, fitted to its budget inside a build (the compaction hook's
// way: costs kept per summary within the build, fit-budget.ts' `previousCosts`) and outside one (every
// cost summed afresh): the same summary byte for byte, however many steps the trim takes.
import { emptyDoc, estimateTokens, fitToBudget, renderBrackets, type SummaryDoc } from "@context-fold/summary-formatter";
import { describe, expect, it } from "vitest";
import { enterParts, leaveParts } from "../src/summary-parts.js";

const FOOTER = { at: "2026-03-01T09:00:00.000Z", messages: 900, windowTokens: 60_000, summaryTokens: 0, tailMessages: 4, tailTokens: 300, range: { from: 0, to: 899 } };

/** `count` previous summaries of `lines` lines each (of different lengths, so each clip frees a different amount). */
function withPrevious(count: number, lines: number): SummaryDoc {
  const previous = Array.from({ length: count }, (_, k) => ({
    label: `compaction ${String(k + 1)}`,
    index: 10 * (k + 1),
    lines: Array.from({ length: lines }, (_, i) => `- summary ${String(k)} line ${String(i)}: ${"the ledger kept its totals ".repeat(1 + ((k + i) % 4))}`),
  }));
  return { ...emptyDoc(FOOTER), previous };
}

function fitted(doc: SummaryDoc, budget: number, inBuild: boolean): string {
  const scope = inBuild ? enterParts(undefined, false) : undefined;
  try {
    return renderBrackets(fitToBudget(doc, renderBrackets, budget).doc);
  } finally {
    if (scope !== undefined) leaveParts(scope);
  }
}

describe("previous summaries trimmed to their share", () => {
  it("fit the same inside a build as outside one", () => {
    for (const [count, lines, budget] of [
      [40, 12, 3000],
      [12, 30, 2000],
      [3, 40, 1500],
    ] as const) {
      const doc = withPrevious(count, lines);
      const outside = fitted(doc, budget, false);
      const inside = fitted(doc, budget, true);
      expect(inside).toBe(outside);
      expect(estimateTokens(inside)).toBeLessThanOrEqual(budget);
      // The trim took several steps: summaries clipped with a recall pointer (or folded into one line).
      expect(inside).toMatch(/… \(clipped; recall #[0-9]+\)|summaries clipped; recall/);
    }
  });
});
