// Recall across every session under a Pi sessions directory: each session's index opened (cached),
// hits merged by score, results naming their session. Progress is reported through a callback.
import { type Dirent, readdirSync } from "node:fs";
import { normalize, relative, sep } from "node:path";
import type { ParsedQuery } from "./query.js";
import type { ScoredDoc } from "./rank.js";
import { recallFile } from "./recall-file.js";
import type { RecallSession } from "./recall-index.js";
import type { ScopeView } from "./scope.js";
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
    // `d` is normalised and a name holds no separator: joined by hand as path.join would join them
    // (which normalises each of a thousand paths again, most of a cold listing's time).
    const under = d === "." ? "" : d.endsWith(sep) ? d : `${d}${sep}`;
    for (const e of names.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const path = `${under}${e.name}`;
      if (e.isDirectory() && e.name !== "context-fold") walk(path);
      else if (e.isFile() && e.name.endsWith(".jsonl")) out.push(path);
    }
  };
  walk(normalize(dir));
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

/** One opened session: its ranked hits and the blocks results are built from (read, or from its block table). */
export interface RankedSession {
  readonly label: string;
  readonly file: string;
  readonly blocks: RecallSession["blocks"];
  readonly rank: { readonly scope: ScopeView; readonly parsed: ParsedQuery; readonly ranked: readonly ScoredDoc[] };
}

/**
 * Every session under `dir` searched at once, hits merged by score. Each session is answered by
 * `recallFile` (its block table when it matches, else a full read that saves one). A table that turns out
 * stale while the merged page is built starts the search over with every session read in full.
 */
export async function searchSessions(dir: string, query: string, options: SessionsSearchOptions = {}): Promise<SessionsSearchResult> {
  try {
    return await searchOnce(dir, query, options, true);
  } catch (error) {
    if (!(error instanceof SnapshotStaleError)) throw error;
    return searchOnce(dir, query, options, false);
  }
}

/** One session's hits for a cross-session search, through `recallFile` (`cacheDir`: where its caches live). */
export async function rankSession(file: string, label: string, query: string, options: Pick<SessionsSearchOptions, "scope" | "regex" | "cacheDir" | "cache">, tables: boolean): Promise<RankedSession> {
  const open: { cacheDir?: string; cache?: boolean } = {};
  if (options.cacheDir !== undefined) open.cacheDir = options.cacheDir;
  if (options.cache !== undefined) open.cache = options.cache;
  const answer = await recallFile(file, {
    query,
    rankOnly: true,
    tables,
    open,
    ...(options.scope === undefined ? {} : { scope: options.scope }),
    ...(options.regex === undefined ? {} : { regex: options.regex }),
  });
  if (answer.kind !== "ranked") throw new Error(`recallFile answered ${answer.kind} to a ranking request`);
  return { label, file, blocks: answer.blocks, rank: { scope: answer.scope, parsed: answer.parsed, ranked: answer.ranked } };
}

async function searchOnce(dir: string, query: string, options: SessionsSearchOptions, tables: boolean): Promise<SessionsSearchResult> {
  const files = listSessionFiles(dir);
  const opened: RankedSession[] = [];
  const skipped: { file: string; reason: string }[] = [];
  let done = 0;
  const merged: { s: number; hit: ScoredDoc }[] = [];
  let mode: SearchResult["mode"] = "words";
  let scopeName = options.scope ?? "lineage";
  for (const file of files) {
    try {
      const item = await rankSession(file, relative(dir, file), query, options, tables);
      const s = opened.length;
      opened.push(item);
      mode = item.rank.parsed.mode;
      scopeName = item.rank.scope.name;
      for (const hit of item.rank.ranked) merged.push({ s, hit });
    } catch (error) {
      // A pattern error is the query's fault: it fails for every session alike.
      if (error instanceof RecallPatternError) throw error;
      skipped.push({ file, reason: error instanceof Error ? error.message : String(error) });
    }
    options.onProgress?.(++done, files.length, file);
  }
  return { query, mode, scope: scopeName, ...pageAcross(opened, merged, options), sessions: opened.length, skipped };
}

/** The page asked for (before it is held to the pages there are) and its size: 1 and 5 by default. */
export function pageRequest(options: { readonly page?: number; readonly pageSize?: number }): { page: number; pageSize: number } {
  return { page: Math.max(1, Math.floor(options.page ?? 1)), pageSize: Math.max(1, Math.floor(options.pageSize ?? 5)) };
}

/**
 * The first `n` of `items` in `order` (a total order: no two items tie), sorted. A common word gives tens
 * of thousands of hits across a history and a page shows a few: those are picked in one pass (each item
 * compared with the worst kept) rather than sorting them all; the same items a full sort would put first.
 */
export function leading<T>(items: readonly T[], n: number, order: (a: T, b: T) => number): T[] {
  if (n * 8 >= items.length) return [...items].sort(order).slice(0, n);
  const kept: T[] = [];
  for (const item of items) {
    if (kept.length === n && order(item, kept[n - 1] as T) >= 0) continue;
    let lo = 0;
    let hi = kept.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (order(kept[mid] as T, item) < 0) lo = mid + 1;
      else hi = mid;
    }
    kept.splice(lo, 0, item);
    if (kept.length > n) kept.pop();
  }
  return kept;
}

/**
 * The hits of every session merged by score (ties: the session listed first, then the later block) and
 * paged; each page's hits and segments built from their own session's blocks, labelled with it. With
 * `first`, the hits of the sessions it names come before all others (each group by score).
 */
export function pageAcross(
  opened: readonly RankedSession[],
  merged: { s: number; hit: ScoredDoc }[],
  options: { readonly page?: number; readonly pageSize?: number },
  first?: (s: number) => boolean,
): Pick<SearchResult, "total" | "page" | "pages" | "pageSize" | "hits" | "segments" | "segmentCount"> {
  const groups = new Map<number, number>();
  const group = (s: number): number => {
    let g = groups.get(s);
    if (g === undefined) {
      g = first?.(s) === true ? 0 : 1;
      groups.set(s, g);
    }
    return g;
  };
  const before = (a: { s: number; hit: ScoredDoc }, b: { s: number; hit: ScoredDoc }): number => group(a.s) - group(b.s) || b.hit.score - a.hit.score || a.s - b.s || b.hit.doc - a.hit.doc;
  const asked = pageRequest(options);
  const pageSize = asked.pageSize;
  const total = merged.length;
  const pages = Math.ceil(total / pageSize);
  const page = Math.min(asked.page, Math.max(1, pages));
  const slice = leading(merged, page * pageSize, before).slice((page - 1) * pageSize, page * pageSize);
  const hits: RecallHit[] = [];
  const segments: ResultSegment[] = [];
  const bySession = new Map<number, ScoredDoc[]>();
  for (const m of slice) bySession.set(m.s, [...(bySession.get(m.s) ?? []), m.hit]);
  let segmentCount = 0;
  // Each session's page gives its hits in the order of its docs: the k-th of a session's slice entries is
  // its page's k-th hit (a hit is made of its own block, score and the query only), ranked here across sessions.
  const hitsOf = new Map<number, readonly RecallHit[]>();
  for (const [s, docs] of bySession) {
    const item = opened[s] as RankedSession;
    const r = item.rank;
    const view = buildPage(item.blocks, r.scope, r.parsed, docs, { page: 1, pageSize: docs.length, session: item.label });
    segments.push(...view.segments);
    segmentCount += view.segmentCount;
    hitsOf.set(s, view.hits);
  }
  const taken = new Map<number, number>();
  slice.forEach((m, k) => {
    const at = taken.get(m.s) ?? 0;
    taken.set(m.s, at + 1);
    const hit = hitsOf.get(m.s)?.[at];
    if (hit !== undefined) hits.push({ ...hit, rank: (page - 1) * pageSize + k + 1 });
  });
  return { total, page, pages, pageSize, hits, segments, segmentCount };
}
