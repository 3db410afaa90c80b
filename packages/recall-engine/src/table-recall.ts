// A plain word query (or browse) answered from the cache and its block table alone, without parsing the
// ledger: the first step of every recall over a session file (recall-file.ts), and all a one-shot
// search needs to load (one-shot.ts), since nothing here imports the ledger reader's parse.
import { parseQuery } from "./query.js";
import type { RecallAnswer, RecallRequest } from "./recall-request.js";
import { CorruptIndexError, SnapshotStaleError } from "./errors.js";
import { openSnapshotRecall } from "./snapshot-recall.js";

/** A word query or a browse: what the block table can answer (a regex reads every text, faster in full). */
export function answersFromTable(request: RecallRequest): boolean {
  if (request.expand !== undefined || request.spans !== undefined || request.open?.cache === false) return false;
  const query = request.query?.trim() ?? "";
  return query.length === 0 || parseQuery(query, request.regex === true ? { regex: true } : {}).mode !== "regex";
}

export function searchOptions(request: RecallRequest): { scope?: string; page?: number; pageSize?: number; regex?: boolean } {
  return {
    ...(request.scope === undefined ? {} : { scope: request.scope }),
    ...(request.page === undefined ? {} : { page: request.page }),
    ...(request.pageSize === undefined ? {} : { pageSize: request.pageSize }),
    ...(request.regex === true ? { regex: true } : {}),
  };
}

/**
 * `request` answered from the block table when the table can answer it (a word query or a browse, the
 * table allowed) and both the cache and the table match the ledger's bytes; null otherwise, and when the
 * ledger changed under the table mid-answer: the ledger is then read in full (`recallFile`).
 */
export function recallFromTable(file: string, request: RecallRequest): RecallAnswer | null {
  if (request.tables === false || !answersFromTable(request)) return null;
  // One search (or browse) of the recall: its postings checked as it reads them. A ranking is handed
  // on (its index searched again by the caller), so its postings are checked at load.
  const fast = openSnapshotRecall(file, request.open ?? {}, request.rankOnly !== true);
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
    // The ledger changed under the table, or a postings page the search read fails its check: the
    // caller's answer comes from the full read instead (which checks the cache whole, and rebuilds it).
    if (error instanceof SnapshotStaleError || error instanceof CorruptIndexError) return null;
    throw error;
  }
}
