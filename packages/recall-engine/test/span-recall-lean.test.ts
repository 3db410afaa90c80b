// Span recall over a seed index whose record is too long to hold (an `index` record of a large session is
// a million spans on one line): the record is read lean and its spans read back from the file as they are
// picked. Differential: every pick (code, anchor, term; archival and current view) is the one the whole
// read gives (`pickSpans` over `readSeedIndexFile`'s records), and each picked span's text is verified.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readSession, type Block } from "@context-fold/ledger-reader";
import {
  appendRecord,
  archivalUnion,
  blockLog,
  codeFor,
  currentView,
  type FoldIndexRecord,
  readSeedIndexFile,
  readSeedIndexFileLean,
  seedIndexPath,
  sha256Hex,
  type Span,
} from "@context-fold/seed-index-format";
import { generateSession } from "@context-fold/session-gen";
import { tempDir } from "@context-fold/test-support";
import { pickSpans, spanRecall, type SpanRecallOptions } from "@context-fold/recall-engine";

function spanOf(block: Block): Span {
  const anchor = block.anchor ?? "";
  return { blockId: anchor, code: codeFor(anchor), turn: block.turn, log: blockLog(block.text), sha256: sha256Hex(block.text), ...(block.toolName === undefined ? {} : { tool: block.toolName }) };
}

/** Spans of blocks that are not in the session (a record of another session's blocks would read so): pad a line past 8 MiB. */
function padding(n: number): Span[] {
  const out: Span[] = [];
  for (let i = 0; i < n; i++) {
    const blockId = `r:call_padding_${String(i).padStart(6, "0")}`;
    out.push({ blockId, code: codeFor(blockId), turn: 1, log: { bytes: 4000, lines: 80 }, sha256: sha256Hex(blockId), tool: "bash" });
  }
  return out;
}

function record(session: string, seq: number, trigger: FoldIndexRecord["trigger"], spans: Span[], identifiers: string[]): FoldIndexRecord {
  return { v: 2, kind: "fold-index", harness: "pi-context-fold", session, seq, at: "2026-03-01T10:00:00.000Z", trigger, files: [], commands: [], errors: [], identifiers, userMessages: [], spans };
}

describe("spanRecall on a record too long to hold", async () => {
  const dir = tempDir("recall-span-lean-");
  const file = join(dir, "s.jsonl");
  await generateSession(file, { seed: 23, turns: 60 });
  const session = await readSession(file);
  const results = session.blocks.filter((b) => b.kind === "toolResult" && b.anchor !== undefined);
  const seedIndex = seedIndexPath(file, session.header.id);
  // seq 0: every tool result of the session among 60,000 foreign spans (one line of ~10 MB, read lean).
  const big = [...padding(30_000), ...results.map(spanOf), ...padding(30_000).map((s) => ({ ...s, blockId: `${s.blockId}_b`, code: codeFor(`${s.blockId}_b`) }))];
  await appendRecord(seedIndex, record(session.header.id, 0, "compact", big, ["bigRecordTerm"]));
  // seq 1: a fold of a few of the same blocks (the later record names them last), held whole.
  const folded = results.slice(2, 6);
  await appendRecord(seedIndex, record(session.header.id, 1, "threshold", folded.map(spanOf), ["smallRecordTerm"]));

  it("the long line is read lean (its spans left in the file)", async () => {
    const { outcomes } = await readSeedIndexFileLean(seedIndex);
    const long = outcomes.find((o) => o.outcome === "record" && o.record.seq === 0);
    expect(long?.outcome === "record" ? long.spansInFile?.count : undefined).toBe(big.length);
  });

  const queries: SpanRecallOptions[] = [
    { code: codeFor(results[0]?.anchor ?? "") },
    { code: codeFor(results[3]?.anchor ?? "") },
    { anchor: results[results.length - 1]?.anchor ?? "" },
    { anchor: results[4]?.anchor ?? "", view: "current" },
    { term: "smallrecordterm" },
    { code: codeFor(results[1]?.anchor ?? ""), view: "current" },
  ];
  it.each(queries.map((q) => [JSON.stringify(q), q] as const))("%s: the spans the whole read picks, verified", async (_, options) => {
    const { outcomes } = await readSeedIndexFile(seedIndex);
    const records = options.view === "current" ? currentView(outcomes) : archivalUnion(outcomes);
    const expected = pickSpans(records, options);
    expect(expected.length).toBeGreaterThan(0);
    const r = await spanRecall(session, options);
    expect(r.records).toBe(records.length);
    expect(r.spans.map((s) => ({ blockId: s.blockId, code: s.code, seq: s.seq, turn: s.turn, tool: s.tool }))).toEqual(
      expected.map(({ span, seq }) => ({ blockId: span.blockId, code: span.code, seq, turn: span.turn, tool: span.tool })),
    );
    for (const s of r.spans) {
      expect(s.status).toBe("verified");
      expect(s.text).toBe(session.blocks[s.index ?? -1]?.text);
    }
  });

  it("a term of the long record picks all its spans, in its order, the later record's naming last", async () => {
    const { outcomes } = await readSeedIndexFile(seedIndex);
    const expected = pickSpans(archivalUnion(outcomes), { term: "bigrecordterm" });
    const r = await spanRecall(session, { term: "bigrecordterm" });
    expect(r.spans.map((s) => [s.blockId, s.seq, s.status])).toEqual(expected.map(({ span, seq }) => [span.blockId, seq, span.blockId.includes("padding") ? "missing" : "verified"]));
  });
});
