// Blocks are sized for the cut as they are fed (turn end), and the cut adds those sizes up instead of
// measuring every block's text again in the hook.
import { join } from "node:path";
import { expect, test } from "vitest";
import { lineageBlocks, readSession } from "@context-fold/ledger-reader";
import { CodeAssigner } from "@context-fold/seed-index-format";
import { generateSession } from "@context-fold/session-gen";
import { planCut, utf8Bytes } from "@context-fold/summary-formatter";
import { tempDir } from "@context-fold/test-support";
import { CompactionFacts } from "../../src/compaction/compaction-facts.js";

test("feeding sizes each block once by #N, and planCut takes those sizes (the same cut as measuring)", async () => {
  const file = join(tempDir("block-bytes-"), "session.jsonl");
  await generateSession(file, { seed: 13, size: 300_000, compactions: 1 });
  const session = await readSession(file);
  const facts = new CompactionFacts(session.header.cwd, new CodeAssigner());
  for (const block of lineageBlocks(session)) if (block.role === "user") facts.feed(session, block.entryPosition);
  const fed = lineageBlocks(session).filter((b) => b.index <= facts.lastIndex);
  expect(fed.length).toBeGreaterThan(0);
  for (const b of fed) expect(facts.blockBytes[b.index]).toBe(utf8Bytes(b.text));
  expect(planCut(session, { blockBytes: facts.blockBytes })).toEqual(planCut(session));

  // The kept sizes are what the cut adds up: doubled sizes for the fed blocks double their share.
  const doubled = facts.blockBytes.map((n) => (n === undefined ? undefined : n * 2));
  const plain = planCut(session);
  expect(planCut(session, { blockBytes: doubled }).tokensBefore).toBeGreaterThan(plain.tokensBefore);
});
