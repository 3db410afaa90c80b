// `artifacts`, `inventory` and `verify` read the session's shape and stream it once, keeping only what
// their answer needs (the accumulator's state; the context's blocks; the blocks the spans name). Their
// output must be byte-identical to the whole read's on every shared fixture and on Pi-written sessions.
import { join } from "node:path";
import { buildCompactRecord, extractArtifacts, sessionInventory, sessionInventoryStreamed, verifySpans } from "@context-fold/extractors";
import { lineageBlocks, readSession, readSessionShape, withAnchoredBlocks } from "@context-fold/ledger-reader";
import { CodeAssigner, type FoldIndexRecord } from "@context-fold/seed-index-format";
import { generateSession } from "@context-fold/session-gen";
import { describeShared, sessionFixtures, sharedFixture, tempDir } from "@context-fold/test-support";
import { describe, expect, it } from "vitest";
import { artifactsText, streamedArtifacts } from "../src/commands/artifacts.js";
import { inventoryBar } from "../src/commands/inventory.js";

const AT = "2026-03-01T10:00:00.000Z";

/** Checks of what each streamed command prints against the whole read; returns the spans verified. */
async function expectSame(file: string): Promise<number> {
  const whole = await readSession(file);
  const shape = await readSessionShape(file);
  const cwd = whole.header.cwd === undefined ? {} : { cwd: whole.header.cwd };
  const artifacts = extractArtifacts(lineageBlocks(whole), cwd);
  const streamed = await streamedArtifacts(shape);
  expect(JSON.stringify(streamed)).toBe(JSON.stringify(artifacts));
  expect(artifactsText(streamed)).toBe(artifactsText(artifacts));

  for (const options of [{}, { floor: { systemPrompt: 1200, tools: 800 }, dormantTurns: 2 }]) {
    const inventory = sessionInventory(whole, options);
    const got = await sessionInventoryStreamed(shape, options);
    expect(JSON.stringify(got)).toBe(JSON.stringify(inventory));
    expect(inventoryBar(got)).toBe(inventoryBar(inventory));
  }

  // A record of the whole lineage, plus spans the ledger cannot match: a changed hash, an unknown anchor.
  const record = buildCompactRecord(whole, { seq: 0, at: AT, scope: "lineage", codes: new CodeAssigner() });
  const first = record.spans[0];
  const spans = first === undefined ? record.spans : [...record.spans, { ...first, sha256: "0".repeat(64) }, { ...first, blockId: "r:no-such-call" }];
  const records: FoldIndexRecord[] = [{ ...record, spans }];
  const expected = verifySpans(whole, records);
  const got = verifySpans(await withAnchoredBlocks(shape, spans.map((s) => s.blockId)), records);
  expect(JSON.stringify(got)).toBe(JSON.stringify(expected));
  return expected.verified;
}

describeShared("artifacts, inventory and verify streamed equal the whole read's", () => {
  const files = [...sessionFixtures(), sharedFixture("real", "castai-kimchi-dev-910d402__session.jsonl"), sharedFixture("real", "pinion05-act-3ae80f5__03-raddit-dashboard-pr.jsonl")];
  for (const file of files) {
    it(file.split("/").pop() ?? file, async () => {
      await expectSame(file);
    });
  }
});

describe("artifacts, inventory and verify streamed on Pi-written sessions", () => {
  it("branches, compactions, context edits and damage (torn, malformed, torn tail)", async () => {
    const dir = tempDir();
    const runs: Parameters<typeof generateSession>[1][] = [
      { seed: 3, turns: 60, compactions: 3 },
      { seed: 4, turns: 60, compactions: 2, damage: { tornLines: 3, malformedLines: 3, truncatedTail: true } },
      { seed: 6, turns: 40, compactions: 0 },
    ];
    for (const options of runs) {
      const file = join(dir, `s${String(options.seed)}.jsonl`);
      await generateSession(file, options);
      const whole = await readSession(file);
      expect(whole.entries.some((e) => e.type === "context_edit")).toBe(true);
      // Spans to verify exist, edited ones among them (`:edit:` anchors resolve through the edit).
      expect(await expectSame(file)).toBeGreaterThan(10);
    }
  });
});
