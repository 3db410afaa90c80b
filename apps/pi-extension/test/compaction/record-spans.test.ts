// The `compact` record hands out the spans kept from feeding without copying them in the hook; a later
// feed must not change a record already made (it copies the list before adding to it).
import { join } from "node:path";
import { expect, test } from "vitest";
import { lastEntryTime } from "@context-fold/extractors";
import { lineageBlocks, readSession } from "@context-fold/ledger-reader";
import { CodeAssigner } from "@context-fold/seed-index-format";
import { generateSession } from "@context-fold/session-gen";
import { tempDir } from "@context-fold/test-support";
import { CompactionFacts } from "../../src/compaction/compaction-facts.js";

test("a record's spans stay as they were when later turns are fed", async () => {
  const file = join(tempDir("record-spans-"), "session.jsonl");
  await generateSession(file, { seed: 17, size: 300_000, compactions: 1 });
  const session = await readSession(file);
  const codes = new CodeAssigner();
  const facts = new CompactionFacts(session.header.cwd, codes);
  const users = lineageBlocks(session).filter((block) => block.role === "user");
  expect(users.length).toBeGreaterThan(4);
  const params = { sessionId: session.header.id, seq: 1, at: lastEntryTime(session) ?? "", trigger: "compact" as const, favourRecent: true, codes };
  facts.feed(session, users[2]?.entryPosition);
  const early = facts.record(params);
  const held = [...early.spans];
  expect(held.length).toBeGreaterThan(0);
  facts.feed(session, users[users.length - 1]?.entryPosition);
  const late = facts.record(params);
  expect(late.spans.length).toBeGreaterThan(held.length);
  expect(early.spans).toEqual(held);
  expect(late.spans.slice(0, held.length)).toEqual(held);
});
