// Session start reads the seed index lean (FoldState.restoreLean): a record too long to hold (an `index`
// record of a large session, a million spans on one line) leaves its spans in the file, read back into a
// table of codes. Differential: the state is the one `restore` builds from the same index read whole —
// the folded spans, next seq, fold events, and the code every block (known or new) is handed.
import { join } from "node:path";
import { readSession } from "@context-fold/ledger-reader";
import {
  appendRecord,
  blockLog,
  CodeAssigner,
  codeFor,
  currentView,
  type FoldIndexRecord,
  type FoldRetractRecord,
  nextSeq,
  readSeedIndexFile,
  readSeedIndexFileLean,
  sha256Hex,
  type Span,
} from "@context-fold/seed-index-format";
import { generateSession } from "@context-fold/session-gen";
import { tempDir } from "@context-fold/test-support";
import { describe, expect, it } from "vitest";
import { FoldState, type UnfoldMark } from "../../src/fold/fold-state.js";

function record(session: string, seq: number, trigger: FoldIndexRecord["trigger"], spans: Span[]): FoldIndexRecord {
  return { v: 2, kind: "fold-index", harness: "pi-context-fold", session, seq, at: "2026-03-01T10:00:00.000Z", trigger, files: [], commands: [], errors: [], identifiers: [], userMessages: [], spans };
}

const span = (blockId: string, code = codeFor(blockId), text = blockId): Span => ({ blockId, code, turn: 2, log: blockLog(text), sha256: sha256Hex(text), tool: "bash" });

/** Everything a restored state answers with. */
function observed(state: FoldState, probes: readonly string[]): unknown {
  return { spans: state.spans(), nextSeq: state.nextSeq, events: state.events, size: state.size, folded: state.foldedBytes(), codes: probes.map((id) => state.codes.assign(id)) };
}

describe("FoldState.restoreLean", async () => {
  const dir = tempDir("fold-state-lean-");
  const file = join(dir, "s.jsonl");
  await generateSession(file, { seed: 29, turns: 40 });
  const session = await readSession(file);
  const id = session.header.id;
  const anchors = session.blocks.filter((b) => b.anchor !== undefined && (b.kind === "toolResult" || b.kind === "thinking")).map((b) => b.anchor ?? "");
  const seedIndex = join(dir, "seed-index.jsonl");
  // seq 0: an `index` record of every block, and one block under another block's code (kept as it is).
  const borrowed = anchors[1] ?? "";
  await appendRecord(seedIndex, record(id, 0, "compact", [...anchors.map((a) => (a === borrowed ? span(a, codeFor("r:someone-else")) : span(a))), span("r:someone-else")]));
  // seq 1: a threshold fold of some blocks, one already coded differently by seq 0 (the first code stands).
  await appendRecord(seedIndex, record(id, 1, "threshold", [span(anchors[3] ?? ""), span(anchors[4] ?? ""), span(borrowed), span("r:new-fold", codeFor(anchors[5] ?? ""))]));
  // seq 2: a cap fold, retracted, then written again with other spans.
  await appendRecord(seedIndex, record(id, 2, "cap", [span(anchors[6] ?? "")]));
  const retract: FoldRetractRecord = { v: 2, kind: "fold-retract", seq: 2, at: "2026-03-01T10:01:00.000Z" };
  await appendRecord(seedIndex, retract);
  await appendRecord(seedIndex, record(id, 2, "cap", [span(anchors[7] ?? ""), span(anchors[8] ?? "")]));
  const unfolds: UnfoldMark[] = [{ blockId: anchors[4] ?? "", code: codeFor(anchors[4] ?? "") }];
  const probes = [...anchors, "r:someone-else", "r:new-fold", "r:never-seen-1", "a:resp_x:p1", ...anchors.slice(0, 5)];

  const whole = async (): Promise<FoldState> => {
    const { outcomes } = await readSeedIndexFile(seedIndex);
    return FoldState.restore(currentView(outcomes), nextSeq(outcomes), unfolds);
  };

  it("every record read lean (spans left in the file): the state a whole read restores", async () => {
    const { outcomes } = await readSeedIndexFileLean(seedIndex, { holdLineUpTo: 0 });
    expect(outcomes.filter((o) => o.outcome === "record" && o.spansInFile !== undefined).length).toBeGreaterThan(0);
    const lean = FoldState.restoreLean(outcomes, unfolds);
    expect(Object.getPrototypeOf(lean.codes)).not.toBe(CodeAssigner.prototype);
    const expected = observed(await whole(), probes);
    expect(observed(lean, probes)).toEqual(expected);
    expect(lean.spans().map((s) => s.blockId)).toEqual([anchors[3], borrowed, "r:new-fold", anchors[7], anchors[8]]);
  });

  it("lines short enough to hold: restore itself, a plain CodeAssigner", async () => {
    const { outcomes } = await readSeedIndexFileLean(seedIndex);
    const held = FoldState.restoreLean(outcomes, unfolds);
    expect(Object.getPrototypeOf(held.codes)).toBe(CodeAssigner.prototype);
    expect(observed(held, probes)).toEqual(observed(await whole(), probes));
  });

  it("no seed index: an empty state", async () => {
    const { outcomes } = await readSeedIndexFileLean(join(dir, "absent.jsonl"));
    const state = FoldState.restoreLean(outcomes);
    expect([state.size, state.nextSeq, state.events]).toEqual([0, 0, 0]);
  });
});
