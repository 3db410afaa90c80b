// Where a compaction cuts the model context: task-boundary aware (never between a tool call and its
// result, never at a tool result), keeping the last user turn and its in-flight work, and splitting a
// single long turn so a tail always remains for the agent to continue from. Returns what Pi's
// `session_before_compact` hook expects (`firstKeptEntryId`, `tokensBefore`).
import { type Block, contextRolesGrown, type Entry, type GrowingContextRoles, lineageBlocks, type Session } from "@context-fold/ledger-reader";
import { SummaryError } from "./errors.js";
import { tokensOfBytes, utf8Bytes } from "./tokens.js";

/** `auto`, or the least number of context messages to keep. */
export type KeepTail = "auto" | number;

/** Most tokens `auto` keeps in the tail before it splits the last turn (Pi's keepRecentTokens default). */
export const AUTO_TAIL_MAX_TOKENS = 20_000;

export interface CutPlan {
  readonly firstKeptEntryId: string;
  /** Estimated tokens of the whole current context (what the compaction replaces plus the tail). */
  readonly tokensBefore: number;
  /** Estimated tokens of the kept tail. */
  readonly keptTokens: number;
  /** Context messages summarized (excluding a previous compaction summary) and kept. */
  readonly summarizedMessages: number;
  readonly keptMessages: number;
  /** Lineage blocks of the summarized messages (this compaction's window), ascending #N. */
  readonly summarizedBlocks: readonly Block[];
  readonly keptBlocks: readonly Block[];
  /** Every lineage block before the first kept entry (what lineage-wide facts are extracted from). */
  readonly lineageBefore: readonly Block[];
  /** true when the cut falls inside the last user turn (it was too long, or the only one). */
  readonly splitTurn: boolean;
}

/**
 * UTF-8 bytes of each block's text by #N, kept by a caller that saw the blocks as they came (a hole:
 * counted here). #N and a block's text never change in an append-only session, so they stay valid.
 */
export type BlockBytes = readonly (number | undefined)[];

const CUT_ROLES = new Set(["user", "assistant", "bashExecution", "custom", "branchSummary"]);
const SUMMARIZED = 1;
const KEPT = 2;

export interface PlanCutOptions {
  readonly keepTail?: KeepTail | undefined;
  readonly blockBytes?: BlockBytes | undefined;
  /**
   * The lineage blocks to cut among, when the caller holds no whole read (a streamed compaction: text-less
   * blocks of the context's entries, sized by `blockBytes`). The cut only weighs the context's blocks, so
   * those suffice; `lineageBefore` then holds only the given blocks before the cut. Default: every lineage block.
   */
  readonly lineage?: readonly Block[] | undefined;
}

/**
 * The cut weighed on the context's messages alone: each message's entry position and role (ledger-reader's
 * `contextRoles`, or `contextView`'s items) and the UTF-8 bytes of each context entry by position. What
 * both `planCut` and a streamed compaction (which holds no message, only the session's shape) cut on.
 */
export interface CutSides {
  /** Index into the context's messages of the first kept one. */
  readonly firstKeptAt: number;
  readonly firstKeptPosition: number;
  readonly tokensBefore: number;
  readonly keptTokens: number;
  readonly summarizedMessages: number;
  readonly keptMessages: number;
  readonly splitTurn: boolean;
  /** Each context entry's side of the cut by position: 1 summarized, 2 kept (both: its messages straddle it). */
  readonly side: Uint8Array;
}

/** The positions an entry side array is sized to: one past the largest context position. */
function sideSize(positions: ArrayLike<number>): number {
  let size = 0;
  for (let i = 0; i < positions.length; i++) size = Math.max(size, (positions[i] ?? -1) + 1);
  return size;
}

function checkKeepTail(keepTail: KeepTail): void {
  if (keepTail !== "auto" && (!Number.isInteger(keepTail) || keepTail < 1))
    throw new SummaryError("BAD_OPTION", `keepTail must be "auto" or a whole number ≥ 1, got ${String(keepTail)}`);
}

/**
 * The cut among the context's messages (`positions` and `roles`, in context order), sized by `entryBytes`
 * (by entry position). Throws SummaryError NOTHING_TO_COMPACT when nothing can be summarized (`path` names the session).
 */
export function cutSides(positions: ArrayLike<number>, roles: readonly string[], entryBytes: ArrayLike<number>, keepTail: KeepTail, path: string): CutSides {
  checkKeepTail(keepTail);
  // Plain loops, no callbacks: a closure made per call is compiled again after every full GC (the hook's path).
  // A message's bytes and role are read where they are (no copies per message: the hook's allocation).
  const w = newWeights(0, sideSize(positions));
  weighMessages(w, entryBytes, positions, roles, 0);
  chooseCut(w, roles, keepTail, path);
  markSides(w.side, positions, w.cand, 0, w.cut);
  return sidesOf(w, positions, path);
}

/**
 * A context weighed for its cut: by entry position, whether the entry is in the context, its UTF-8
 * bytes and its side of the cut; the candidates (context messages other than the previous compaction
 * summary, as indexes into the context's messages), `before[k]` the bytes of candidates 0..k-1 (so the
 * tail from candidate k weighs `before[n] - before[k]`: whole numbers, exact), the bytes of every
 * message, and the cut among the candidates.
 */
export interface Weights {
  inContext: Uint8Array;
  entryBytes: Float64Array;
  side: Uint8Array;
  readonly cand: number[];
  readonly before: number[];
  total: number;
  cut: number;
  splitTurn: boolean;
}

/** Weights sized for `entries` positions (none when the caller holds the entries' bytes) and `sides` positions of sides. */
function newWeights(entries: number, sides: number): Weights {
  return { inContext: new Uint8Array(entries), entryBytes: new Float64Array(entries), side: new Uint8Array(sides), cand: [], before: [0], total: 0, cut: -1, splitTurn: false };
}

/** The context's messages from `from` on, weighed by their entries' bytes (`entryBytes`, by position). */
function weighMessages(w: Weights, entryBytes: ArrayLike<number>, positions: ArrayLike<number>, roles: readonly string[], from: number): void {
  const { cand, before } = w;
  let total = w.total;
  for (let i = from; i < roles.length; i++) {
    const bytes = entryBytes[positions[i] ?? -1] ?? 0;
    total += bytes;
    if ((roles[i] ?? "") !== "compactionSummary") {
      cand.push(i);
      before.push((before[before.length - 1] ?? 0) + bytes);
    }
  }
  w.total = total;
}

/** The cut among `w`'s candidates, kept in `w.cut` and `w.splitTurn`. Throws SummaryError NOTHING_TO_COMPACT. */
function chooseCut(w: Weights, roles: readonly string[], keepTail: KeepTail, path: string): void {
  const { cand, before } = w;
  const all = before[cand.length] ?? 0;
  let cut = -1;
  let splitTurn = false;
  if (keepTail === "auto") {
    let lastUser = -1;
    for (let k = cand.length - 1; k >= 0; k--) {
      if (roles[cand[k] ?? -1] === "user") {
        lastUser = k;
        break;
      }
    }
    if (lastUser > 0 && tokensOfBytes(all - (before[lastUser] ?? 0)) <= AUTO_TAIL_MAX_TOKENS) cut = lastUser;
    else {
      // Split inside the last turn: the earliest boundary whose tail fits both the tail cap and half
      // of the candidates; else the last boundary (the final assistant message and its results).
      const start = Math.max(lastUser, 0);
      const cap = Math.min(AUTO_TAIL_MAX_TOKENS * 4, all / 2);
      let last = -1;
      for (let k = start + 1; k < cand.length; k++) {
        if (!CUT_ROLES.has(roles[cand[k] ?? -1] ?? "")) continue;
        last = k;
        if (cut < 0 && all - (before[k] ?? 0) <= cap) cut = k;
      }
      if (cut < 0) cut = last;
      splitTurn = cut > 0;
      if (cut < 0 && lastUser > 0) cut = lastUser;
    }
  } else {
    cut = cand.length - keepTail;
    while (cut > 0 && !CUT_ROLES.has(roles[cand[cut] ?? -1] ?? "")) cut--;
  }
  if (cut <= 0) {
    throw new SummaryError(
      "NOTHING_TO_COMPACT",
      `nothing to compact in ${path}: the ${String(cand.length)} context message(s) all belong to the kept tail (try a smaller --keep-tail)`,
    );
  }
  w.cut = cut;
  w.splitTurn = splitTurn;
}

/** Each candidate from `from` on marks its entry's side of the cut at candidate `cut` (both sides when its messages straddle it). */
function markSides(side: Uint8Array, positions: ArrayLike<number>, cand: readonly number[], from: number, cut: number): void {
  for (let at = from; at < cand.length; at++) {
    const position = positions[cand[at] ?? -1];
    if (position !== undefined) side[position] = (side[position] ?? 0) | (at < cut ? SUMMARIZED : KEPT);
  }
}

function sidesOf(w: Weights, positions: ArrayLike<number>, path: string): CutSides {
  const { cand, before, cut } = w;
  const firstKeptAt = cand[cut] ?? -1;
  const firstKeptPosition = positions[firstKeptAt];
  if (firstKeptPosition === undefined) throw new SummaryError("NOTHING_TO_COMPACT", `no message to keep in ${path}`);
  return {
    firstKeptAt,
    firstKeptPosition,
    tokensBefore: tokensOfBytes(w.total),
    keptTokens: tokensOfBytes((before[cand.length] ?? 0) - (before[cut] ?? 0)),
    summarizedMessages: cut,
    keptMessages: cand.length - cut,
    splitTurn: w.splitTurn,
    side: w.side,
  };
}

/** The entry at file position `position` (`entries` is in position order; a walk if ever it is not). */
function entryAtPosition(session: Session, position: number): Entry {
  const at = session.entries[position];
  if (at?.position === position) return at;
  const found = session.entries.find((entry) => entry.position === position);
  if (found === undefined) throw new SummaryError("NOTHING_TO_COMPACT", `no entry at position ${String(position)} in ${session.path}`);
  return found;
}

/** The cut of `session`'s active lineage. Throws SummaryError NOTHING_TO_COMPACT when nothing can be summarized. */
export function planCut(session: Session, options: PlanCutOptions = {}): CutPlan {
  const keepTail = options.keepTail ?? "auto";
  checkKeepTail(keepTail);
  // The context's messages as positions and roles only (no object per message): an entry is found by
  // its position (`session.entries` is in position order).
  return cutWhole(session, options.lineage ?? lineageBlocks(session), contextRolesGrown(session), keepTail, options.blockBytes).plan;
}

/**
 * What a cut of a growing session carries to the next cut of it (`planCutCarried`): the lineage blocks
 * and context it weighed, its weights, the plan, and where in the lineage its first kept block is (`from`;
 * the lineage's length when none) with the summarized blocks before it: no block before it changes side
 * while the session only grows, so the next cut reads the lineage from there. Taken over by the next call
 * (its buffers are written in place), so used once.
 */
export class CutCarry {
  /** `lineage`'s length when weighed (a caller may grow its array in place). */
  readonly lineageLength: number;

  constructor(
    readonly keepTail: KeepTail,
    readonly lineage: readonly Block[],
    readonly context: GrowingContextRoles,
    readonly weights: Weights,
    readonly plan: CutPlan,
    readonly from: number,
    readonly summarizedBefore: number,
  ) {
    this.lineageLength = lineage.length;
  }
}

/**
 * `planCut` of `session` carried on from the cut of an earlier read of it (`carried`, taken over): when
 * the lineage only grew since (the same blocks first, then blocks of new entries) and no entry appended
 * changes an earlier message (`GrowingContextRoles.grownTo`), only the appended entries are weighed and
 * only the blocks from the carried first kept block on are sorted to their side; else the cut is made
 * whole. The same plan as `planCut` either way, and the carry for the next call.
 */
export function planCutCarried(session: Session, options: PlanCutOptions, carried: CutCarry | undefined): { plan: CutPlan; carry: CutCarry } {
  const keepTail = options.keepTail ?? "auto";
  checkKeepTail(keepTail);
  const lineage = options.lineage ?? lineageBlocks(session);
  if (carried !== undefined && carried.keepTail === keepTail && startsWith(lineage, carried.lineage, carried.lineageLength)) {
    const context = contextRolesGrown(session, carried.context);
    // Grown or listed whole, `context` lists the session's context: a cut that moved back is weighed whole on it.
    return (context.grown ? cutGrown(session, lineage, context, carried, options.blockBytes) : undefined) ?? cutWhole(session, lineage, context, keepTail, options.blockBytes);
  }
  return cutWhole(session, lineage, contextRolesGrown(session), keepTail, options.blockBytes);
}

/** Does `lineage` hold the first `length` blocks of `earlier` first (the same objects)? The same array grown in place does. */
function startsWith(lineage: readonly Block[], earlier: readonly Block[], length: number): boolean {
  if (lineage.length < length) return false;
  if (lineage !== earlier) for (let i = length - 1; i >= 0; i--) if (lineage[i] !== earlier[i]) return false;
  return true;
}

/** The cut of `lineage` weighed whole on `context` (the session's context roles). */
function cutWhole(session: Session, lineage: readonly Block[], context: GrowingContextRoles, keepTail: KeepTail, known: BlockBytes | undefined): { plan: CutPlan; carry: CutCarry } {
  const { positions, roles } = context;
  const size = sideSize(positions);
  const w = newWeights(size, size);
  const { inContext, entryBytes } = w;
  for (let i = 0; i < positions.length; i++) inContext[positions[i] ?? 0] = 1;
  // UTF-8 bytes per context entry: the sizes kept as blocks were fed (`blockBytes`), holes measured here.
  weighBlocks(w, lineage, 0, known);
  weighMessages(w, entryBytes, positions, roles, 0);
  chooseCut(w, roles, keepTail, session.path);
  markSides(w.side, positions, w.cand, 0, w.cut);
  return planned(session, lineage, context, w, keepTail, 0, []);
}

/** Adds the bytes of `lineage`'s blocks from `from` on to their entries' in `w` (those in the context). */
function weighBlocks(w: Weights, lineage: readonly Block[], from: number, known: BlockBytes | undefined): void {
  const { inContext, entryBytes } = w;
  for (let i = from; i < lineage.length; i++) {
    const b = lineage[i] as Block;
    if (inContext[b.entryPosition] !== 1) continue;
    entryBytes[b.entryPosition] = (entryBytes[b.entryPosition] ?? 0) + (known?.[b.index] ?? utf8Bytes(b.text));
  }
}

/**
 * The cut carried on to `context`, grown from `carried.context` by messages of entries appended since
 * (whose blocks are those of `lineage` after `carried.lineage`'s). Undefined when the cut moved back
 * (it only moves on as a session grows; made whole then).
 */
function cutGrown(session: Session, lineage: readonly Block[], context: GrowingContextRoles, carried: CutCarry, known: BlockBytes | undefined): { plan: CutPlan; carry: CutCarry } | undefined {
  const w = carried.weights;
  const { positions, roles } = context;
  const was = carried.context.roles.length;
  const wasCut = w.cut;
  let size = 0;
  for (let i = was; i < positions.length; i++) size = Math.max(size, (positions[i] ?? -1) + 1);
  if (size > w.inContext.length) {
    // Appended entries come after every earlier one in the file: positions past the buffers are new.
    const room = Math.max(size, 2 * w.inContext.length);
    w.inContext = grown(w.inContext, new Uint8Array(room));
    w.entryBytes = grown(w.entryBytes, new Float64Array(room));
  }
  if (size > w.side.length) w.side = grown(w.side, new Uint8Array(Math.max(size, 2 * w.side.length)));
  for (let i = was; i < positions.length; i++) w.inContext[positions[i] ?? 0] = 1;
  weighBlocks(w, lineage, carried.lineageLength, known);
  weighMessages(w, w.entryBytes, positions, roles, was);
  chooseCut(w, roles, carried.keepTail, session.path);
  if (w.cut < wasCut) return undefined;
  // The candidates the carried cut kept, sorted again: a straddling entry keeps its summarized side.
  const { side, cand } = w;
  for (let at = wasCut; at < cand.length; at++) side[positions[cand[at] ?? -1] ?? 0] = 0;
  if (wasCut > 0) {
    const position = positions[cand[wasCut - 1] ?? -1] ?? 0;
    side[position] = (side[position] ?? 0) | SUMMARIZED;
  }
  markSides(side, positions, cand, wasCut, w.cut);
  return planned(session, lineage, context, w, carried.keepTail, carried.from, carried.plan.summarizedBlocks.slice(0, carried.summarizedBefore));
}

/** `into` holding `from`'s values first. */
function grown<T extends Uint8Array | Float64Array>(from: T, into: T): T {
  into.set(from);
  return into;
}

/**
 * The plan of the cut weighed in `w`: the blocks of `lineage` from `from` on sorted to their side (the
 * summarized ones after `summarized`, those before `from`), and the carry.
 */
function planned(session: Session, lineage: readonly Block[], context: GrowingContextRoles, w: Weights, keepTail: KeepTail, from: number, summarized: Block[]): { plan: CutPlan; carry: CutCarry } {
  const sides = sidesOf(w, context.positions, session.path);
  const firstKept = entryAtPosition(session, sides.firstKeptPosition);
  const { side } = w;
  const keptBlocks: Block[] = [];
  let next = lineage.length;
  let before = -1;
  for (let i = from; i < lineage.length; i++) {
    const b = lineage[i] as Block;
    const on = side[b.entryPosition] ?? 0;
    if ((on & KEPT) !== 0 && before < 0) {
      next = i;
      before = summarized.length;
    }
    if ((on & SUMMARIZED) !== 0) summarized.push(b);
    if ((on & KEPT) !== 0) keptBlocks.push(b);
  }
  if (before < 0) before = summarized.length;
  const plan = new PlannedCut(firstKept, sides, summarized, keptBlocks, lineage);
  return { plan, carry: new CutCarry(keepTail, lineage, context, w, plan, next, before) };
}

/**
 * A cut planned: `lineageBefore` made when first asked (only a caller extracting facts afresh reads it;
 * the extension's are accumulated). A class with the getter on its prototype, not an object literal with
 * its own getter (each call's literal then has a shape of its own, so every function reading a plan meets
 * a new one); one instance is kept as long as the class, so a full GC does not free the instances' shape
 * (reached from the class only through weak transitions) and throw away the code that read it.
 */
class PlannedCut implements CutPlan {
  static readonly shapeKept = new PlannedCut(undefined, undefined, [], [], []);
  readonly firstKeptEntryId: string;
  readonly tokensBefore: number;
  readonly keptTokens: number;
  readonly summarizedMessages: number;
  readonly keptMessages: number;
  readonly summarizedBlocks: readonly Block[];
  readonly keptBlocks: readonly Block[];
  readonly splitTurn: boolean;
  readonly #firstKeptPosition: number;
  readonly #lineage: readonly Block[];
  #lineageBefore: Block[] | undefined = undefined;

  constructor(firstKept: Entry | undefined, sides: CutSides | undefined, summarizedBlocks: readonly Block[], keptBlocks: readonly Block[], lineage: readonly Block[]) {
    this.firstKeptEntryId = firstKept?.id ?? "";
    this.tokensBefore = sides?.tokensBefore ?? 0;
    this.keptTokens = sides?.keptTokens ?? 0;
    this.summarizedMessages = sides?.summarizedMessages ?? 0;
    this.keptMessages = sides?.keptMessages ?? 0;
    this.summarizedBlocks = summarizedBlocks;
    this.keptBlocks = keptBlocks;
    this.splitTurn = sides?.splitTurn ?? false;
    this.#firstKeptPosition = firstKept?.position ?? 0;
    this.#lineage = lineage;
  }

  get lineageBefore(): readonly Block[] {
    if (this.#lineageBefore !== undefined) return this.#lineageBefore;
    const before: Block[] = [];
    for (const b of this.#lineage) {
      if (b.entryPosition >= this.#firstKeptPosition) break;
      before.push(b);
    }
    return (this.#lineageBefore = before);
  }
}
