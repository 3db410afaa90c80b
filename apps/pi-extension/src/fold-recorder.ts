// Turns a fold plan into one appended fold-index record: each candidate is matched to its ledger block
// (text compared byte for byte, so a stub never points at other text), the record fields are extracted
// from the folded stretch of the session, and the record is appended to the seed index.
import { createSeedAccumulator } from "@context-fold/extractors";
import { blocksWithAnchor, type Block, lineageBlocks, type Session } from "@context-fold/ledger-reader";
import { appendRecord, type FoldIndexRecord } from "@context-fold/seed-index-format";
import type { FoldPlan } from "./fold-planner.js";
import type { FoldState } from "./fold-state.js";

export interface RecordFoldInput {
  readonly session: Session;
  readonly state: FoldState;
  readonly plan: FoldPlan;
  readonly sessionId: string;
  /** The seed index file (from `seedIndexPath`). */
  readonly seedIndex: string;
  readonly cwd?: string | undefined;
}

export interface RecordedFold {
  readonly record: FoldIndexRecord;
  /** Candidates left out: not in the ledger yet, ambiguous, or their context text differs from it. */
  readonly skipped: number;
}

/** The ledger block a candidate names: the one on the active lineage when several carry the anchor. */
function blockFor(session: Session, anchor: string): Block | undefined {
  const blocks = blocksWithAnchor(session, anchor);
  if (blocks.length <= 1) return blocks[0];
  const onLineage = blocks.filter((block) => session.lineageIds.has(block.entryId));
  return onLineage.length === 1 ? onLineage[0] : undefined;
}

/**
 * Append one fold-index record for `plan` and take its spans into `state`. Returns undefined (nothing
 * written, nothing folded) when no candidate matches the ledger. Throws when the append fails; the
 * state is then unchanged.
 */
export async function recordFold(input: RecordFoldInput): Promise<RecordedFold | undefined> {
  const { session, plan, state } = input;
  const chosen = new Set<number>();
  let skipped = 0;
  for (const candidate of plan.candidates) {
    const block = blockFor(session, candidate.anchor);
    if (block === undefined || !session.withText || block.text !== candidate.text) {
      skipped += 1;
      continue;
    }
    chosen.add(block.index);
  }
  if (chosen.size === 0) return undefined;
  let high = -1;
  let fromTurn = Number.POSITIVE_INFINITY;
  for (const index of chosen) {
    const block = session.blocks[index];
    if (block === undefined) continue;
    if (index > high) high = index;
    if (block.turn < fromTurn) fromTurn = block.turn;
  }
  // The record describes the folded stretch — from the start of the turn of the oldest folded block
  // (its user message included: user intent is never folded away silently) to the newest folded
  // block: tool calls (commands, paths), user messages and folded outputs; spans only for folded blocks.
  const stretch = lineageBlocks(session).filter((block) => block.turn >= fromTurn && block.index <= high);
  const record = createSeedAccumulator({ cwd: input.cwd })
    .add(stretch)
    .record({
      sessionId: input.sessionId,
      seq: state.nextSeq,
      trigger: plan.trigger,
      usage: {
        tokens: Math.max(0, Math.round(plan.usage.tokens)),
        contextWindow: plan.usage.contextWindow,
        fraction: Number((plan.usage.tokens / plan.usage.contextWindow).toFixed(4)),
      },
      codes: state.codes,
      spanFilter: (block) => chosen.has(block.index),
    });
  if (record.spans.length === 0) return undefined;
  await appendRecord(input.seedIndex, record);
  state.addRecord(record);
  state.noteEvent();
  return { record, skipped };
}
