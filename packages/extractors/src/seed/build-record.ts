// One-shot forms of the accumulator: fields of a list of blocks, and a fold record over folded blocks.
import type { Block } from "@context-fold/ledger-reader";
import type { CodeAssigner, FoldIndexRecord, SeedTrigger, Usage } from "@context-fold/seed-index-format";
import { createSeedAccumulator, type SeedFields, type SeedFieldsOptions } from "./accumulator.js";

export interface ExtractFieldsOptions extends SeedFieldsOptions {
  readonly cwd?: string | undefined;
}

/** The record fields of `blocks` (pure: same blocks and options, same fields). */
export function extractRecordFields(blocks: Iterable<Block>, options: ExtractFieldsOptions = {}): SeedFields {
  return createSeedAccumulator({ cwd: options.cwd }).add(blocks).fields(options);
}

export interface FoldRecordInput {
  readonly sessionId: string;
  readonly seq: number;
  /** ISO-8601 time from input; defaults to the last block's timestamp. */
  readonly at?: string | undefined;
  readonly trigger: SeedTrigger;
  readonly usage?: Usage | undefined;
  /** The folded blocks, in session order. Every anchorable one gets a span. */
  readonly blocks: Iterable<Block>;
  readonly cwd?: string | undefined;
  readonly codes?: CodeAssigner | undefined;
}

/** A fold-index v2 record over the folded `blocks`. */
export function buildFoldRecord(input: FoldRecordInput): FoldIndexRecord {
  return createSeedAccumulator({ cwd: input.cwd }).add(input.blocks).record({
    sessionId: input.sessionId,
    seq: input.seq,
    at: input.at,
    trigger: input.trigger,
    usage: input.usage,
    codes: input.codes,
  });
}
