// What a recall over one session file is asked (RecallRequest) and what it answers (RecallAnswer): the
// types shared by the full recall (recall-file.ts) and the answer from the block table (table-recall.ts).
import type { ParsedQuery } from "./query.js";
import type { ScoredDoc } from "./rank.js";
import type { OpenRecallOptions } from "./open-options.js";
import type { SessionRecall } from "./open-recall.js";
import type { ExpandedEntry, RecallIndex, RecallSession } from "./recall-index.js";
import type { SearchResult } from "./results.js";
import type { SalvagedHit } from "./salvaged.js";
import type { ScopeView } from "./scope.js";
import type { SpanRecallOptions, SpanRecallResult } from "./span-recall.js";

export interface RecallRequest {
  /** Words, phrases or a regex; empty or absent browses the scope's latest entries. */
  readonly query?: string;
  readonly scope?: string;
  readonly page?: number;
  readonly pageSize?: number;
  readonly regex?: boolean;
  /** `#N` blocks to give in full, verified (no query then). */
  readonly expand?: readonly number[];
  /** Seed-index spans by code, anchor or term (no query then). */
  readonly spans?: SpanRecallOptions;
  /** Every hit of the query in the scope, unpaged, with the blocks to build pages from (cross-session merge). */
  readonly rankOnly?: boolean;
  /** false: always read the ledger in full (a caller retrying after a stale block table). Default true. */
  readonly tables?: boolean;
  /** Where and whether caches are kept (see OpenRecallOptions). */
  readonly open?: OpenRecallOptions;
}

/** What a full read found worth saying (the CLI prints these as warnings; the answer stands). */
export interface RecallNotes {
  /** How the cache was used (absent when answered from the block table). */
  readonly cache?: SessionRecall["cache"];
  /** The block table could not be saved: only the next search's speed depends on it. */
  readonly snapshotProblem?: string;
  /** Hits whose text differs from the hash recorded when first indexed: `#N` and why. */
  readonly changed: readonly { readonly index: number; readonly problem: string }[];
}

export type RecallAnswer =
  | { readonly kind: "search"; readonly result: SearchResult; readonly salvaged: readonly SalvagedHit[]; readonly recall: SessionRecall | null; readonly notes: RecallNotes }
  | { readonly kind: "ranked"; readonly ranked: readonly ScoredDoc[]; readonly scope: ScopeView; readonly parsed: ParsedQuery; readonly blocks: RecallSession["blocks"]; readonly index: RecallIndex; readonly notes: RecallNotes }
  | { readonly kind: "expand"; readonly entries: readonly ExpandedEntry[]; readonly recall: SessionRecall; readonly notes: RecallNotes }
  | { readonly kind: "spans"; readonly result: SpanRecallResult; readonly recall: SessionRecall; readonly notes: RecallNotes };
