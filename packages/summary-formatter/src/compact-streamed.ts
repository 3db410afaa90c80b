// Compaction of a session too large to hold: the cut is planned on its shape (entries without content,
// every block's UTF-8 size), then one streamed read feeds the lineage before the cut into the facts
// accumulator block by block and keeps text only for the window the brief is made of and the kept tail.
// Output is byte-identical to `compactSession` on the whole read.
//
// Lineage: Pi's active branch is known only once the last entry (the leaf) is read, so this is two reads.
// The first (the shape, which the CLI reads anyway for its damage warnings) finds the lineage and the cut;
// the second streams the file and takes each entry whose position is on the lineage. Lineage entries follow
// their parent in the file (Pi appends children), so one pass in file order is one pass in lineage order; a
// file whose branch runs backwards (hand-edited) cannot be, and is read whole instead.
import { branchPath, createFactsAccumulator, createSaidAlong, type FactsAccumulator, lastEntryTime } from "@context-fold/extractors";
import { type Block, contextRoles, type Entry, LedgerError, type LineageRoute, lineageInFileOrder, lineageRoute, readSession, type Session, type SessionShape, streamRoute } from "@context-fold/ledger-reader";
import { type BlockLookups, type CompactOptions, type CompactResult, compactPlanned, compactSession } from "./compact-session.js";
import { LeanWindow } from "./lean-window.js";
import { type BlockBytes, type CutPlan, cutSides } from "./plan-cut.js";

const IN_WINDOW = 1;
const IN_TAIL = 2;

/**
 * The cut planned on the shape, and each block's part in it by #N (IN_WINDOW, IN_TAIL or 0) with how
 * many blocks each part has. The cut is weighed on the context's positions and roles (`contextRoles`)
 * and each context entry's summed block sizes: no object per message or block, beside the shape.
 */
function planOnShape(shape: SessionShape, blockBytes: BlockBytes, options: CompactOptions): { cut: Omit<CutPlan, "summarizedBlocks" | "keptBlocks" | "lineageBefore">; firstKeptPosition: number; marks: Uint8Array; windowSize: number; tailSize: number } {
  // The shape's raws keep each entry's type, role, a compaction's systemMessage and summary, a branch
  // summary's text and an edit's replacement: everything the context's messages and roles (all the cut
  // reads of them) depend on. Message content is absent, so this view is for the cut only.
  const view: Session = { ...shape.session, withText: true };
  const { positions, roles } = contextRoles(view);
  const { blockStart, blockCount } = shape;
  const blocksOf = (position: number): [number, number] => [blockStart[position] ?? blockCount, blockStart[position + 1] ?? blockCount];
  // UTF-8 bytes per context entry (an entry with several messages is counted once, as planCut does).
  let size = 0;
  for (let i = 0; i < positions.length; i++) size = Math.max(size, (positions[i] ?? -1) + 1);
  const entryBytes = new Float64Array(size);
  const sized = new Uint8Array(size);
  for (let i = 0; i < positions.length; i++) {
    const position = positions[i] ?? 0;
    if (sized[position] === 1) continue;
    sized[position] = 1;
    const [from, to] = blocksOf(position);
    let bytes = 0;
    for (let index = from; index < to; index++) bytes += blockBytes[index] ?? 0;
    entryBytes[position] = bytes;
  }
  const sides = cutSides(positions, roles, entryBytes, options.keepTail ?? "auto", view.path);
  const firstKept = view.entries[sides.firstKeptPosition];
  if (firstKept === undefined) throw new LedgerError("LEDGER_CHANGED", view.path, `the cut's entry at position ${String(sides.firstKeptPosition)} is not in the session`);
  // The cut takes or leaves an entry's blocks together (its side of the cut is the entry's): window
  // first, then the tail, as planCut lists them.
  const marks = new Uint8Array(blockCount);
  let windowSize = 0;
  let tailSize = 0;
  const { side } = sides;
  for (let position = 0; position < side.length; position++) {
    const on = side[position] ?? 0;
    if (on === 0) continue;
    const [from, to] = blocksOf(position);
    if ((on & 1) !== 0) {
      for (let index = from; index < to; index++) marks[index] = IN_WINDOW;
      windowSize += to - from;
    }
    if ((on & 2) !== 0) {
      for (let index = from; index < to; index++) marks[index] = IN_TAIL;
      tailSize += to - from;
    }
  }
  const cut = {
    firstKeptEntryId: firstKept.id,
    tokensBefore: sides.tokensBefore,
    keptTokens: sides.keptTokens,
    summarizedMessages: sides.summarizedMessages,
    keptMessages: sides.keptMessages,
    splitTurn: sides.splitTurn,
  };
  return { cut, firstKeptPosition: firstKept.position, marks, windowSize, tailSize };
}

/** The largest entry position whose first block is at or before `index` (blockStart is non-decreasing). */
function entryOfBlock(blockStart: ArrayLike<number>, index: number): number {
  let lo = 0;
  let hi = blockStart.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if ((blockStart[mid] ?? Number.POSITIVE_INFINITY) <= index) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/**
 * Turns and compaction blocks from the shape's block table, as the whole read's blocks give them, in
 * typed arrays (each entry's first `#N` and turn) so the shape itself can be let go before the stream.
 */
function shapeLookups(shape: SessionShape): BlockLookups {
  const { session, blockStart, blockCount } = shape;
  const starts = Int32Array.from(blockStart);
  const turns = new Int32Array(session.entries.length);
  const compactionBlocks = new Map<string, number>();
  for (const entry of session.entries) {
    turns[entry.position] = entry.turn;
    if (entry.type !== "compaction" || session.byId.get(entry.id) !== entry) continue;
    const from = blockStart[entry.position];
    const to = blockStart[entry.position + 1] ?? blockCount;
    if (from !== undefined && to > from) compactionBlocks.set(entry.id, from);
  }
  return {
    turnOf: (index) => {
      if (!Number.isInteger(index) || index < 0 || index >= blockCount) return undefined;
      const position = entryOfBlock(starts, index);
      return position < 0 ? undefined : turns[position];
    },
    compactionBlock: (entryId) => compactionBlocks.get(entryId),
  };
}

/**
 * What `compactPlanned` reads of the session once the cut is planned — the path, the header, the
 * compactions (numbers, entry ids, summaries) and the last entry's time — without the shape's entries,
 * tree and id maps, which are let go before the stream (≈230 MB of heap on a 1 GB session).
 */
function slimSession(session: Session): Session {
  const at = lastEntryTime(session);
  const last = at === undefined ? undefined : session.entries.findLast((e) => e.timestamp === at);
  return {
    path: session.path,
    header: session.header,
    entries: last === undefined ? [] : [last],
    blocks: [],
    damaged: [],
    byId: new Map(),
    leafId: session.leafId,
    lineage: [],
    lineageIds: new Set(),
    recoveredLineageIds: new Set(),
    branchPoints: [],
    roots: [],
    compactions: session.compactions.map((c) => ({ ...c, entryIds: [] })),
    byteLength: session.byteLength,
    withText: false,
  };
}

/** The cut planned on the shape and all the stream needs besides it: the shape is not held past here. */
interface StreamPlan {
  readonly session: Session;
  readonly lookups: BlockLookups;
  readonly route: LineageRoute;
  readonly cut: Omit<CutPlan, "summarizedBlocks" | "keptBlocks" | "lineageBefore">;
  readonly firstKeptPosition: number;
  readonly marks: Uint8Array;
  readonly windowSize: number;
  readonly tailSize: number;
}

/**
 * `compactSession` on a session's shape (`readSessionShape` with `blockBytes: true`) and one streamed
 * read of its file: memory holds the facts accumulator and the window and tail's blocks, never the rest
 * of the session's text; the shape is let go once the cut is planned (this function is synchronous up to
 * the stream, and nothing it hands on holds the shape). `checkCut`, when given, is called with the
 * session and the cut before the stream (the CLI refuses a cut off Pi's branch there). Throws LedgerError
 * LEDGER_CHANGED when the file no longer holds the shape's entries (replaced between the two reads).
 * `observe`, when given, is handed every lineage entry of the stream with its blocks, in lineage order
 * (eval reads its ground truth along the same read); it is not called when the session is read whole
 * (a branch that does not run forward in the file, or one damage cut short).
 */
export function compactSessionStreamed(
  shape: SessionShape,
  options: CompactOptions = {},
  checkCut?: (session: Session, firstKeptEntryId: string) => void,
  observe?: (entry: Entry, blocks: readonly Block[]) => void,
): Promise<CompactResult> {
  try {
    const { session } = shape;
    // A branch a damaged line cut short is read whole too: what the cut-off part said (extractors'
    // `cutOffBlocks`) is found across the damaged line, off the lineage this read streams.
    if (!lineageInFileOrder(session) || shape.blockBytes === undefined || branchPath(session) !== session.lineage) {
      return compactWhole(session.path, options, checkCut);
    }
    const { cut, firstKeptPosition, marks, windowSize, tailSize } = planOnShape(shape, options.blockBytes ?? shape.blockBytes, options);
    checkCut?.(session, cut.firstKeptEntryId);
    const plan: StreamPlan = { session: slimSession(session), lookups: shapeLookups(shape), route: lineageRoute(session), cut, firstKeptPosition, marks, windowSize, tailSize };
    return compactAlong(plan, options, observe);
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
}

async function compactWhole(path: string, options: CompactOptions, checkCut: ((session: Session, firstKeptEntryId: string) => void) | undefined): Promise<CompactResult> {
  const whole = await readSession(path);
  const result = compactSession(whole, options);
  checkCut?.(whole, result.firstKeptEntryId);
  return result;
}

async function compactAlong(plan: StreamPlan, options: CompactOptions, observe: ((entry: Entry, blocks: readonly Block[]) => void) | undefined): Promise<CompactResult> {
  const { session, marks } = plan;
  const cwd = session.header.cwd;
  const acc: FactsAccumulator = createFactsAccumulator(cwd === undefined ? {} : { cwd });
  const lineageScope = (options.scope ?? "lineage") === "lineage";
  const window = new LeanWindow();
  const kept: Block[] = [];
  // Facts of a window scope come from the window's blocks whole, so that scope keeps them all.
  const summarized: Block[] = [];
  // Prompts kept only by an extension's entry (extractors' `saidElsewhere`), asked of the stream.
  const said = createSaidAlong();
  for await (const item of streamRoute(plan.route)) {
    observe?.(item.entry, item.blocks);
    said.add(item.entry, item.blocks);
    if (lineageScope && item.entry.position < plan.firstKeptPosition) acc.add(item.blocks);
    for (const block of item.blocks) {
      const mark = marks[block.index];
      if (mark === IN_WINDOW) {
        window.add(block);
        if (!lineageScope) summarized.push(block);
      } else if (mark === IN_TAIL) kept.push(block);
    }
  }
  if (window.blocks.length !== plan.windowSize || kept.length !== plan.tailSize) {
    throw new LedgerError("LEDGER_CHANGED", session.path, "the file no longer holds the blocks its first read found: it changed between reads; run again");
  }
  if (!lineageScope) acc.add(summarized);
  const cutPlan = { ...plan.cut, summarizedBlocks: window.blocks, keptBlocks: kept, lineageBefore: [] };
  return compactPlanned(session, plan.lookups, cutPlan, { facts: acc.facts(), artifacts: acc.artifacts(), cutOff: [], said: said.statements() }, options);
}
