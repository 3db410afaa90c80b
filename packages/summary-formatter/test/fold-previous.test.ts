// The earlier summaries of a lineage folded into one base: the latest of ours as parsed, each foreign
// summary after it merged onto it. `foldPrevious` finds the latest of ours from the end and reads
// nothing before it; folded that way or summary by summary from the first (the way it reads), the base
// is the same, whatever the mix of ours, foreign and damaged ones, parsed beforehand or not.
import { emptyDoc, foldPrevious, foreignDoc, mergeSummaries, parseOwnSummary, type PreviousSummaryInput, renderBrackets, type SummaryDoc } from "@context-fold/summary-formatter";
import fc from "fast-check";
import { describe, expect, it } from "vitest";

const NO_FOOTER = { at: "", messages: 0, windowTokens: 0, summaryTokens: 0, tailMessages: 0, tailTokens: 0, range: null };

/** One of ours, rendered (so `parseOwnSummary` reads it back). */
function ours(k: number): string {
  const doc: SummaryDoc = {
    ...emptyDoc({ at: "2026-03-01T09:00:00.000Z", messages: 10 * k, windowTokens: 900, summaryTokens: 100, tailMessages: 2, tailTokens: 50, range: { from: 0, to: 10 * k } }),
    goal: { text: `Port the billing module, round ${String(k)}.`, index: 1 },
    statements: [{ text: `keep the ledger totals of round ${String(k)}`, index: 3 + k, count: 1 }],
    files: [{ path: `src/billing/round-${String(k)}.ts`, status: "modified", symbols: [], index: 4 + k }],
  };
  return renderBrackets(doc);
}

/** A foreign summary (Pi's own layout), split at its headings. */
function foreign(k: number): string {
  return `## Goal\nShip the recall path, step ${String(k)}.\n\n## Progress\n- [x] wrote src/recall/step-${String(k)}.ts\n\n## Next Steps\n- test step ${String(k)}\n`;
}

/** The fold as it reads: summary by summary from the first, each of ours replacing what came before. */
function foldedInOrder(previous: readonly PreviousSummaryInput[], covers: boolean): { doc: SummaryDoc | null; ownBase: boolean; foreign: number } {
  let doc: SummaryDoc | null = null;
  let ownBase = false;
  let count = 0;
  for (const p of previous) {
    const own = p.parsed !== undefined ? p.parsed : parseOwnSummary(p.text);
    if (own !== null) {
      doc = own;
      ownBase = true;
      count = 0;
    } else {
      const next = foreignDoc(p.text.replace(/\n+$/, ""), p.label, p.index, NO_FOOTER, "/home/dev/project", !covers);
      doc = doc === null ? next : mergeSummaries(doc, next);
      count++;
    }
  }
  return { doc, ownBase, foreign: count };
}

const kindArb = fc.constantFrom("ours", "ours-parsed", "foreign", "foreign-marked", "damaged");

function input(kind: string, k: number): PreviousSummaryInput {
  const label = `compaction ${String(k + 1)}`;
  const index = 10 * (k + 1);
  if (kind === "ours") return { text: ours(k), label, index };
  if (kind === "ours-parsed") return { text: ours(k), label, index, parsed: parseOwnSummary(ours(k)) };
  if (kind === "foreign-marked") return { text: foreign(k), label, index, parsed: null };
  // Marked as ours but not readable as ours: taken as foreign.
  if (kind === "damaged") return { text: `${ours(k).split("\n")[0] ?? ""}\n[Nonsense]\nnot a section\n`, label, index };
  return { text: foreign(k), label, index };
}

describe("foldPrevious", () => {
  it("folds to the base a fold from the first summary makes", () => {
    fc.assert(
      fc.property(fc.array(kindArb, { maxLength: 9 }), fc.boolean(), (kinds, covers) => {
        const previous = kinds.map((kind, k) => input(kind, k));
        const folded = foldPrevious(previous, "/home/dev/project", covers);
        const expected = foldedInOrder(previous, covers);
        expect(folded.ownBase).toBe(expected.ownBase);
        expect(folded.foreign).toBe(expected.foreign);
        expect(folded.doc === null ? null : renderBrackets(folded.doc)).toBe(expected.doc === null ? null : renderBrackets(expected.doc));
      }),
      { numRuns: 200 },
    );
  });

  it("takes the latest of ours as the base, with the foreign ones after it merged", () => {
    const previous = [input("foreign", 0), input("ours", 1), input("foreign", 2), input("ours-parsed", 3), input("foreign", 4), input("foreign-marked", 5)];
    const folded = foldPrevious(previous, "/home/dev/project", true);
    expect(folded.ownBase).toBe(true);
    expect(folded.foreign).toBe(2);
    const text = folded.doc === null ? "" : renderBrackets(folded.doc);
    expect(text).toContain("round 3");
    expect(text).not.toContain("round 1");
    expect(text).toContain("step-4");
    expect(text).not.toContain("step-2");
  });
});
