// The compaction our `session_before_compact` hook returns, computed from facts accumulated during the
// session: cut at a task boundary, top the accumulators up to the cut, render the summary and the digest,
// and build the `compact` record. Pure given its inputs (time comes from the session); no I/O here.
import { lastEntryTime } from "@context-fold/extractors";
import type { Session } from "@context-fold/ledger-reader";
import { type CodeAssigner, type FoldIndexRecord, HARNESS, type Usage } from "@context-fold/seed-index-format";
import { type CompactResult, compactWithFacts, planCut } from "@context-fold/summary-formatter";
import type { ArtifactsDocument } from "./artifacts-file.js";
import type { CompactionFacts } from "./compaction-facts.js";
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

export function computeHookCompaction(input: HookCompactionInput): HookCompaction {
  const { session, facts } = input;
  // The cut first: facts must cover exactly what the summary replaces (everything before it).
  const cut = planCut(session);
  const firstKept = session.byId.get(cut.firstKeptEntryId);
  if (firstKept === undefined) throw new CutMismatchError(session.path, cut.firstKeptEntryId);
  facts.feed(session, firstKept.position);
  const at = lastEntryTime(session) ?? new Date(0).toISOString();
  const extracted = { facts: facts.accumulator.facts(), artifacts: facts.accumulator.artifacts() };
  const result = compactWithFacts(session, extracted, { budget: input.summaryBudget, digestBudget: input.digestBudget, now: at });
  const record = facts.seed.record({
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
