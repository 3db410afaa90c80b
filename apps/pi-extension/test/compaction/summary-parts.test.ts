// The summary's parts prepared at a turn's end: a snapshot keeps the lists (and items) a turn did not
// change as the same objects, so a turn's end remakes only the parts of what changed, and a tail that
// only grew remakes only the parts made of the tail.
import { join } from "node:path";
import { expect, test } from "vitest";
import type { DurableArtifacts, SessionFacts } from "@context-fold/extractors";
import { lineageBlocks, readSession } from "@context-fold/ledger-reader";
import { CodeAssigner } from "@context-fold/seed-index-format";
import { generateSession } from "@context-fold/session-gen";
import { tempDir } from "@context-fold/test-support";
import { CompactionFacts } from "../../src/compaction/compaction-facts.js";
import { sharedWith } from "../../src/compaction/shared-snapshot.js";

function snapshot(files: SessionFacts["files"], corrections: DurableArtifacts["corrections"]): { facts: SessionFacts; artifacts: DurableArtifacts } {
  return {
    facts: {
      goal: null,
      scopeChanges: [],
      preferences: [],
      statements: [],
      files,
      typeCatalog: [],
      commits: [],
      outstanding: [],
      turns: [],
      status: { focus: "", focusIndex: null, nextSteps: [] },
      anchors: { commits: [], errorIds: [], keyFiles: [] },
      range: null,
    },
    artifacts: { initialPrompts: [], corrections, errorLedger: [], workingCommands: [], hexConstants: [], files: [] },
  };
}

test("a snapshot keeps equal lists and equal items as the last one's objects, and takes what changed", () => {
  const file = (path: string, lastIndex: number): SessionFacts["files"][number] => ({ path, status: "read", symbols: ["a", "b"], firstIndex: 1, lastIndex });
  const prev = snapshot([file("a.ts", 3), file("b.ts", 4)], [{ text: "no", turn: 1, index: 2 }]);
  const same = sharedWith(prev, snapshot([file("a.ts", 3), file("b.ts", 4)], [{ text: "no", turn: 1, index: 2 }]));
  expect(same.facts.files).toBe(prev.facts.files);
  expect(same.artifacts.corrections).toBe(prev.artifacts.corrections);
  expect(same.facts.status).toBe(prev.facts.status);

  const grown = sharedWith(prev, snapshot([file("a.ts", 3), file("b.ts", 9), file("c.ts", 10)], [{ text: "no", turn: 1, index: 2 }]));
  expect(grown.facts.files).not.toBe(prev.facts.files);
  expect(grown.facts.files.map((f) => f.lastIndex)).toEqual([3, 9, 10]);
  // The unchanged first item is the last snapshot's object; the changed one is the new snapshot's.
  expect(grown.facts.files[0]).toBe(prev.facts.files[0]);
  expect(grown.facts.files[1]).not.toBe(prev.facts.files[1]);
  // Key order is data too (artifacts are written as JSON): a reordered item is not taken for the old one.
  const reordered = sharedWith(prev, snapshot([{ path: "a.ts", symbols: ["a", "b"], status: "read", firstIndex: 1, lastIndex: 3 }, file("b.ts", 4)], []));
  expect(reordered.facts.files).not.toBe(prev.facts.files);
  expect(Object.keys(reordered.facts.files[0] ?? {})).toEqual(["path", "symbols", "status", "firstIndex", "lastIndex"]);
});

test("a turn's end remakes no part while nothing changed, and only the tail's parts while only the tail grew", async () => {
  const path = join(tempDir("summary-parts-"), "session.jsonl");
  await generateSession(path, { seed: 21, size: 400_000, compactions: 1 });
  const session = await readSession(path);
  const facts = new CompactionFacts(session.header.cwd, new CodeAssigner());
  const users = lineageBlocks(session).filter((block) => block.role === "user");
  const last = users[users.length - 1];
  if (last === undefined) throw new Error("the generated session has no user message");
  facts.feed(session, last.entryPosition);
  const tailEntries = session.lineage.filter((entry) => entry.position > last.entryPosition);
  expect(tailEntries.length).toBeGreaterThan(1);
  // The tail as it stood after the run's first entry, then whole.
  facts.prepare(session, 4000, tailEntries[0]?.position);
  const first = facts.parts.made;
  expect(first).toBeGreaterThan(0);
  facts.prepare(session, 4000, tailEntries[0]?.position);
  expect(facts.parts.made).toBe(first);
  facts.prepare(session, 4000);
  const grown = facts.parts.made - first;
  expect(grown).toBeGreaterThan(0);
  expect(grown).toBeLessThan(first / 2);
});
