// One session's recall, end to end: read the ledger, load the on-disk index when its key still
// matches (growing it by the appended blocks), else build it; save atomically; refresh as Pi appends.
import { LedgerError, readSession, updateSession, type Session } from "@context-fold/ledger-reader";
import { cacheKeyFor, compareKey, defaultCachePath, isCacheKey, readCacheBytes, writeAtomic } from "./index-cache.js";
import { ledgerVerifier } from "./ledger-verify.js";
import { RecallIndex, type ExpandedEntry, type SearchOptions } from "./recall-index.js";
import type { SearchResult } from "./results.js";
import { CorruptIndexError, TermIndex } from "./term-index.js";

export interface OpenRecallOptions {
  /** Keep caches here instead of beside the seed index. */
  readonly cacheDir?: string;
  /** Exact cache file (overrides cacheDir). */
  readonly cachePath?: string;
  /** false: build in memory, never read or write a cache. */
  readonly cache?: boolean;
}

export interface CacheReport {
  /** built: no cache; loaded: used as is; updated: loaded + appended blocks; rebuilt: cache refused; memory: caching off. */
  readonly status: "built" | "loaded" | "updated" | "rebuilt" | "memory";
  readonly path: string | null;
  /** Why a cache was refused (stale key, corrupt bytes). */
  readonly reason?: string;
  /** Blocks indexed by this open/refresh (0 when loaded as is). */
  readonly indexed: number;
}

/** Loads `cachePath` for `session` when its key still holds; null (with the reason) when it must be rebuilt. */
export function loadCachedIndex(cachePath: string, sessionFile: string, session: Session): { index: RecallIndex; added: number; same: boolean } | { index: null; reason: string | null } {
  const bytes = readCacheBytes(cachePath);
  if (bytes === null) return { index: null, reason: null };
  try {
    const meta = TermIndex.readMeta(bytes);
    if (!isCacheKey(meta)) return { index: null, reason: "cache key has an unknown shape" };
    const relation = compareKey(meta, sessionFile, session);
    if (typeof relation !== "string") return { index: null, reason: relation.stale };
    const terms = TermIndex.deserialize(bytes);
    if (terms.docCount !== meta.blockCount) return { index: null, reason: "cache holds another block count than its key says" };
    const before = terms.docCount;
    const index = RecallIndex.fromTerms(session, terms);
    return { index, added: index.blockCount - before, same: relation === "same" };
  } catch (error) {
    if (error instanceof CorruptIndexError) return { index: null, reason: error.message };
    throw error;
  }
}

export class SessionRecall {
  private current: Session;
  private currentIndex: RecallIndex;
  readonly file: string;
  readonly cachePath: string | null;
  private lastReport: CacheReport;

  private constructor(file: string, session: Session, index: RecallIndex, cachePath: string | null, report: CacheReport) {
    this.file = file;
    this.current = session;
    this.currentIndex = index;
    this.cachePath = cachePath;
    this.lastReport = report;
  }

  static async open(sessionFile: string, options: OpenRecallOptions = {}): Promise<SessionRecall> {
    const session = await readSession(sessionFile);
    if (options.cache === false) {
      const index = RecallIndex.build(session);
      return new SessionRecall(sessionFile, session, index, null, { status: "memory", path: null, indexed: index.blockCount });
    }
    const cachePath = options.cachePath ?? defaultCachePath(sessionFile, session.header.id, options.cacheDir);
    const loaded = loadCachedIndex(cachePath, sessionFile, session);
    if (loaded.index !== null) {
      const report: CacheReport = { status: loaded.same ? "loaded" : "updated", path: cachePath, indexed: loaded.added };
      const recall = new SessionRecall(sessionFile, session, loaded.index, cachePath, report);
      if (!loaded.same) recall.save();
      return recall;
    }
    const index = RecallIndex.build(session);
    const report: CacheReport =
      loaded.reason === null
        ? { status: "built", path: cachePath, indexed: index.blockCount }
        : { status: "rebuilt", path: cachePath, reason: loaded.reason, indexed: index.blockCount };
    const recall = new SessionRecall(sessionFile, session, index, cachePath, report);
    recall.save();
    return recall;
  }

  get session(): Session {
    return this.current;
  }
  get index(): RecallIndex {
    return this.currentIndex;
  }
  get cache(): CacheReport {
    return this.lastReport;
  }

  /** Writes the cache (atomically) for the ledger as read now. */
  save(): void {
    if (this.cachePath === null) return;
    writeAtomic(this.cachePath, this.index.serialize(cacheKeyFor(this.file, this.current)));
  }

  /** Reads what Pi appended and indexes it; a truncated/replaced ledger is read again and rebuilt. */
  async refresh(): Promise<CacheReport> {
    try {
      const next = await updateSession(this.current);
      if (next === this.current) {
        this.lastReport = { status: "loaded", path: this.cachePath, indexed: 0 };
        return this.lastReport;
      }
      this.current = next;
      const added = this.index.update(next);
      this.save();
      this.lastReport = { status: "updated", path: this.cachePath, indexed: added };
      return this.lastReport;
    } catch (error) {
      if (!(error instanceof LedgerError) || error.code !== "LEDGER_CHANGED") throw error;
      const fresh = await SessionRecall.open(this.file, this.cachePath === null ? { cache: false } : { cachePath: this.cachePath });
      this.current = fresh.current;
      this.currentIndex = fresh.currentIndex;
      this.lastReport = { status: "rebuilt", path: this.cachePath, reason: error.message, indexed: fresh.index.blockCount };
      return this.lastReport;
    }
  }

  search(query: string, options: SearchOptions = {}): SearchResult {
    return this.index.search(query, options);
  }
  browse(options: { scope?: string; count?: number } = {}): SearchResult {
    return this.index.browse(options);
  }
  /** Full text of `#N` blocks, each verified against the ledger file as it is now. */
  expand(indices: readonly number[]): ExpandedEntry[] {
    return this.index.expand(indices, ledgerVerifier(this.current));
  }
}

/** Opens recall over one session file (index built, or loaded from its cache and grown). */
export function openRecall(sessionFile: string, options: OpenRecallOptions = {}): Promise<SessionRecall> {
  return SessionRecall.open(sessionFile, options);
}
