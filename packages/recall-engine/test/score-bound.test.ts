// The score bound history search skips sessions by (rank.ts `wordsScoreBound`) against the scores the
// ranking gives: over generated sessions (tool calls and results, prose quoting outputs, user messages)
// and queries reaching every kind of match (whole word, prefix, stem, pieces, speaker, stopwords,
// compounds' parts, the verbatim boost), no block ever scores above its session's bound.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readSession } from "@context-fold/ledger-reader";
import { generateSession } from "@context-fold/session-gen";
import { tempDir } from "@context-fold/test-support";
import { parseQuery, RecallIndex, TermIndex, wordsScoreBound } from "@context-fold/recall-engine";

const QUERIES = [
  "checksum",
  "checksum drift",
  "what did the user ask",
  "user",
  "src/ledger/reader.ts",
  "src/ledg",
  "read",
  "reading the ledger files",
  "the",
  "Command exited with code 1",
  "timeout deadline vitest",
  "pnpm run typecheck",
];

describe("wordsScoreBound", () => {
  it("is above every score the ranking gives a block of the session, in every scope", async () => {
    const dir = tempDir("score-bound-");
    let checked = 0;
    for (const seed of [3, 11, 42]) {
      const file = join(dir, `s${String(seed)}.jsonl`);
      await generateSession(file, { seed, turns: 30, cwd: "/home/dev/bound" });
      const session = await readSession(file);
      const terms = new TermIndex();
      const index = RecallIndex.fromTerms(session, terms);
      for (const query of QUERIES) {
        const parsed = parseQuery(query);
        if (parsed.mode !== "words") throw new Error(`${query} is not a word query`);
        const bound = wordsScoreBound(terms, parsed, (word) => word === "user");
        for (const scope of ["all", "lineage"]) {
          const { ranked } = index.rank(query, { scope });
          for (const hit of ranked) expect(hit.score, `${query} (${scope}) seed ${String(seed)} #${String(hit.doc)}`).toBeLessThanOrEqual(bound);
          checked += ranked.length;
        }
      }
    }
    // The queries reach blocks: the bound was held against real scores.
    expect(checked).toBeGreaterThan(100);
  });

  it("gives no bound (Infinity) for a query with a phrase", () => {
    const parsed = parseQuery("\"checksum drift\"");
    if (parsed.mode !== "words") throw new Error("not a word query");
    expect(wordsScoreBound(new TermIndex(), parsed, () => false)).toBe(Number.POSITIVE_INFINITY);
  });
});
