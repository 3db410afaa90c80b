// Turns a fold plan into one appended fold-index record: each candidate is matched to its ledger block
// (text compared byte for byte, so a stub never points at other text), the record is asked of the
// stretch accumulator (fed ahead of time), and appended to the seed index.
import { blocksWithAnchor, type Block, type Session } from "@context-fold/ledger-reader";
import { appendRecord, type FoldIndexRecord, nextSeq, readSeedIndexFile } from "@context-fold/seed-index-format";
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
  // Other writers (compaction, the CLI) append to the same seed index: the seq comes from the file as
  // it is now, so a fold never reuses — and thereby supersedes — another record's seq.
  const { outcomes } = await readSeedIndexFile(input.seedIndex);
  const record = stretch.record(session, chosen, {
    sessionId: input.sessionId,
    seq: Math.max(state.nextSeq, nextSeq(outcomes)),
    trigger: plan.trigger,
    usage: {
      tokens: Math.max(0, Math.round(plan.usage.tokens)),
      contextWindow: plan.usage.contextWindow,
      fraction: Number((plan.usage.tokens / plan.usage.contextWindow).toFixed(4)),
    },
    codes: state.codes,
  });
  if (record.spans.length === 0) return undefined;
  await appendRecord(input.seedIndex, record);
  stretch.restart();
  state.addRecord(record);
  state.noteEvent();
  return { record, skipped };
}
