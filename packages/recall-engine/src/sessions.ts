// Recall across every session under a Pi sessions directory: each session's index opened (cached),
// hits merged by score, results naming their session. Progress is reported through a callback.
import { type Dirent, readdirSync } from "node:fs";
import { join, relative } from "node:path";
import type { ScoredDoc } from "./rank.js";
import { openRecall, openRecallSnapshot } from "./open-recall.js";
import { parseQuery } from "./query.js";
import type { RecallIndex, RecallSession } from "./recall-index.js";
import { RecallPatternError, SnapshotStaleError } from "./errors.js";
import { buildPage, type RecallHit, type ResultSegment, type SearchResult } from "./results.js";

/** Every `*.jsonl` under `dir` (recursive, sorted), skipping our own `context-fold` folders. */
export function listSessionFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    let names: Dirent[];
    try {
      names = readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of names.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const path = join(d, e.name);
      if (e.isDirectory() && e.name !== "context-fold") walk(path);
      else if (e.isFile() && e.name.endsWith(".jsonl")) out.push(path);
    }
  };
  walk(dir);
  return out;
}

export interface SessionsSearchOptions {
  readonly scope?: string;
  readonly page?: number;
  readonly pageSize?: number;
  readonly regex?: boolean;
  readonly cacheDir?: string;
  readonly cache?: boolean;
  /** Called after each session is indexed: (done, total, file). */
  readonly onProgress?: (done: number, total: number, file: string) => void;
}

export interface SessionsSearchResult extends SearchResult {
  readonly sessions: number;
  /** Sessions that could not be read or searched (e.g. a scope they do not have), with why. */
  readonly skipped: readonly { readonly file: string; readonly reason: string }[];
}

/** One opened session: its index and the blocks results are built from (read, or from its block table). */
interface Opened {
  readonly label: string;
  readonly file: string;
  readonly index: RecallIndex;
  readonly blocks: RecallSession["blocks"];
}

/**
 * Every session under `dir` searched at once, hits merged by score. With caching on, a session whose
 * cache and block table match its bytes is searched without parsing it (a word query); the others are
 * read and get a table for next time. A table that turns out stale mid-search starts the search over
 * with every session read in full.
 */
export async function searchSessions(dir: string, query: string, options: SessionsSearchOptions = {}): Promise<SessionsSearchResult> {
  let tables = options.cache !== false;
  try {
    // A regex reads every block's text: the full read is faster for it than reading blocks back one by one.
    if (tables && parseQuery(query, options.regex === true ? { regex: true } : {}).mode === "regex") tables = false;
  } catch {
    tables = false; // a query error is reported per session, as before
  }
  try {
    return await searchOnce(dir, query, options, tables);
  } catch (error) {
    if (!tables || !(error instanceof SnapshotStaleError)) throw error;
    return searchOnce(dir, query, options, false);
  }
}

async function openOne(file: string, label: string, options: SessionsSearchOptions, tables: boolean): Promise<Opened> {
  const open: { cacheDir?: string; cache?: boolean } = {};
  if (options.cacheDir !== undefined) open.cacheDir = options.cacheDir;
  if (options.cache !== undefined) open.cache = options.cache;
  if (tables) {
    const fast = openRecallSnapshot(file, open);
    if (fast !== null) return { label, file, index: fast.index, blocks: fast.session.blocks };
  }
  const recall = await openRecall(file, open);
  if (options.cache !== false) {
    try {
      recall.saveSnapshot();
    } catch {
      // Only the next search's speed depends on it.
    }
  }
  return { label, file, index: recall.index, blocks: recall.session.blocks };
}

async function searchOnce(dir: string, query: string, options: SessionsSearchOptions, tables: boolean): Promise<SessionsSearchResult> {
  const files = listSessionFiles(dir);
  const opened: Opened[] = [];
  const skipped: { file: string; reason: string }[] = [];
  let done = 0;
  for (const file of files) {
    try {
      opened.push(await openOne(file, relative(dir, file), options, tables));
    } catch (error) {
      skipped.push({ file, reason: error instanceof Error ? error.message : String(error) });
    }
    options.onProgress?.(++done, files.length, file);
  }
  const merged: { s: number; hit: ScoredDoc }[] = [];
  const ranks: ReturnType<RecallIndex["rank"]>[] = [];
  let mode: SearchResult["mode"] = "words";
  let scopeName = options.scope ?? "lineage";
  for (let s = 0; s < opened.length; s++) {
    const item = opened[s] as Opened;
    try {
      const r = item.index.rank(query, { ...(options.scope === undefined ? {} : { scope: options.scope }), ...(options.regex === undefined ? {} : { regex: options.regex }) });
      ranks[s] = r;
      mode = r.parsed.mode;
      scopeName = r.scope.name;
      for (const hit of r.ranked) merged.push({ s, hit });
    } catch (error) {
      // A pattern error is the query's fault: it fails for every session alike; a stale table restarts the search.
      if (error instanceof SnapshotStaleError) throw error;
      if (error instanceof RecallPatternError) throw error;
      skipped.push({ file: item.file, reason: error instanceof Error ? error.message : String(error) });
    }
  }
  merged.sort((a, b) => b.hit.score - a.hit.score || a.s - b.s || b.hit.doc - a.hit.doc);
  const pageSize = Math.max(1, Math.floor(options.pageSize ?? 5));
  const total = merged.length;
  const pages = Math.ceil(total / pageSize);
  const page = Math.min(Math.max(1, Math.floor(options.page ?? 1)), Math.max(1, pages));
  const slice = merged.slice((page - 1) * pageSize, page * pageSize);
  const hits: RecallHit[] = [];
  const segments: ResultSegment[] = [];
  const bySession = new Map<number, ScoredDoc[]>();
  for (const m of slice) bySession.set(m.s, [...(bySession.get(m.s) ?? []), m.hit]);
  let segmentCount = 0;
  for (const [s, docs] of bySession) {
    const item = opened[s] as Opened;
    const r = ranks[s];
    if (r === undefined) continue;
    const view = buildPage(item.blocks, r.scope, r.parsed, docs, { page: 1, pageSize: docs.length, session: item.label });
    segments.push(...view.segments);
    segmentCount += view.segmentCount;
  }
  slice.forEach((m, k) => {
    const item = opened[m.s] as Opened;
    const r = ranks[m.s];
    if (r === undefined) return;
    const one = buildPage(item.blocks, r.scope, r.parsed, [m.hit], { page: 1, pageSize: 1, session: item.label });
    const hit = one.hits[0];
    if (hit !== undefined) hits.push({ ...hit, rank: (page - 1) * pageSize + k + 1 });
  });
  return { query, mode, scope: scopeName, total, page, pages, pageSize, hits, segments, segmentCount, sessions: opened.length, skipped };
}
