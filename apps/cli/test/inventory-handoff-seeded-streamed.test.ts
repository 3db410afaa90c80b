// `inventory` and `handoff` with a seed index beside the session. A session that streams reads the
// index's records without their spans and walks those from the file (the `index` record of a 1 GB
// session is one 213 MB line): inventory keeps the codes and folded anchors in tables of numbers
// (`CompactCodeAssigner`, `CompactBlockSet`), handoff keeps only the newest `--max-spans` spans and a
// count. What both print must be today's: inventory over the index read whole (codes as pairs, folded
// as a Set, `archivalUnion`), handoff over its `currentView` held whole — with the streamed paths forced
// on (CONTEXT_FOLD_STREAM_ABOVE=0) and off, on every shared fixture and on Pi-written sessions. The
// index has a superseded record, a retraction and codes that are not their blocks' own, so the rules
// of which code a block keeps and which record wins are exercised, not only the plain case.
import { copyFileSync, mkdirSync, readFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { buildCompactRecord, renderInventory, sessionInventory } from "@context-fold/extractors";
import { readSession, type Session } from "@context-fold/ledger-reader";
import {
  appendRecord,
  archivalUnion,
  CodeAssigner,
  codeFor,
  currentView,
  type FoldIndexRecord,
  type FoldRetractRecord,
  readSeedIndexFile,
  seedIndexPath,
  type Span,
} from "@context-fold/seed-index-format";
import { sessionHandoff } from "@context-fold/summary-formatter";
import { tempDir } from "@context-fold/test-support";
import { afterEach, expect } from "vitest";
import { inventoryBar } from "../src/commands/inventory.js";
import { cli } from "./support/run-cli.js";
import { describeStreamedComparison, GENERATED_RUNS } from "./support/streamed-compare.js";

const AT = "2026-03-01T10:00:00.000Z";
const NOW = "2026-07-28T21:14:03.000Z";

afterEach(() => {
  delete process.env["CONTEXT_FOLD_STREAM_ABOVE"];
});

/**
 * Writes the seed index beside `session`: a `compact` record of the first half of the lineage's spans
 * (seq 0); a `threshold` record of the second half but its last three spans and one more (seq 1), then a
 * `cap` record superseding it (seq 1 again) whose last spans carry codes other than their blocks' own (a 12-character one, one taken from a
 * block no record names, one of another record's block) and the first half's first span again; a
 * `threshold` record (seq 2) retracted. Returns the number of spans written.
 */
async function writeSeedIndex(session: string, whole: Session): Promise<number> {
  const file = seedIndexPath(session, whole.header.id);
  mkdirSync(dirname(file), { recursive: true });
  const record = buildCompactRecord(whole, { seq: 0, at: AT, scope: "lineage", codes: new CodeAssigner() });
  const all = record.spans;
  const half = Math.ceil(all.length / 2);
  const first = all.slice(0, half);
  // The last span of a block the inventory gives a code is named by no record: that block finds its code taken.
  const coded = new Set(sessionInventory(whole, {}).items.flatMap((item) => (item.code === undefined || item.anchor === undefined ? [] : [item.anchor])));
  const unnamed = all.findLast((span, i) => i >= half && coded.has(span.blockId));
  const second = all.slice(half).filter((span) => span !== unnamed);
  await appendRecord(file, { ...record, spans: first });
  // x, y and z are first named by the superseding record (a block keeps the first code it is named with).
  const changed: Span[] = second.slice(0, Math.max(0, second.length - 3));
  const [x, y, z] = second.slice(-3);
  await appendRecord(file, { ...record, seq: 1, trigger: "threshold", spans: changed.slice() });
  // x keeps its 12-character code; y takes the 10-character code of the block named by no record (that
  // block, met later in the context, is given its 12-character code); z takes the code of the first
  // half's first block (already held: z gets no code from the index).
  if (x !== undefined) changed.push({ ...x, code: codeFor(x.blockId, 12) });
  if (y !== undefined && unnamed !== undefined) changed.push({ ...y, code: codeFor(unnamed.blockId, 10) });
  if (z !== undefined && first[0] !== undefined) changed.push({ ...z, code: first[0].code });
  if (first[0] !== undefined) changed.push(first[0]);
  await appendRecord(file, { ...record, seq: 1, trigger: "cap", spans: changed });
  await appendRecord(file, { ...record, seq: 2, trigger: "threshold", spans: first.slice(0, 2) });
  const retract: FoldRetractRecord = { kind: "fold-retract", v: 2, seq: 2, session: whole.header.id, at: AT, reason: "retracted by the test" };
  await appendRecord(file, retract);
  return all.length;
}

/** Today's inputs from the seed index, read whole: inventory's pairs and folded set, handoff's current view. */
async function wholeSeed(session: string, whole: Session): Promise<{ codes: [string, string][]; folded: Set<string>; view: FoldIndexRecord[] }> {
  const { outcomes } = await readSeedIndexFile(seedIndexPath(session, whole.header.id));
  const codes: [string, string][] = [];
  const folded = new Set<string>();
  for (const record of archivalUnion(outcomes)) {
    for (const span of record.spans) {
      codes.push([span.blockId, span.code]);
      if (record.trigger !== "compact") folded.add(span.blockId);
    }
  }
  return { codes, folded, view: currentView(outcomes) };
}

async function expectSame(original: string): Promise<number> {
  const dir = tempDir();
  const session = join(dir, basename(original));
  copyFileSync(original, session);
  const whole = await readSession(session);
  const spans = await writeSeedIndex(session, whole);
  const seed = await wholeSeed(session, whole);
  const inventory = sessionInventory(whole, { floor: {}, codes: seed.codes, folded: seed.folded });
  const inventoryText = `${inventoryBar(inventory)}\n\n${renderInventory(inventory)}\n`;
  for (const limit of [undefined, "0"]) {
    if (limit === undefined) delete process.env["CONTEXT_FOLD_STREAM_ABOVE"];
    else process.env["CONTEXT_FOLD_STREAM_ABOVE"] = limit;
    const json = await cli(["inventory", session, "--json"]);
    expect(json.exit).toBe(0);
    expect(json.stdout).toBe(`${JSON.stringify(inventory, null, 2)}\n`);
    expect((await cli(["inventory", session])).stdout).toBe(inventoryText);

    for (const maxSpans of [undefined, 2, 0]) {
      const options = { sessionFile: session, seedIndexFile: seedIndexPath(session, whole.header.id), seedRecords: seed.view, now: NOW, ...(maxSpans === undefined ? {} : { maxSpans }) };
      const expected = sessionHandoff(whole, options);
      const out = join(dir, `handoff-${limit ?? "default"}-${String(maxSpans)}.md`);
      const run = await cli(["handoff", session, "--out", out, "--now", NOW, "--json", ...(maxSpans === undefined ? [] : ["--max-spans", String(maxSpans)])]);
      expect(run.exit).toBe(0);
      expect(readFileSync(out, "utf8")).toBe(expected.markdown);
      const { doc } = expected;
      expect(run.stdout).toBe(`${JSON.stringify({ path: out, bytes: Buffer.byteLength(expected.markdown), goal: doc.goal, openErrors: doc.openErrors, pointers: doc.pointers }, null, 2)}\n`);
    }
  }
  return spans;
}

describeStreamedComparison({
  what: "inventory and handoff with a seed index, streamed,",
  compare: expectSame,
  runs: GENERATED_RUNS,
  // Sessions with spans to fold, so the index is not empty.
  onGenerated: (_whole, spans) => expect(spans).toBeGreaterThan(10),
});
