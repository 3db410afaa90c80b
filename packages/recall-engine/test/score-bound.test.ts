// The score bound history search skips sessions by (rank.ts `wordsScoreBound`) against the scores the
// ranking gives: over generated sessions (tool calls and results, prose quoting outputs, user messages)
// and queries reaching every kind of match (whole word, prefix, stem, pieces, speaker, stopwords,
// compounds' parts, the verbatim boost), no block ever scores above its session's bound.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SessionManager } from "@earendil-works/pi-coding-agent";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
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
  // A long word whose first six letters begin other terms (`normalize…`): its truncation stem scores too.
  "normalization of the ledger window",
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

  it("is reached by a short user message holding the query's only occurrences (kind weight and verbatim boost counted)", async () => {
    const dir = tempDir("score-bound-tight-");
    const sm = SessionManager.create("/home/dev/bound", dir);
    sm.appendMessage({ role: "user", content: "the quick zebrafish jumped", timestamp: 1 } as unknown as AgentMessage);
    sm.appendMessage({ role: "assistant", content: [{ type: "text", text: "Looking at the parser configuration now." }], api: "faux", provider: "faux", model: "faux", usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } }, stopReason: "stop", timestamp: 2 } as unknown as AgentMessage);
    sm.appendMessage({ role: "user", content: "and the lexer tests pass", timestamp: 3 } as unknown as AgentMessage);
    const session = await readSession(sm.getSessionFile() as string);
    const terms = new TermIndex();
    const index = RecallIndex.fromTerms(session, terms);
    for (const query of ["zebrafish", "quick zebrafish jumped"]) {
      const parsed = parseQuery(query);
      if (parsed.mode !== "words") throw new Error(`${query} is not a word query`);
      const bound = wordsScoreBound(terms, parsed, (word) => word === "user");
      const top = index.rank(query, { scope: "all" }).ranked[0]?.score ?? 0;
      expect(top, query).toBeLessThanOrEqual(bound);
      expect(top, query).toBeGreaterThan(bound * 0.999);
    }
  });

  it("gives no bound (Infinity) for a query with a phrase", () => {
    const parsed = parseQuery("\"checksum drift\"");
    if (parsed.mode !== "words") throw new Error("not a word query");
    expect(wordsScoreBound(new TermIndex(), parsed, () => false)).toBe(Number.POSITIVE_INFINITY);
  });
});
