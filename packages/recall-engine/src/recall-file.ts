// The one recall entry point over a session file, for the CLI and for cross-session search: a plain word
// query (or browse) is answered from the cache and its block table when both match the ledger's bytes;
// anything else, or a table found stale mid-answer, reads the ledger in full and saves the table for next
// time. Expand and span recall always read the ledger, so their text is verified against it.
import type { Block } from "@context-fold/ledger-reader";
import { openRecall, openRecallSnapshot, type OpenRecallOptions, type SessionRecall } from "./open-recall.js";
import { parseQuery, type ParsedQuery } from "./query.js";
import type { ScoredDoc } from "./rank.js";
import type { ExpandedEntry, RecallIndex, RecallSession } from "./recall-index.js";
import type { RecordedHashes } from "./recorded-hashes.js";
import type { SearchResult } from "./results.js";
import { type SalvagedHit, searchSalvaged } from "./salvaged.js";
import type { ScopeView } from "./scope.js";
import { SnapshotStaleError } from "./errors.js";
import { spanRecall, type SpanRecallOptions, type SpanRecallResult } from "./span-recall.js";

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

/** A word query or a browse: what the block table can answer (a regex reads every text, faster in full). */
function answersFromTable(request: RecallRequest): boolean {
  if (request.expand !== undefined || request.spans !== undefined || request.open?.cache === false) return false;
  const query = request.query?.trim() ?? "";
  return query.length === 0 || parseQuery(query, request.regex === true ? { regex: true } : {}).mode !== "regex";
}

function searchOptions(request: RecallRequest): { scope?: string; page?: number; pageSize?: number; regex?: boolean } {
  return {
    ...(request.scope === undefined ? {} : { scope: request.scope }),
    ...(request.page === undefined ? {} : { page: request.page }),
    ...(request.pageSize === undefined ? {} : { pageSize: request.pageSize }),
    ...(request.regex === true ? { regex: true } : {}),
  };
}

/**
 * Marks hits whose text no longer matches the hash recorded when the block was first indexed
 * (`changed: true`): search shows what the ledger holds now, and says when that differs.
 */
export function markChanged(result: SearchResult, blocks: readonly Block[], hashes: RecordedHashes): { result: SearchResult; changed: { index: number; problem: string }[] } {
  const changed: { index: number; problem: string }[] = [];
  const hits = result.hits.map((hit) => {
    const block = blocks[hit.index];
    if (block === undefined) return hit;
    const check = hashes.check(block);
    if (check.verified || check.verifiedAgainst === "none") return hit;
    changed.push({ index: hit.index, problem: check.problem ?? "changed" });
    return { ...hit, changed: true, verifiedAgainst: check.verifiedAgainst };
  });
  return { result: changed.length > 0 ? { ...result, hits } : result, changed };
}

function fromTable(file: string, request: RecallRequest): RecallAnswer | null {
  const fast = openRecallSnapshot(file, request.open ?? {});
  if (fast === null) return null;
  const query = request.query?.trim() ?? "";
  try {
    if (request.rankOnly === true) {
      const r = fast.index.rank(query, { ...(request.scope === undefined ? {} : { scope: request.scope }), ...(request.regex === true ? { regex: true } : {}) });
      return { kind: "ranked", ranked: r.ranked, scope: r.scope, parsed: r.parsed, blocks: fast.session.blocks, index: fast.index, notes: { changed: [] } };
    }
    const result = query.length === 0 ? fast.browse(request.scope === undefined ? {} : { scope: request.scope }) : fast.search(query, searchOptions(request));
    return { kind: "search", result, salvaged: [], recall: null, notes: { changed: [] } };
  } catch (error) {
    // The ledger changed under the table: the caller's answer comes from the full read instead.
    if (error instanceof SnapshotStaleError) return null;
    throw error;
  }
}

/** Answers `request` over one session file (see the file comment for the policy). */
export async function recallFile(file: string, request: RecallRequest = {}): Promise<RecallAnswer> {
  // A table found stale is not read again (`tables: false`), but the full read still saves a fresh one.
  const plain = answersFromTable(request);
  if (plain && request.tables !== false) {
    const fast = fromTable(file, request);
    if (fast !== null) return fast;
  }
  const recall = await openRecall(file, request.open ?? {});
  let snapshotProblem: string | undefined;
  if (plain) {
    try {
      recall.saveSnapshot();
    } catch (error) {
      snapshotProblem = error instanceof Error ? error.message : String(error);
    }
  }
  const base = { cache: recall.cache, ...(snapshotProblem === undefined ? {} : { snapshotProblem }) };
  if (request.spans !== undefined) return { kind: "spans", result: await spanRecall(recall.session, request.spans), recall, notes: { ...base, changed: [] } };
  if (request.expand !== undefined) return { kind: "expand", entries: recall.expand(request.expand), recall, notes: { ...base, changed: [] } };
  const query = request.query?.trim() ?? "";
  if (request.rankOnly === true) {
    const r = recall.index.rank(query, { ...(request.scope === undefined ? {} : { scope: request.scope }), ...(request.regex === true ? { regex: true } : {}) });
    return { kind: "ranked", ranked: r.ranked, scope: r.scope, parsed: r.parsed, blocks: recall.session.blocks, index: recall.index, notes: { ...base, changed: [] } };
  }
  const found = query.length === 0 ? recall.browse(request.scope === undefined ? {} : { scope: request.scope }) : recall.search(query, searchOptions(request));
  const { result, changed } = markChanged(found, recall.session.blocks, recall.recordedHashes());
  // Text salvaged from lines that do not parse has no #N: found here, shown as `line N (salvaged)`.
  const salvaged = query.length === 0 ? [] : searchSalvaged(recall.session.damaged, parseQuery(query, request.regex === true ? { regex: true } : {}));
  return { kind: "search", result, salvaged, recall, notes: { ...base, changed } };
}
