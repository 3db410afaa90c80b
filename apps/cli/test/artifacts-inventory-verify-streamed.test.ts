// `artifacts`, `inventory` and `verify` read the session's shape and stream it once, keeping only what
// their answer needs (the accumulator's state; the context's blocks; the blocks the spans name). Their
// output must be byte-identical to the whole read's on every shared fixture and on Pi-written sessions.
import { buildCompactRecord, extractArtifacts, inventoryAlong, inventoryPlan, renderInventory, sessionInventory, sessionInventoryStreamed, verifySpans } from "@context-fold/extractors";
import { lineageBlocks, withAnchoredBlocks } from "@context-fold/ledger-reader";
import { CodeAssigner, type FoldIndexRecord } from "@context-fold/seed-index-format";
import { expect } from "vitest";
import { describeStreamedComparison, GENERATED_RUNS, readBoth } from "./support/streamed-compare.js";
import { artifactsText, streamedArtifacts } from "../src/commands/artifacts.js";
import { inventoryBar } from "../src/commands/inventory.js";

const AT = "2026-03-01T10:00:00.000Z";

/** Checks of what each streamed command prints against the whole read; returns the spans verified. */
async function expectSame(file: string): Promise<number> {
  const { whole, shape } = await readBoth(file);
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
    // What the CLI prints on a large session: the shape's plan only, the items made as they are read.
    const lazy = await inventoryAlong(inventoryPlan(shape), options, { lazyItems: true });
    expect(JSON.stringify(lazy, null, 2)).toBe(JSON.stringify(inventory, null, 2));
    expect(renderInventory(lazy)).toBe(renderInventory(inventory));
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

describeStreamedComparison({
  what: "artifacts, inventory and verify streamed",
  compare: expectSame,
  runs: [...GENERATED_RUNS, { seed: 6, turns: 40, compactions: 0 }],
  // Spans to verify exist, edited ones among them (`:edit:` anchors resolve through the edit).
  onGenerated: (_whole, verified) => expect(verified).toBeGreaterThan(10),
});
