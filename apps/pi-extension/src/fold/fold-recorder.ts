// Turns a fold plan into one appended fold-index record: each candidate is matched to its ledger block
// (text compared byte for byte, so a stub never points at other text), the record is asked of the
// stretch accumulator (fed ahead of time), and appended to the seed index.
import { blocksWithAnchor, type Block, type Session } from "@context-fold/ledger-reader";
import { appendNextRecord, type AppendTail, type FoldIndexRecord } from "@context-fold/seed-index-format";
import type { FoldPlan } from "./fold-planner.js";
import type { FoldState } from "./fold-state.js";
import type { FoldStretch } from "./fold-stretch.js";

export interface RecordFoldInput {
  readonly session: Session;
  readonly state: FoldState;
  readonly stretch: FoldStretch;
  readonly plan: FoldPlan;
  readonly sessionId: string;
  /** The seed index file (from `seedIndexPath`). */
  readonly seedIndex: string;
  /** Feed the stretch at least this far (`#N`) before the record: everything outside the protected tail. */
  readonly feedThrough?: number;
  /** Another writer held the seed index's lock past `HOOK_LOCK_WAIT_MS`: nothing was folded, the next call retries. */
  readonly onDeferred?: () => void;
  /** The seed index as this folder's last append left it: unchanged since, its tail is not read back. */
  readonly tail?: AppendTail;
}

/** The longest a hook waits for the seed index's append lock; past it the append is deferred. */
export const HOOK_LOCK_WAIT_MS = 50;

/** A LockTimeoutError of @context-fold/durable-fs, by its code: that holds across copies of the module, as Pi's loader may make. */
export function isLockTimeout(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === "DURABLE_LOCK_TIMEOUT";
}

export interface RecordedFold {
  readonly record: FoldIndexRecord;
  /** Candidates left out: not in the ledger yet, ambiguous, or their context text differs from it. */
  readonly skipped: number;
}

/** The ledger block an anchor names: the one on the active lineage when several carry it. */
export function blockFor(session: Session, anchor: string): Block | undefined {
  const blocks = blocksWithAnchor(session, anchor);
  if (blocks.length <= 1) return blocks[0];
  const onLineage = blocks.filter((block) => session.lineageIds.has(block.entryId));
  return onLineage.length === 1 ? onLineage[0] : undefined;
}

/**
 * Append one fold-index record for `plan` and take its spans into `state`. Returns undefined (nothing
 * written, nothing folded) when no candidate matches the ledger. Throws when the append fails; the
 * fold state is then unchanged.
 */
export async function recordFold(input: RecordFoldInput): Promise<RecordedFold | undefined> {
  const { session, plan, state, stretch } = input;
  const chosen = new Set<number>();
  let skipped = 0;
  let high = -1;
  for (const candidate of plan.candidates) {
    const block = blockFor(session, candidate.anchor);
    if (block === undefined || !session.withText || block.text !== candidate.text) {
      skipped += 1;
      continue;
    }
    chosen.add(block.index);
    if (block.index > high) high = block.index;
  }
  if (chosen.size === 0) return undefined;
  stretch.feed(session, state, Math.max(high, input.feedThrough ?? -1));
  const draft = stretch.record(session, chosen, {
    sessionId: input.sessionId,
    seq: state.nextSeq,
    trigger: plan.trigger,
    usage: {
      tokens: Math.max(0, Math.round(plan.usage.tokens)),
      contextWindow: plan.usage.contextWindow,
      fraction: Number((plan.usage.tokens / plan.usage.contextWindow).toFixed(4)),
    },
    codes: state.codes,
  });
  if (draft.spans.length === 0) return undefined;
  // Other writers (compaction, the CLI) append to the same seed index: the seq is assigned under its
  // append lock from the file's tail, so a fold never reuses (and thereby supersedes) another record's seq.
  let record: FoldIndexRecord;
  try {
    record = await appendNextRecord(input.seedIndex, (seq) => ({ ...draft, seq }), { minSeq: state.nextSeq, lockTimeoutMs: HOOK_LOCK_WAIT_MS, ...(input.tail === undefined ? {} : { tail: input.tail }) });
  } catch (error) {
    if (!isLockTimeout(error)) throw error;
    input.onDeferred?.();
    return undefined;
  }
  stretch.restart();
  state.addRecord(record);
  state.noteEvent();
  return { record, skipped };
}
