// An index grown as Pi appends to a session (read the new lines, index the new blocks: one sparse
// segment per update, merged in tiers) must answer every query exactly as one built from the whole
// file at once: same hits, same order, same scores, same pages.
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { readSession, updateSession } from "@context-fold/ledger-reader";
import { describeShared, sharedFixture, tempDir } from "@context-fold/test-support";
import { RecallIndex } from "@context-fold/recall-engine";

/** Queries drawn from the session's own text (rare and common words, compounds, prefixes), plus questions, a phrase and a regex. */
function queriesOf(texts: readonly string[]): string[] {
  const out = new Set(["why did the build fail?", "which file was edited", '"the session"', "/error|fail/", "src/", "test"]);
  const token = /[A-Za-z_][A-Za-z0-9_./-]{3,40}/g;
  for (let k = 0; k < texts.length; k += Math.max(1, Math.floor(texts.length / 30))) {
    const words = (texts[k] ?? "").slice(0, 600).match(token) ?? [];
    const longest = words.reduce((a, b) => (b.length > a.length ? b : a), "");
    if (longest !== "") {
      out.add(longest);
      out.add(longest.slice(0, Math.max(3, Math.floor(longest.length / 2))));
    }
    if (words.length > 2) out.add(`${words[0] ?? ""} ${words[words.length - 1] ?? ""}`);
  }
  return [...out];
}

describeShared("an index grown by appends answers as one built at once (real session)", () => {
  it("pi-mono__before-compaction.jsonl appended in uneven pieces: every query, both scopes, pages 1 and 2", async () => {
    const source = sharedFixture("sessions", "pi-mono__before-compaction.jsonl");
    const lines = readFileSync(source, "utf8").split("\n").filter((line) => line.length > 0);
    const file = join(tempDir("update-equals-build"), "session.jsonl");
    // The header and the first lines, then appends of 1 to 60 lines, as Pi writes them.
    let at = 8;
    writeFileSync(file, `${lines.slice(0, at).join("\n")}\n`);
    let session = await readSession(file);
    const grown = RecallIndex.build(session);
    for (let k = 0; at < lines.length; k++) {
      const count = Math.min(lines.length - at, 1 + ((k * 17) % 60));
      appendFileSync(file, `${lines.slice(at, at + count).join("\n")}\n`);
      at += count;
      session = await updateSession(session);
      grown.update(session);
    }
    const whole = RecallIndex.build(await readSession(file));
    expect(grown.blockCount).toBe(whole.blockCount);
    expect(grown.serialize({}).equals(whole.serialize({}))).toBe(true);
    const queries = queriesOf(session.blocks.map((b) => b.text));
    expect(queries.length).toBeGreaterThan(30);
    for (const query of queries) {
      for (const scope of ["lineage", "all"]) {
        for (const page of [1, 2]) {
          const options = { scope, page };
          expect(grown.search(query, options), `${query} (${scope}, page ${String(page)})`).toEqual(whole.search(query, options));
        }
      }
    }
  });
});
