// Recall opened from the on-disk index and the block table beside it, without parsing the ledger (what a
// one-shot search loads: table-recall.ts), and the cache loading the full open shares (open-recall.ts):
// the index is loaded when its key still matches the ledger, with the records of its tail log.
import { type CacheKey, CACHE_FORMAT, compareKey, defaultCachePath, isCacheKey, type KnownEdges, readCacheBytes } from "./index-cache.js";
import type { OpenRecallOptions } from "./open-options.js";
import { RecallIndex, type RecallSession, type SearchOptions } from "./recall-index.js";
import { readSessionHead } from "./session-head.js";
import type { SearchResult } from "./results.js";
import { openSnapshot, type SnapshotSession } from "./snapshot.js";
import { CorruptIndexError, TermIndex } from "./term-index.js";
import { FileSource } from "./paged-postings.js";

/** Where a cache's tail log lives: appended records of what refreshes indexed since the base was written. */
export function tailLogPath(cachePath: string): string {
  return `${cachePath}.tail`;
}

/** The state of a cache on disk as this process last saw it (so appends know whether they may continue it). */
export interface DiskState {
  /** sha256 trailer of the base file: tail records chain to it. */
  readonly chain: Buffer;
  readonly baseBytes: number;
  /** Bytes of good records in the tail log. */
  readonly tailBytes: number;
}

export type Loaded = { index: RecallIndex; added: number; same: boolean; disk: DiskState; tailProblem: string | null } | { index: null; reason: string | null };

/**
 * Loads `cachePath` (plus its tail log) for `session` when its key still holds; null (with the reason)
 * when it must be rebuilt. Tail records are each sha256-checked and chained to the base; a bad or torn
 * record ends the tail there (what follows is indexed from the ledger), and a tail whose last key no
 * longer matches the ledger is ignored whole.
 */
export function loadCachedIndex(cachePath: string, sessionFile: string, session: RecallSession & { readonly edges?: KnownEdges }): Loaded {
  return loadCached(cachePath, sessionFile, session, false);
}

/** `loadCachedIndex`; `asRead`: postings checked as a search reads them, not at load (`TermIndex.openSource`). */
function loadCached(cachePath: string, sessionFile: string, session: RecallSession & { readonly edges?: KnownEdges }, asRead: boolean): Loaded {
  let source: FileSource;
  try {
    source = new FileSource(cachePath);
  } catch {
    return { index: null, reason: null };
  }
  const loaded = loadFrom(source, cachePath, sessionFile, session, asRead);
  // Kept open while the index reads its postings by offset; closed when the cache is not used.
  if (loaded.index === null) source.close();
  return loaded;
}

function loadFrom(source: FileSource, cachePath: string, sessionFile: string, session: RecallSession & { readonly edges?: KnownEdges }, asRead: boolean): Loaded {
  try {
    const meta = TermIndex.readMeta(source);
    const format = typeof meta === "object" && meta !== null ? (meta as Record<string, unknown>)["format"] : undefined;
    if (format !== CACHE_FORMAT) return { index: null, reason: `cache was written in index format ${String(format)}, this reader writes ${String(CACHE_FORMAT)}` };
    if (!isCacheKey(meta)) return { index: null, reason: "cache key has an unknown shape" };
    const relation = compareKey(meta, sessionFile, session, session.edges);
    if (typeof relation !== "string") return { index: null, reason: relation.stale };
    const { index: terms, chain } = TermIndex.openSource(source, undefined, asRead);
    if (terms.docCount !== meta.blockCount) return { index: null, reason: "cache holds another block count than its key says" };
    let same = relation === "same";
    let tailBytes = 0;
    let tailProblem: string | null = null;
    const log = readCacheBytes(tailLogPath(cachePath));
    if (log !== null && log.length > 0) {
      const tail = TermIndex.readTail(log, chain);
      tailProblem = tail.problem;
      const last = tail.records[tail.records.length - 1];
      const lastKey = last?.meta;
      const lastRelation = lastKey !== undefined && isCacheKey(lastKey) ? compareKey(lastKey, sessionFile, session, session.edges) : null;
      if (last !== undefined && typeof lastRelation === "string" && (lastKey as CacheKey).blockCount === last.firstDoc + last.newDocs) {
        for (const record of tail.records) {
          if (!terms.applyTail(record)) {
            // Checked records that do not fit: never trusted; the whole cache is rebuilt.
            return { index: null, reason: "cache tail does not continue its base" };
          }
        }
        same = lastRelation === "same";
        tailBytes = tail.bytes;
      } else if (last !== undefined) tailProblem = "cache tail was written for other ledger bytes";
    }
    const before = terms.docCount;
    const index = RecallIndex.fromTerms(session, terms);
    return { index, added: index.blockCount - before, same, disk: { chain, baseBytes: source.size, tailBytes }, tailProblem };
  } catch (error) {
    if (error instanceof CorruptIndexError) return { index: null, reason: error.message };
    throw error;
  }
}

/** A recall answered from its cache and block table alone, without parsing the ledger: search and browse. */
export interface SnapshotRecall {
  readonly file: string;
  readonly cachePath: string;
  readonly session: SnapshotSession;
  readonly index: RecallIndex;
  /** May throw SnapshotStaleError when a block's bytes changed since the snapshot: recall the full way then. */
  search(query: string, options?: SearchOptions): SearchResult;
  browse(options?: { scope?: string; count?: number }): SearchResult;
}

/**
 * Opens recall from the cache and its block table when both were written for exactly the bytes the ledger
 * holds now; null when either is missing or stale (then `openRecall` reads the ledger, and
 * `saveSnapshot` makes the next call fast). Never writes.
 */
export function openRecallSnapshot(sessionFile: string, options: Omit<OpenRecallOptions, "cache"> = {}): SnapshotRecall | null {
  return openSnapshotRecall(sessionFile, options, false);
}

/**
 * `openRecallSnapshot`; `oneSearch`: the recall serves one search (recallFromTable), so its postings are
 * checked as that search reads them, not all at load (a search may then throw CorruptIndexError).
 */
export function openSnapshotRecall(sessionFile: string, options: Omit<OpenRecallOptions, "cache">, oneSearch: boolean): SnapshotRecall | null {
  let cachePath = options.cachePath;
  if (cachePath === undefined) {
    const id = readSessionHead(sessionFile)?.id;
    if (id === undefined) return null;
    cachePath = defaultCachePath(sessionFile, id, options.cacheDir);
  }
  const session = openSnapshot(cachePath, sessionFile);
  if (session === null) return null;
  const loaded = loadCached(cachePath, sessionFile, session, oneSearch);
  if (loaded.index === null || !loaded.same || loaded.tailProblem !== null) return null;
  const index = loaded.index;
  return {
    file: sessionFile,
    cachePath,
    session,
    index,
    search: (query, searchOptions = {}) => index.search(query, searchOptions),
    browse: (browseOptions = {}) => index.browse(browseOptions),
  };
}
