// The summary keeps its budget on a long session: the founding request whole, the newest corrections
// verbatim within half the budget, the rest counted with #N pointers; many earlier (foreign) summaries
// folded into one line with their #N range. Sessions are written by Pi's own SessionManager.
import { readSession } from "@context-fold/ledger-reader";
import { tempDir } from "@context-fold/test-support";
import { compactSession, estimateTokens, parseSummary, renderBrackets } from "@context-fold/summary-formatter";
import { describe, expect, it } from "vitest";
import { piWriter, type PiWriter } from "./pi-session.js";

const NOW = "2026-03-01T10:00:00.000Z";
const FOUNDING_LONG = `Build the CSV importer for the billing service.\n${"Every column is kept, every rejected row is logged with its line number. ".repeat(8)}`;

/** Correction k: a redirect of varied length (some long, some short), distinct per k. */
function correction(k: number): string {
  const tail = k % 7 === 0 ? ` ${"Keep the header row, skip the BOM, and report the byte offset of a bad quote. ".repeat(6)}` : "";
  return `No, actually use the streaming parser for batch ${String(k)} instead of reading the whole file.${tail}`;
}

/** A session of `n` corrections, each followed by work, with a foreign compaction every `every` corrections. */
function longSession(dir: string, n: number, every: number): { w: PiWriter; corrections: string[] } {
  const w = piWriter(dir);
  w.user(FOUNDING_LONG);
  const corrections: string[] = [];
  for (let k = 1; k <= n; k++) {
    w.assistant([{ type: "toolCall", id: `c${String(k)}`, name: "bash", arguments: { command: `pnpm test --filter importer-${String(k)}` } }]);
    w.result(`c${String(k)}`, "bash", `ok ${String(k)}`);
    const text = correction(k);
    corrections.push(text);
    w.user(text);
    w.assistant([{ type: "text", text: `Switching batch ${String(k)} to the streaming parser.` }]);
    if (k % every === 0) {
      const leaf = w.sm.getLeafId();
      w.sm.appendCompaction(`## Goal\nImport CSV files (round ${String(k)}).\n## Progress\n- batch ${String(k)} streams\n- tests pass\n## Next\n- batch ${String(k + 1)}`, leaf, 1000 + k);
    }
  }
  w.user("Carry on with the next batch.");
  return { w, corrections };
}

describe("the verbatim share on a long session", () => {
  it("stays within budget with hundreds of corrections: founding whole, newest verbatim, rest counted with #N", async () => {
    const { w, corrections } = longSession(tempDir(), 240, 1000);
    const session = await readSession(w.file);
    for (const budget of [1000, 4000]) {
      const r = compactSession(session, { now: NOW, budget });
      expect(estimateTokens(r.summary)).toBeLessThanOrEqual(budget);
      expect(r.stats.summary.withinBudget).toBe(true);
      expect(estimateTokens(compactSession(session, { now: NOW, budget, format: "pi" }).summary)).toBeLessThanOrEqual(budget);
      const doc = parseSummary(r.summary);
      expect(doc.goal?.text).toBe(FOUNDING_LONG);
      // The verbatim items as rendered fit in half the budget.
      const verbatimOnly = renderBrackets({ ...doc, scopeChanges: [], scopeOmitted: null, preferences: [], correctionsOmitted: null, statements: [], statementsOmitted: null, files: [], filesOmitted: [], commits: [], commitsOmitted: null, anchors: { commits: [], errors: [], files: [] }, previous: [], typeCatalog: [], typeCatalogOmitted: null, outstanding: [], outstandingOmitted: null, earlierTurns: [], earlierTurnsOmitted: null, status: { focus: null, lastAction: null, next: [] }, brief: [], briefOmitted: null });
      const footerOnly = renderBrackets({ ...parseSummary(r.summary), goal: null, corrections: [], scopeChanges: [], scopeOmitted: null, preferences: [], correctionsOmitted: null, statements: [], statementsOmitted: null, files: [], filesOmitted: [], commits: [], commitsOmitted: null, anchors: { commits: [], errors: [], files: [] }, previous: [], typeCatalog: [], typeCatalogOmitted: null, outstanding: [], outstandingOmitted: null, earlierTurns: [], earlierTurnsOmitted: null, status: { focus: null, lastAction: null, next: [] }, brief: [], briefOmitted: null });
      expect(Buffer.byteLength(verbatimOnly) - Buffer.byteLength(footerOnly)).toBeLessThanOrEqual((budget * 4) / 2 + 40);
      // The newest correction is kept verbatim, and the kept ones are the newest (a suffix by recency).
      const kept = doc.corrections.map((c) => c.text);
      expect(kept.length).toBeGreaterThan(0);
      expect(kept[kept.length - 1]).toBe(corrections[corrections.length - 1]);
      for (const text of kept) expect(corrections).toContain(text);
      // Everything left out is counted, pointing at the newest omitted #N.
      const omitted = doc.correctionsOmitted;
      expect(omitted).not.toBeNull();
      expect((omitted?.count ?? 0) + kept.length).toBeGreaterThanOrEqual(corrections.length);
      expect(omitted?.recall).toMatch(/^#[0-9]+(?:, #[0-9]+)*(?: …)?$/);
      const newestLeftOut = corrections.filter((c) => !kept.includes(c)).pop();
      const pointed = Number(/^#([0-9]+)/.exec(omitted?.recall ?? "")?.[1]);
      expect(session.blocks[pointed]?.text).toBe(newestLeftOut);
    }
  });

  it("stays within budget with many earlier summaries: the oldest folded into one line with their #N range", async () => {
    const { w } = longSession(tempDir(), 120, 3);
    const session = await readSession(w.file);
    expect(session.compactions.length).toBe(40);
    const r = compactSession(session, { now: NOW, budget: 1000 });
    expect(estimateTokens(r.summary)).toBeLessThanOrEqual(1000);
    const doc = parseSummary(r.summary);
    const folded = doc.previous[0];
    expect(folded?.label).toMatch(/^compaction 1 to compaction [0-9]+$/);
    const m = /^… \(([0-9]+) summaries clipped; recall #([0-9]+)–#([0-9]+)\)$/.exec(folded?.lines[0] ?? "");
    expect(m).not.toBeNull();
    // The range runs from the first compaction's block to the last folded one's, which recall expands.
    const first = session.blocks.find((b) => b.kind === "compaction");
    expect(Number(m?.[2])).toBe(first?.index);
    expect(session.blocks[Number(m?.[3])]?.kind).toBe("compaction");
    expect(Number(m?.[1]) + doc.previous.length - 1).toBe(40);
    // Deterministic.
    expect(compactSession(session, { now: NOW, budget: 1000 }).summary).toBe(r.summary);
  });
});
