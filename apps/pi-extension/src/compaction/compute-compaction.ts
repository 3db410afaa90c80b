// The compaction our `session_before_compact` hook returns, computed from facts accumulated during the
// session: cut at a task boundary, top the accumulators up to the cut, render the summary and the digest,
// and build the `compact` record. Pure given its inputs (time comes from the session); no I/O here.
import { type DurableArtifacts, lastEntryTime, type SessionFacts } from "@context-fold/extractors";
import type { Block, Session } from "@context-fold/ledger-reader";
import { type CodeAssigner, type FoldIndexRecord, HARNESS, type Usage } from "@context-fold/seed-index-format";
import { type CompactResult, compactWithFacts } from "@context-fold/summary-formatter";
import type { ArtifactsDocument } from "./artifacts-file.js";
import { CompactionFacts, type Extracted } from "./compaction-facts.js";
import { nextStep, type NextStep } from "./next-step.js";

export interface HookCompactionInput {
  readonly session: Session;
  readonly facts: CompactionFacts;
  readonly sessionId: string;
  /** The seq the `compact` record takes (the fold state's next one). */
  readonly seq: number;
  /** The session's code assigner, so compacted blocks keep the codes their folds gave them. */
  readonly codes?: CodeAssigner | undefined;
  readonly usage?: Usage | undefined;
  readonly summaryBudget: number;
  readonly digestBudget: number;
}

/** `details` of the compaction entry we hand Pi (JSON; read back by people and by our tests). */
export interface CompactionDetails {
  readonly harness: string;
  readonly seq: number;
  readonly summaryTokens: number;
  readonly digestTokens: number;
  readonly summarizedMessages: number;
  readonly keptMessages: number;
  readonly range: { readonly from: number; readonly to: number } | null;
  readonly splitTurn: boolean;
}

export interface HookCompaction {
  readonly result: CompactResult;
  readonly record: FoldIndexRecord;
  /** The artifacts the summary and digest were built from (what goes to disk first). */
  readonly artifacts: ArtifactsDocument;
  readonly next: NextStep | undefined;
  readonly details: CompactionDetails;
}

/** Thrown when the cut names an entry the session does not hold (a ledger and Pi out of step). */
export class CutMismatchError extends Error {
  readonly code = "CUT_MISMATCH" as const;
  readonly file: string;
  constructor(file: string, entryId: string) {
    super(`${file}: the cut's first kept entry ${entryId} is not in the session; Pi's own compaction runs instead`);
    this.name = "CutMismatchError";
    this.file = file;
  }
}

/** Thrown when Pi's current leaf is not the session file's last entry (a branch moved to without writing). */
export class LeafMismatchError extends Error {
  readonly code = "LEAF_MISMATCH" as const;
  readonly file: string;
  constructor(file: string, fileLeaf: string | null, piLeaf: string | null) {
    super(`${file}: Pi's leaf ${piLeaf ?? "(none)"} is not the file's last entry ${fileLeaf ?? "(none)"}; Pi's own compaction runs instead`);
    this.name = "LeafMismatchError";
    this.file = file;
  }
}

/** Facts, artifacts and record fields of the lineage before `position`, extracted afresh (the rare fallback). */
function freshFacts(session: Session, position: number, codes: CodeAssigner | undefined): CompactionFacts {
  const fresh = new CompactionFacts(session.header.cwd, codes);
  fresh.feed(session, position);
  return fresh;
}

export function computeHookCompaction(input: HookCompactionInput): HookCompaction {
  const { session } = input;
  let facts = input.facts;
  const at = lastEntryTime(session) ?? new Date(0).toISOString();
  // Earlier compactions' summaries were parsed, and blocks sized for the cut, when they were fed.
  // The lineage's blocks are listed once: the cut and the check below both walk them.
  const lineage = facts.lineage(session);
  const options = {
    budget: input.summaryBudget,
    digestBudget: input.digestBudget,
    now: at,
    parsedSummaries: facts.parsedSummaries,
    blockBytes: facts.blockBytes,
    lineage,
    compactionBlocks: facts.compactionBlocks,
    ...(facts.previousBase === undefined ? {} : { previousBase: facts.previousBase }),
    // The summary's parts the last turn's end prepared: read where the compaction's inputs are theirs.
    parts: facts.parts,
  };
  // The cut falls at the last user message unless that turn is too long to keep (then inside it), so
  // the facts fed up to that message are usually exactly what the summary replaces; the cut is planned
  // first, and the facts are topped up to it (or taken afresh) before anything is built from them.
  facts.feedSettled(session);
  const taken: { extracted?: Extracted } = {};
  const result = compactWithFacts(
    session,
    (plan) => {
      const firstKept = session.byId.get(plan.firstKeptEntryId);
      if (firstKept === undefined) throw new CutMismatchError(session.path, plan.firstKeptEntryId);
      // Fed past the cut (a tail the accumulators cannot give back): extract this window afresh.
      if (facts.lastIndex > cutPredecessor(lineage, firstKept.position)) facts = freshFacts(session, firstKept.position, input.codes);
      else facts.feed(session, firstKept.position);
      return (taken.extracted = facts.extracted());
    },
    options,
  );
  if (taken.extracted === undefined) throw new Error("compactWithFacts did not ask for the facts");
  return finish(input, facts, taken.extracted, result, at);
}

/** #N of the last lineage block before entry position `position` (-1: none). */
function cutPredecessor(lineage: readonly Block[], position: number): number {
  let last = -1;
  for (const block of lineage) {
    if (block.entryPosition >= position) break;
    last = block.index;
  }
  return last;
}

function finish(
  input: HookCompactionInput,
  facts: CompactionFacts,
  extracted: { readonly facts: SessionFacts; readonly artifacts: DurableArtifacts },
  result: CompactResult,
  at: string,
): HookCompaction {
  const record = facts.record({
    sessionId: input.sessionId,
    seq: input.seq,
    at,
    trigger: "compact",
    usage: input.usage,
    codes: input.codes,
    favourRecent: true,
  });
  return {
    result,
    record,
    artifacts: { v: 1, session: input.sessionId, at, lastIndex: facts.lastIndex, artifacts: extracted.artifacts },
    next: nextStep(extracted.facts, extracted.artifacts),
    details: {
      harness: HARNESS,
      seq: input.seq,
      summaryTokens: result.stats.summary.estimatedTokens,
      digestTokens: result.stats.digest.estimatedTokens,
      summarizedMessages: result.stats.summarizedMessages,
      keptMessages: result.stats.keptMessages,
      range: result.stats.range,
      splitTurn: result.stats.splitTurn,
    },
  };
}
