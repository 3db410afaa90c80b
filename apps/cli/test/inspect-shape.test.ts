// `inspect` reads only the session's shape (readSessionShape: no block text, blocks counted). Its output
// must be byte-identical to what the whole read (readSession, every block and text in memory) gives, on
// every shared fixture and on generated sessions with branches, compactions, edits and damage.
import { join } from "node:path";
import { readSession, readSessionShape, type Session, type SessionShape } from "@context-fold/ledger-reader";
import { generateSession } from "@context-fold/session-gen";
import { describeShared, sessionFixtures, sharedFixture, tempDir } from "@context-fold/test-support";
import { describe, expect, it } from "vitest";
import { inspectJson, inspectText } from "../src/commands/inspect.js";

/** The oracle: the shape as the whole read sees it (blocks counted from the blocks it holds). */
function wholeShape(session: Session): SessionShape {
  const byKind: Record<string, number> = {};
  for (const b of session.blocks) byKind[b.kind] = (byKind[b.kind] ?? 0) + 1;
  const kinds = Object.keys(byKind).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  // Each entry's first #N: the count of blocks of the entries before it.
  const blockStart: number[] = [];
  let b = 0;
  for (const entry of session.entries) {
    blockStart.push(b);
    while (session.blocks[b] !== undefined && (session.blocks[b]?.entryPosition ?? 0) <= entry.position) b++;
  }
  return { session, blockCount: session.blocks.length, blocksByKind: Object.fromEntries(kinds.map((k) => [k, byKind[k] ?? 0])), blockStart, blockBytes: undefined };
}

async function expectSameInspect(file: string, fragment = false): Promise<void> {
  const options = fragment ? { fragment: true as const } : {};
  const whole = wholeShape(await readSession(file, options));
  const shape = await readSessionShape(file, options);
  expect(JSON.stringify(inspectJson(shape), null, 2)).toBe(JSON.stringify(inspectJson(whole), null, 2));
  expect(inspectText(shape)).toBe(inspectText(whole));
  // What else a caller may read off the shape is the whole read's too.
  expect(shape.session.lineage.map((e) => e.id)).toEqual(whole.session.lineage.map((e) => e.id));
  expect(shape.session.compactions).toEqual(whole.session.compactions);
  expect(shape.session.damaged).toEqual(whole.session.damaged);
  expect([...shape.session.lineageIds]).toEqual([...whole.session.lineageIds]);
  expect([...shape.session.recoveredLineageIds]).toEqual([...whole.session.recoveredLineageIds]);
  expect(shape.session.blocks).toEqual([]);
}

describeShared("inspect from the shape read equals the whole read", () => {
  const files = [...sessionFixtures(), sharedFixture("real", "castai-kimchi-dev-910d402__session.jsonl"), sharedFixture("real", "pinion05-act-3ae80f5__03-raddit-dashboard-pr.jsonl")];
  for (const file of files) {
    it(file.split("/").pop() ?? file, async () => {
      await expectSameInspect(file);
    });
  }
  it("a headerless fragment (--fragment)", async () => {
    await expectSameInspect(sharedFixture("real", "pinion05-act-3ae80f5__01-youtube-noheader.jsonl"), true);
  });
});

describe("inspect from the shape read on generated sessions", () => {
  it("branches, compactions, context edits, unknown entries and damage (torn, malformed, torn tail)", async () => {
    const dir = tempDir();
    const seeds: [number, Parameters<typeof generateSession>[1]][] = [
      [3, { seed: 3, turns: 60, compactions: 3 }],
      [4, { seed: 4, turns: 60, compactions: 2, damage: { tornLines: 3, malformedLines: 3, truncatedTail: true } }],
    ];
    for (const [seed, options] of seeds) {
      const file = join(dir, `s${String(seed)}.jsonl`);
      await generateSession(file, options);
      await expectSameInspect(file);
      if (options.damage !== undefined) expect((await readSessionShape(file)).session.damaged.length).toBeGreaterThan(3);
    }
  });
});
