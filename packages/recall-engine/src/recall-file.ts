// The one recall entry point over a session file, for the CLI and for cross-session search: a plain word
// query (or browse) is answered from the cache and its block table when both match the ledger's bytes;
// anything else, or a table found stale mid-answer, reads the ledger in full and saves the table for next
// time. Expand and span recall always read the ledger, so their text is verified against it.
import type { Block } from "@context-fold/ledger-reader";
import { statSync } from "node:fs";
import { type CacheReport, openRecall } from "./open-recall.js";
import { parseQuery } from "./query.js";
import type { RecallAnswer, RecallRequest } from "./recall-request.js";
import type { RecordedHashes } from "./recorded-hashes.js";
import type { SearchResult } from "./results.js";
import { searchSalvaged } from "./salvaged.js";
import { spanRecall } from "./span-recall.js";
import { buildRecallFilesStreamed, STREAM_ABOVE } from "./streamed-build.js";
import { answersFromTable, recallFromTable, searchOptions } from "./table-recall.js";

export type { RecallAnswer, RecallNotes, RecallRequest } from "./recall-request.js";

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

/**
 * A large session's answer from its cache and block table built streamed (streamed-build.ts), when it is
 * large enough and can have a table; null otherwise (the caller reads it whole).
 */
async function streamedAnswer(file: string, request: RecallRequest): Promise<RecallAnswer | null> {
  const open = request.open ?? {};
  let size: number;
  try {
    size = statSync(file).size;
  } catch {
    return null;
  }
  if (size <= (open.streamAbove ?? STREAM_ABOVE)) return null;
  const built = await buildRecallFilesStreamed(file, open);
  if (built === null) return null;
  const answer = recallFromTable(file, { ...request, tables: true, open: { ...open, cachePath: built.cachePath } });
  if (answer === null) return null;
  const cache: CacheReport = built.replaced
    ? { status: "rebuilt", path: built.cachePath, reason: "the cache or its block table did not match the ledger", indexed: built.indexed }
    : { status: "built", path: built.cachePath, indexed: built.indexed };
  return { ...answer, notes: { ...answer.notes, cache } };
}

/** Answers `request` over one session file (see the file comment for the policy). */
export async function recallFile(file: string, request: RecallRequest = {}): Promise<RecallAnswer> {
  // A table found stale is not read again (`tables: false`), but the full read still saves a fresh one.
  const fast = recallFromTable(file, request);
  if (fast !== null) return fast;
  const plain = answersFromTable(request);
  if (plain) {
    const built = await streamedAnswer(file, request);
    if (built !== null) return built;
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
