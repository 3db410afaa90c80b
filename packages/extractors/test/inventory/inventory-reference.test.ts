// `buildInventory` now takes blocks one at a time and lets their text go (InventoryAccumulator, issue 28):
// its inventory must be byte-identical to the one-pass function it replaced (kept as the reference in
// reference-build-inventory.ts), on every session fixture, two long real sessions and Pi-written sessions
// with compactions, branches, context edits and damage, with options that exercise folds, seed-index
// codes, the floor and the dormant threshold.
import { join } from "node:path";
import { readSession } from "@context-fold/ledger-reader";
import { generateSession } from "@context-fold/session-gen";
import { describeShared, sessionFixtures, sharedFixture, tempDir } from "@context-fold/test-support";
import { describe, expect, it } from "vitest";
import { buildInventory, contextBlocks, type InventoryOptions } from "@context-fold/extractors";
import { referenceBuildInventory } from "./reference-build-inventory.js";

async function expectSame(file: string): Promise<number> {
  const session = await readSession(file);
  const blocks = contextBlocks(session);
  const cwd = session.header.cwd === undefined ? {} : { cwd: session.header.cwd };
  const anchors = blocks.flatMap((b) => (b.anchor === undefined ? [] : [b.anchor]));
  const optionSets: InventoryOptions[] = [
    cwd,
    {
      ...cwd,
      dormantTurns: 2,
      floor: { systemPrompt: 1200, tools: "declarations" },
      // Every third anchor folded; codes kept from a seed index for some, one of them taken by another block id.
      folded: new Set(anchors.filter((_, i) => i % 3 === 0)),
      codes: [...anchors.filter((_, i) => i % 5 === 0).map((a, i): [string, string] => [a, `kept${String(i).padStart(6, "0")}`]), ["r:elsewhere", "kept000000"]],
    },
  ];
  for (const options of optionSets) {
    expect(JSON.stringify(buildInventory(blocks, options), null, 2)).toBe(JSON.stringify(referenceBuildInventory(blocks, options), null, 2));
  }
  return blocks.length;
}

describeShared("buildInventory equals the reference on the shared fixtures", () => {
  for (const file of [...sessionFixtures(), sharedFixture("real", "castai-kimchi-dev-910d402__session.jsonl"), sharedFixture("real", "pinion05-act-3ae80f5__03-raddit-dashboard-pr.jsonl")]) {
    it(file.split("/").pop() ?? file, async () => {
      await expectSame(file);
    });
  }
});

describe("buildInventory equals the reference on Pi-written sessions", () => {
  it("compactions, branches, context edits, damage, and a long session never compacted", async () => {
    const dir = tempDir();
    for (const options of [
      { seed: 3, turns: 60, compactions: 3 },
      { seed: 4, turns: 60, compactions: 2, damage: { tornLines: 3, malformedLines: 3, truncatedTail: true } },
      { seed: 6, turns: 120, compactions: 0 },
    ]) {
      const file = join(dir, `s${String(options.seed)}.jsonl`);
      await generateSession(file, options);
      expect(await expectSame(file)).toBeGreaterThan(50);
    }
  });
});
