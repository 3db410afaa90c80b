// Turn lines (build-doc.ts' `line`) and statement lines (statement-line.ts' `statementLine`), remembered
// per text, are the ones the full rule makes: at the limits and past them, with and without whitespace to
// flatten or characters beyond ASCII, and the same when asked again.
import { createFactsAccumulator, type SessionFacts } from "@context-fold/extractors";
import { lineageBlocks, readSession } from "@context-fold/ledger-reader";
import { tempDir } from "@context-fold/test-support";
import { describe, expect, it } from "vitest";
import { docFromFacts, LINE_MAX } from "../src/build-doc.js";
import { STATEMENT_MAX, statementLine } from "../src/statement-line.js";
import { clip, flat, oneLine } from "../src/summary-syntax.js";
import { authSession } from "./pi-session.js";

const FOOTER = { at: "", messages: 0, windowTokens: 0, summaryTokens: 0, tailMessages: 0, tailTokens: 0, range: null };

/** Texts of about `n` characters: flat, with a run of spaces, a newline, an arrow, a Unicode space, at either end. */
function textsAround(n: number): string[] {
  const out: string[] = [];
  for (const length of [n - 1, n, n + 1, n + 2, 2 * n + 70]) {
    // Ends on a letter: the flat text of each length is there.
    const base = `${"ran pnpm test → read a.ts … ".repeat(Math.ceil(length / 28)).slice(0, length - 1)}x`;
    out.push(base, ` ${base.slice(1)}`, `${base.slice(0, -1)} `, `${base.slice(0, 10)}  ${base.slice(12)}`, `${base.slice(0, 10)}\n${base.slice(11)}`, `${base.slice(0, 10)}\u3000${base.slice(11)}`);
  }
  return out;
}

describe("one-line items", () => {
  it("are the full rule's for turn lines around LINE_MAX", async () => {
    const session = await readSession(authSession(tempDir()).file);
    const acc = createFactsAccumulator({ cwd: session.header.cwd });
    acc.add(lineageBlocks(session));
    const facts = acc.facts();
    const texts = textsAround(LINE_MAX);
    const turns: SessionFacts["turns"] = texts.map((oneLineText, k) => ({ turn: k + 1, index: 10 + k, oneLine: oneLineText }));
    const doc = docFromFacts({ ...facts, turns }, acc.artifacts(), [], FOOTER);
    expect(doc.earlierTurns.map((t) => t.text)).toEqual(texts.map((t) => oneLine(t, LINE_MAX)));
    expect(doc.earlierTurns.map((t) => t.text)).toEqual(texts.map((t) => clip(flat(t), LINE_MAX)));
  });

  it("are the full rule's for statements around STATEMENT_MAX", () => {
    for (const text of textsAround(STATEMENT_MAX)) {
      const line = statementLine(text);
      // The whole flattened text when it fits, else shortened within the width.
      if (flat(text).length <= STATEMENT_MAX) expect(line).toBe(flat(text));
      else expect(line.length).toBeLessThanOrEqual(STATEMENT_MAX);
      expect(statementLine(text), text).toBe(line);
    }
  });
});
