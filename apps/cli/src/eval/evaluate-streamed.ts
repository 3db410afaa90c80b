// `eval` of a session too large to hold (see STREAM_ABOVE_BYTES): its shape (entries without content,
// every block's size), then one streamed read of the lineage that compacts it (`compactSessionStreamed`)
// and reads the ground truth along the way (`GroundTruthAlong`: the founding request, corrections and
// commits found, edits and commands by #N, failed tool calls by id), noting each large tool output of the
// window by #N and location only. The needles are read back by byte offset from the few outputs picked.
// Memory holds the compaction's window and tail and what the answer needs, never the session's text.
// Gives the `SessionEval` the whole read gives (times aside); tests compare the two on every fixture.
//
// The recall part (a recall index over every block, each needle searched and expanded, verified against
// the ledger) runs after everything above is let go, over the recall index and block table built streamed
// (recall-engine's `buildRecallFilesStreamed`: the postings spilled in sorted runs and merged on disk, the
// table's columns spilled as the blocks go by) into a temporary folder: the needles are searched in the
// index read by offset and the hits' text read back from the ledger, so this part holds neither the
// session's text nor its postings. A session that can have no block table (not v3, or a damaged line)
// has its recall part read whole (`recallPart`), as `recall` does. Span recall (only with a seed index
// beside the session) resolves the needles' anchors in a view of the shape holding only the blocks that
// carry them (`withAnchoredBlocks`). CONTEXT_FOLD_EVAL_WITHOUT_RECALL=1 (a measuring switch for the
// cli-memory bench, never for a verdict) leaves the recall part out to measure the rest alone.
//
// Memory between the parts (1 GB bench session): the shape the compaction part read is the build's first
// pass (`recallShapeOf`: the file is not read a third time); V8's emptied pages go back to the system after
// the compaction part and after the build (free-heap-pages.ts: they stayed resident, 273 MB of them, under
// the search); the searches collect their garbage after each needle (each reads tens of MB of candidate
// texts that V8 otherwise let pile up to several times what was live).
import { branchPath } from "@context-fold/extractors";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { blockTextAt, type Block, LedgerError, lineageInFileOrder, readSession, readSessionShape, type SessionShape, withAnchoredBlocks } from "@context-fold/ledger-reader";
import { type BlockVerifier, buildRecallFilesStreamed, openRecallSnapshot, type RecallShape, recallShapeOf } from "@context-fold/recall-engine";
import { compactSessionStreamed, type CompactResult } from "@context-fold/summary-formatter";
import { branchCutShort, readSessionShapeForCli } from "../session-input.js";
import { assembleEval, type CompactionEval, type RecallPart, recallPart, scored, type SessionEval } from "./evaluate-session.js";
import { collectGarbage, freeHeapPages, freeHeapPagesOnce } from "../free-heap-pages.js";
import { GroundTruthAlong } from "./ground-truth.js";
import { recallNeedles, spanRecallNeedles, tableVerifier } from "./recall-check.js";
import { isLargeOutput, type LargeOutput, pickNeedles } from "./sample-needles.js";
import type { EvalNeedle } from "./sample-needles.js";

export interface StreamedEvalOptions {
  readonly budget?: number;
  readonly fragment: boolean;
  /** Milliseconds from any fixed origin (e.g. performance.now): time is an input, never read here. */
  readonly clock: () => number;
}

/** A large tool output of the window, and where its entry's JSON text sits in the file. */
interface LargeAt extends LargeOutput {
  readonly byteOffset: number;
  readonly byteLength: number;
  readonly partIndex: number | undefined;
}

interface Started {
  readonly head: { readonly path: string; readonly sessionId: string; readonly entries: number; readonly blocks: number; readonly lineageEntries: number };
  readonly along: GroundTruthAlong;
  readonly large: LargeAt[];
  /** The first kept entry the cut was planned with (checked against the result's). */
  readonly cut: { id: string | null };
  readonly result: Promise<CompactResult>;
}

/** The session could not be read (its shape): the caller skips it with the reader's reason, as a whole read's failure. */
export class StreamedReadError extends Error {
  constructor(readonly reason: unknown) {
    super(reason instanceof Error ? reason.message : String(reason));
  }
}

/** Is the measuring switch that leaves the recall part out set? */
function withoutRecall(): boolean {
  return process.env["CONTEXT_FOLD_EVAL_WITHOUT_RECALL"] === "1";
}

/**
 * The streamed compaction under way with the ground truth read along it, or undefined when the session
 * is one `compactSessionStreamed` reads whole (a branch not running forward in the file, or cut short by
 * damage): eval reads it whole then. Synchronous up to the stream: the shape goes no further than here.
 */
function start(shape: SessionShape, budget: number | undefined): Started | undefined {
  const { session } = shape;
  if (shape.blockBytes === undefined || branchCutShort(session) !== undefined || !lineageInFileOrder(session) || branchPath(session) !== session.lineage) return undefined;
  const head = { path: session.path, sessionId: session.header.id, entries: session.entries.length, blocks: shape.blockCount, lineageEntries: session.lineage.length };
  const along = new GroundTruthAlong(session.header.cwd);
  const large: LargeAt[] = [];
  const cut: { id: string | null } = { id: null };
  // Lineage position the kept tail starts at (`lineageCut`'s cutAt: the last lineage entry with the cut's
  // id, or past the end), set when the cut is planned, before the stream.
  let cutAt = 0;
  let at = 0;
  // V8's emptied pages go back at the stream's first entry, the shape let go by then (free-heap-pages.ts).
  const freePages = freeHeapPagesOnce();
  const result = compactSessionStreamed(
    shape,
    budget === undefined ? {} : { budget },
    (planned, firstKeptEntryId) => {
      cut.id = firstKeptEntryId;
      cutAt = planned.lineage.length;
      for (let i = planned.lineage.length - 1; i >= 0; i--) {
        if (planned.lineage[i]?.id === firstKeptEntryId) {
          cutAt = i;
          break;
        }
      }
    },
    (_entry, blocks: readonly Block[]) => {
      freePages();
      const inWindow = at < cutAt;
      at++;
      for (const b of blocks) {
        along.add(b, inWindow);
        if (inWindow && isLargeOutput(b)) large.push({ index: b.index, anchor: b.anchor, byteOffset: b.byteOffset, byteLength: b.byteLength, partIndex: b.partIndex });
      }
    },
  );
  return { head, along, large, cut, result };
}

/** `start`, and what the recall part's streamed build needs of the shape (`recallShapeOf`: its first pass). */
function startWithRecallShape(shape: SessionShape, budget: number | undefined): { readonly started: Started | undefined; readonly shape: RecallShape } {
  return { shape: recallShapeOf(shape), started: start(shape, budget) };
}

/** The recall tallies of a run that leaves the recall part out (CONTEXT_FOLD_EVAL_WITHOUT_RECALL=1). */
function recallLeftOut(needles: readonly EvalNeedle[]): RecallPart {
  const results = needles.map((n) => ({ kind: n.kind, value: n.value, found: false, calls: 0, reason: "recall left out (CONTEXT_FOLD_EVAL_WITHOUT_RECALL=1)" }));
  const tally = { n: results.length, found: 0, maxCalls: 0, results };
  return { recall: tally, byWords: tally, spans: null, recallIndexMs: 0, recallMs: 0 };
}

async function readShape(file: string, fragment: boolean): Promise<SessionShape> {
  try {
    return await readSessionShapeForCli(file, { blockBytes: true, ...(fragment ? { fragment: true } : {}) });
  } catch (error) {
    throw new StreamedReadError(error);
  }
}

/** The build's option of the shape, taken out of `shaped` (held by nothing else once the build returns). */
function takeShape(shaped: { shape: RecallShape | undefined }): { shape?: RecallShape } {
  const { shape } = shaped;
  shaped.shape = undefined;
  return shape === undefined ? {} : { shape };
}

/**
 * The recall part over the recall index and block table built streamed (`buildRecallFilesStreamed`, into a
 * folder of its own, removed when done): the needles searched in the index read by offset, the hits'
 * text read back from the ledger by byte offset and verified (`tableVerifier`), span recall in a view
 * holding only the needles' anchored blocks. Undefined when the session can have no block table (not v3,
 * or damaged lines: see streamed-build.ts): the caller reads it whole then.
 */
async function streamedRecallPart(file: string, head: Started["head"], shaped: { shape: RecallShape | undefined }, needles: readonly EvalNeedle[], options: StreamedEvalOptions): Promise<RecallPart | undefined> {
  const { clock } = options;
  const fragment = options.fragment ? { fragment: true } : {};
  const dir = mkdtempSync(join(tmpdir(), "context-fold-eval-"));
  try {
    let t = clock();
    const cachePath = join(dir, "recall-index");
    // The shape the compaction part read (with the same `fragment`) is the build's first pass: the file is
    // read once more, not twice. Taken from `shaped`, so that it goes when the build returns.
    const built = await buildRecallFilesStreamed(file, { cachePath, ...takeShape(shaped), ...fragment });
    if (built === null) return undefined;
    // The build's spilled runs and columns are let go: its pages go back before the search's heap grows.
    freeHeapPages();
    const snapshot = openRecallSnapshot(file, { cachePath });
    if (snapshot === null || snapshot.session.header.id !== head.sessionId || snapshot.session.blocks.length !== head.blocks) {
      throw new LedgerError("LEDGER_CHANGED", head.path, "the file changed between reads: run again");
    }
    const { index, session } = snapshot;
    const recallIndexMs = clock() - t;
    t = clock();
    const verifierFor = (hits: readonly number[]): BlockVerifier => tableVerifier(file, session.blocks, hits);
    const recall = recallNeedles(index, verifierFor, needles, "phrase", collectGarbage);
    const recallMs = clock() - t;
    const byWords = recallNeedles(index, verifierFor, needles, "words", collectGarbage);
    // Only with a seed index beside the session: its shape, then the blocks carrying the needles' anchors.
    const spans = await spanRecallNeedles(head, needles, async (anchors) => withAnchoredBlocks(await readSessionShape(file, fragment), anchors));
    return { recall, byWords, spans, recallIndexMs, recallMs };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What the compaction part leaves for the recall part and the answer (the rest of its read let go). */
interface CompactionPart {
  readonly head: Started["head"];
  /** What the recall part's streamed build needs of the shape (its first pass, not read again); taken by it. */
  shape: RecallShape | undefined;
  readonly needles: EvalNeedle[];
  readonly single: CompactionEval;
  readonly compactMs: number;
  readonly groundTruthMs: number;
}

/**
 * The shape, the streamed compaction with the ground truth read along it, and the needles read back:
 * a function of its own, so that what the stream gathered (the ground truth's edits and commands by #N,
 * the window's large outputs) is let go before the recall part builds its index. Undefined: see `start`.
 */
async function compactionPart(file: string, options: StreamedEvalOptions): Promise<CompactionPart | undefined> {
  const { clock } = options;
  let t = clock();
  // The shape itself is held by nothing past `start` (as a local here it would stay for the whole stream).
  const { started, shape } = startWithRecallShape(await readShape(file, options.fragment), options.budget);
  if (started === undefined) return undefined;
  const { head, along, large, cut } = started;
  // A SummaryError (nothing to compact) is the whole read's too: the caller skips the file with it.
  const result = await started.result;
  const compactMs = clock() - t;
  if (cut.id !== result.firstKeptEntryId) throw new LedgerError("LEDGER_CHANGED", head.path, `the compaction kept ${result.firstKeptEntryId}, not the planned ${String(cut.id)}: run again`);

  t = clock();
  const truth = along.truth(result.firstKeptEntryId);
  const needles = pickNeedles(large, (output) => {
    const text = blockTextAt(head.path, output, "toolResult", output.partIndex);
    if (text === undefined) throw new LedgerError("LEDGER_CHANGED", head.path, `block #${String(output.index)} no longer reads at byte ${String(output.byteOffset)}: the file changed while read; run again`);
    return text;
  });
  const groundTruthMs = clock() - t;
  return { head, shape, needles, single: scored(result, truth, needles), compactMs, groundTruthMs };
}

/**
 * Evaluates the session in `file` streamed (one compaction, needles sampled, no truth file: what
 * `eval` streams), or returns undefined when it must be read whole (see `start`).
 */
export async function evaluateStreamed(file: string, options: StreamedEvalOptions): Promise<SessionEval | undefined> {
  const scoredPart = await compactionPart(file, options);
  if (scoredPart === undefined) return undefined;
  // What the compaction part read is unreachable now: its heap pages go back to the system before the
  // recall part builds and searches (see free-heap-pages.ts).
  freeHeapPages();
  const { head, needles, single, compactMs, groundTruthMs } = scoredPart;
  const { clock } = options;
  let recalled: RecallPart;
  if (withoutRecall()) recalled = recallLeftOut(needles);
  else {
    const streamed = await streamedRecallPart(file, head, scoredPart, needles, options);
    if (streamed !== undefined) recalled = streamed;
    else {
      // Damage and a fragment were told with the shape: the whole read says nothing more.
      const session = await readSession(file, options.fragment ? { fragment: true } : {});
      if (session.header.id !== head.sessionId || session.entries.length !== head.entries) throw new LedgerError("LEDGER_CHANGED", head.path, "the file changed between reads: run again");
      const { index: _index, ...part } = await recallPart(session, needles, clock);
      recalled = part;
    }
  }
  return assembleEval({
    file: head.path,
    sessionId: head.sessionId,
    entries: head.entries,
    blocks: head.blocks,
    lineageEntries: head.lineageEntries,
    needleSource: "sampled",
    needles,
    single,
    recalled,
    repeated: null,
    truth: null,
    times: { groundTruthMs, compactMs, roundsMs: 0, truthMs: 0 },
  });
}
