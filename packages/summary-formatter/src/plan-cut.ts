// Where a compaction cuts the model context: task-boundary aware (never between a tool call and its
// result, never at a tool result), keeping the last user turn and its in-flight work, and splitting a
// single long turn so a tail always remains for the agent to continue from. Returns what Pi's
// `session_before_compact` hook expects (`firstKeptEntryId`, `tokensBefore`).
import { type Block, contextRoles, type Entry, lineageBlocks, type Session } from "@context-fold/ledger-reader";
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

/**
 * The cut among the context's messages (`positions` and `roles`, in context order), sized by `entryBytes`
 * (by entry position). Throws SummaryError NOTHING_TO_COMPACT when nothing can be summarized (`path` names the session).
 */
export function cutSides(positions: ArrayLike<number>, roles: readonly string[], entryBytes: ArrayLike<number>, keepTail: KeepTail, path: string): CutSides {
  if (keepTail !== "auto" && (!Number.isInteger(keepTail) || keepTail < 1))
    throw new SummaryError("BAD_OPTION", `keepTail must be "auto" or a whole number ≥ 1, got ${String(keepTail)}`);
  // Plain loops, no callbacks: a closure made per call is compiled again after every full GC (the hook's path).
  // A message's bytes and role are read where they are (no copies per message: the hook's allocation).
  let total = 0;
  // Candidates: context messages other than the previous compaction summary.
  const cand: number[] = [];
  for (let i = 0; i < roles.length; i++) {
    total += entryBytes[positions[i] ?? -1] ?? 0;
    if ((roles[i] ?? "") !== "compactionSummary") cand.push(i);
  }
  const suffix = new Array<number>(cand.length + 1).fill(0);
  for (let k = cand.length - 1; k >= 0; k--) suffix[k] = (suffix[k + 1] ?? 0) + (entryBytes[positions[cand[k] ?? -1] ?? -1] ?? 0);

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
    if (lastUser > 0 && tokensOfBytes(suffix[lastUser] ?? 0) <= AUTO_TAIL_MAX_TOKENS) cut = lastUser;
    else {
      // Split inside the last turn: the earliest boundary whose tail fits both the tail cap and half
      // of the candidates; else the last boundary (the final assistant message and its results).
      const start = Math.max(lastUser, 0);
      const all = suffix[0] ?? 0;
      const cap = Math.min(AUTO_TAIL_MAX_TOKENS * 4, all / 2);
      let last = -1;
      for (let k = start + 1; k < cand.length; k++) {
        if (!CUT_ROLES.has(roles[cand[k] ?? -1] ?? "")) continue;
        last = k;
        if (cut < 0 && (suffix[k] ?? 0) <= cap) cut = k;
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
  const firstKeptAt = cand[cut] ?? -1;
  const firstKeptPosition = positions[firstKeptAt];
  if (firstKeptPosition === undefined) throw new SummaryError("NOTHING_TO_COMPACT", `no message to keep in ${path}`);
  const side = new Uint8Array(sideSize(positions));
  for (let at = 0; at < cand.length; at++) {
    const position = positions[cand[at] ?? -1];
    if (position !== undefined) side[position] = (side[position] ?? 0) | (at < cut ? SUMMARIZED : KEPT);
  }
  return {
    firstKeptAt,
    firstKeptPosition,
    tokensBefore: tokensOfBytes(total),
    keptTokens: tokensOfBytes(suffix[cut] ?? 0),
    summarizedMessages: cut,
    keptMessages: cand.length - cut,
    splitTurn,
    side,
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
  if (keepTail !== "auto" && (!Number.isInteger(keepTail) || keepTail < 1))
    throw new SummaryError("BAD_OPTION", `keepTail must be "auto" or a whole number ≥ 1, got ${String(keepTail)}`);
  const lineage = options.lineage ?? lineageBlocks(session);
  // The context's messages as positions and roles only (no object per message): an entry is found by
  // its position (`session.entries` is in position order).
  const { positions, roles } = contextRoles(session);
  const size = sideSize(positions);
  const inContext = new Uint8Array(size);
  for (let i = 0; i < positions.length; i++) inContext[positions[i] ?? 0] = 1;
  // UTF-8 bytes per context entry: the sizes kept as blocks were fed (`blockBytes`), holes measured here.
  const known = options.blockBytes;
  const entryBytes = new Float64Array(size);
  for (const b of lineage) {
    if (inContext[b.entryPosition] !== 1) continue;
    entryBytes[b.entryPosition] = (entryBytes[b.entryPosition] ?? 0) + (known?.[b.index] ?? utf8Bytes(b.text));
  }
  const sides = cutSides(positions, roles, entryBytes, keepTail, session.path);
  const firstKept = entryAtPosition(session, sides.firstKeptPosition);
  const { side } = sides;
  const summarizedBlocks: Block[] = [];
  const keptBlocks: Block[] = [];
  for (const b of lineage) {
    const on = side[b.entryPosition] ?? 0;
    if ((on & SUMMARIZED) !== 0) summarizedBlocks.push(b);
    if ((on & KEPT) !== 0) keptBlocks.push(b);
  }
  return new PlannedCut(firstKept, sides, summarizedBlocks, keptBlocks, lineage);
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
