// One session's recall, end to end: read the ledger, load the on-disk index when its key still
// matches (growing it by the appended blocks), else build it; save atomically; refresh as Pi appends.
import { closeSync, fdatasyncSync, openSync, readSync, rmSync, statSync, writeSync } from "node:fs";
import { type Block, LedgerError, readSession, updateSession, type Session } from "@context-fold/ledger-reader";
import { CACHE_FORMAT, type CacheKey, cacheKeyFor, compareKey, defaultCachePath, isCacheKey, readCacheBytes, writeAtomic } from "./index-cache.js";
import { loadRecordedHashes, type RecordedHashes } from "./recorded-hashes.js";
import { RecallIndex, type ExpandedEntry, type RecallSession, type SearchOptions } from "./recall-index.js";
import type { SearchResult } from "./results.js";
import { openSnapshot, type SnapshotSession, writeSnapshot } from "./snapshot.js";
import { CorruptIndexError, TermIndex } from "./term-index.js";

export interface OpenRecallOptions {
  /** Keep caches here instead of beside the seed index. */
  readonly cacheDir?: string;
  /** Exact cache file (overrides cacheDir). */
  readonly cachePath?: string;
  /** false: build in memory, never read or write a cache. */
  readonly cache?: boolean;
  /** Read a headerless file as a fragment (ledger-reader's `fragment` read option); its caches go under `context-fold/fragment-<hash>/`. */
  readonly fragment?: boolean;
  /** Progress of reading the ledger when it has to be read (bytes read, file size). */
  readonly onBytes?: (read: number, total: number) => void;
}

export interface CacheReport {
  /** built: no cache; loaded: used as is; updated: loaded + appended blocks; rebuilt: cache refused; memory: caching off, or the cache could not be written (`reason` says why). */
  readonly status: "built" | "loaded" | "updated" | "rebuilt" | "memory";
  readonly path: string | null;
  /** Why a cache was refused (stale key, corrupt bytes). */
  readonly reason?: string;
  /** Blocks indexed by this open/refresh (0 when loaded as is). */
  readonly indexed: number;
}

/** Where a cache's tail log lives: appended records of what refreshes indexed since the base was written. */
export function tailLogPath(cachePath: string): string {
  return `${cachePath}.tail`;
}

/** The state of a cache on disk as this process last saw it (so appends know whether they may continue it). */
interface DiskState {
  /** sha256 trailer of the base file: tail records chain to it. */
  readonly chain: Buffer;
  readonly baseBytes: number;
  /** Bytes of good records in the tail log. */
  readonly tailBytes: number;
}

type Loaded = { index: RecallIndex; added: number; same: boolean; disk: DiskState; tailProblem: string | null } | { index: null; reason: string | null };

/**
 * Loads `cachePath` (plus its tail log) for `session` when its key still holds; null (with the reason)
 * when it must be rebuilt. Tail records are each sha256-checked and chained to the base; a bad or torn
 * record ends the tail there (what follows is indexed from the ledger), and a tail whose last key no
 * longer matches the ledger is ignored whole.
 */
export function loadCachedIndex(cachePath: string, sessionFile: string, session: RecallSession): Loaded {
  const bytes = readCacheBytes(cachePath);
  if (bytes === null) return { index: null, reason: null };
  try {
    const meta = TermIndex.readMeta(bytes);
    const format = typeof meta === "object" && meta !== null ? (meta as Record<string, unknown>)["format"] : undefined;
    if (format !== CACHE_FORMAT) return { index: null, reason: `cache was written in index format ${String(format)}, this reader writes ${String(CACHE_FORMAT)}` };
    if (!isCacheKey(meta)) return { index: null, reason: "cache key has an unknown shape" };
    const relation = compareKey(meta, sessionFile, session);
    if (typeof relation !== "string") return { index: null, reason: relation.stale };
    const terms = TermIndex.deserialize(bytes);
    if (terms.docCount !== meta.blockCount) return { index: null, reason: "cache holds another block count than its key says" };
    const chain = bytes.subarray(bytes.length - 32);
    let same = relation === "same";
    let tailBytes = 0;
    let tailProblem: string | null = null;
    const log = readCacheBytes(tailLogPath(cachePath));
    if (log !== null && log.length > 0) {
      const tail = TermIndex.readTail(log, chain);
      tailProblem = tail.problem;
      const last = tail.records[tail.records.length - 1];
      const lastKey = last?.meta;
      const lastRelation = lastKey !== undefined && isCacheKey(lastKey) ? compareKey(lastKey, sessionFile, session) : null;
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
    return { index, added: index.blockCount - before, same, disk: { chain: Buffer.from(chain), baseBytes: bytes.length, tailBytes }, tailProblem };
  } catch (error) {
    if (error instanceof CorruptIndexError) return { index: null, reason: error.message };
    throw error;
  }
}

function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/** Appends `bytes` and syncs them: a crash leaves at worst a torn last record, which its sha256 refuses. */
function appendDurably(path: string, bytes: Buffer): void {
  const fd = openSync(path, "a", 0o600);
  try {
    let off = 0;
    while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
    fdatasyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** A refresh appends to the tail log until it outweighs this share of the base file; then the base is rewritten. */
const TAIL_SHARE = 0.5;

export class SessionRecall {
  private current: Session;
  private currentIndex: RecallIndex;
  readonly file: string;
  readonly cachePath: string | null;
  private lastReport: CacheReport;
  /** The cache on disk as this process wrote or read it; null: unknown (the next save writes it whole). */
  private disk: DiskState | null = null;

  private constructor(file: string, session: Session, index: RecallIndex, cachePath: string | null, report: CacheReport) {
    this.file = file;
    this.current = session;
    this.currentIndex = index;
    this.cachePath = cachePath;
    this.lastReport = report;
  }

  static async open(sessionFile: string, options: OpenRecallOptions = {}): Promise<SessionRecall> {
    const session = await readSession(sessionFile, {
      ...(options.fragment === true ? { fragment: true } : {}),
      ...(options.onBytes === undefined ? {} : { onBytes: options.onBytes }),
    });
    if (options.cache === false) {
      const index = RecallIndex.build(session);
      return new SessionRecall(sessionFile, session, index, null, { status: "memory", path: null, indexed: index.blockCount });
    }
    const cachePath = options.cachePath ?? defaultCachePath(sessionFile, session.header.id, options.cacheDir);
    const loaded = loadCachedIndex(cachePath, sessionFile, session);
    if (loaded.index !== null) {
      const base: CacheReport = { status: loaded.same ? "loaded" : "updated", path: cachePath, indexed: loaded.added };
      const report: CacheReport = loaded.tailProblem === null ? base : { ...base, reason: `cache tail refused after its good records (${loaded.tailProblem})` };
      const recall = new SessionRecall(sessionFile, session, loaded.index, cachePath, report);
      // A torn or refused tail is not continued: the next save writes the base whole.
      recall.disk = loaded.tailProblem === null ? loaded.disk : null;
      if (loaded.same) return recall;
      try {
        recall.saveTail();
        return recall;
      } catch (error) {
        return SessionRecall.uncached(sessionFile, session, loaded.index, cachePath, error);
      }
    }
    const index = RecallIndex.build(session);
    const report: CacheReport =
      loaded.reason === null
        ? { status: "built", path: cachePath, indexed: index.blockCount }
        : { status: "rebuilt", path: cachePath, reason: loaded.reason, indexed: index.blockCount };
    const recall = new SessionRecall(sessionFile, session, index, cachePath, report);
    try {
      recall.save();
      return recall;
    } catch (error) {
      return SessionRecall.uncached(sessionFile, session, index, cachePath, error);
    }
  }

  /**
   * The cache could not be written (a read-only folder, a file where its folder should be): recall
   * still works, in memory, and the report says why (status "memory", with the reason).
   */
  private static uncached(file: string, session: Session, index: RecallIndex, cachePath: string, error: unknown): SessionRecall {
    const why = error instanceof Error ? error.message : String(error);
    return new SessionRecall(file, session, index, null, { status: "memory", path: null, reason: `cannot write the recall cache ${cachePath}: ${why}`, indexed: index.blockCount });
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

  /** Writes the whole cache (atomically) for the ledger as read now, and drops its tail log. */
  save(): void {
    if (this.cachePath === null) return;
    const bytes = this.index.serialize(cacheKeyFor(this.file, this.current));
    writeAtomic(this.cachePath, bytes);
    // Record the blocks' hashes as first indexed (the block table keeps a hash once recorded), so expand
    // can tell text changed in the ledger since. Not written for ledgers that are not eligible (see snapshot.ts).
    writeSnapshot(this.cachePath, this.current);
    // The old tail chains to the old base, so it could never be applied; removing it saves the read.
    rmSync(tailLogPath(this.cachePath), { force: true });
    this.disk = { chain: bytes.subarray(bytes.length - 32), baseBytes: bytes.length, tailBytes: 0 };
  }

  /**
   * Saves what was indexed since the last save as one record appended to the tail log (sha256-chained
   * to the base, fsynced), instead of rewriting the whole cache; the base is rewritten (atomically)
   * when the tail outweighs half of it, or when the log on disk is not the one this process knows.
   */
  saveTail(): void {
    const path = this.cachePath;
    if (path === null) return;
    const disk = this.disk;
    const log = tailLogPath(path);
    if (disk === null || !this.index.canSerializeTail || fileSize(log) !== disk.tailBytes) {
      this.save();
      return;
    }
    const record = this.index.serializeTail(cacheKeyFor(this.file, this.current), disk.chain);
    if (record === null) return;
    if (disk.tailBytes + record.length > disk.baseBytes * TAIL_SHARE) {
      this.save();
      return;
    }
    appendDurably(log, record);
    this.disk = { ...disk, tailBytes: disk.tailBytes + record.length };
  }

  /**
   * Writes the block table beside the cache (see snapshot.ts), so the next one-shot search of the same
   * ledger bytes can skip the parse; false when caching is off or the ledger is not eligible (not v3, damaged).
   */
  saveSnapshot(): boolean {
    return this.cachePath !== null && writeSnapshot(this.cachePath, this.current);
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
      this.saveTail();
      this.lastReport = { status: "updated", path: this.cachePath, indexed: added };
      return this.lastReport;
    } catch (error) {
      if (!(error instanceof LedgerError) || error.code !== "LEDGER_CHANGED") throw error;
      const fresh = await SessionRecall.open(this.file, this.cachePath === null ? { cache: false } : { cachePath: this.cachePath });
      this.current = fresh.current;
      this.currentIndex = fresh.currentIndex;
      this.disk = fresh.disk;
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
  /**
   * Full text of `#N` blocks as the ledger holds them now, each verified against the hash recorded when it
   * was first indexed (seed-index span, else the block table): `verifiedAgainst` says which, "none" (and
   * not verified) when nothing was recorded.
   */
  expand(indices: readonly number[]): ExpandedEntry[] {
    const hashes = this.recordedHashes();
    const entries = this.index.expand(indices, (block) => hashes.check(block).problem ?? null);
    const blocks = this.current.blocks;
    return entries.map((entry) => ({ ...entry, verifiedAgainst: hashes.check(blocks[entry.index] as Block).verifiedAgainst }));
  }

  /** The hashes recorded for this session's blocks (seed index, block table), read now. */
  recordedHashes(): RecordedHashes {
    return loadRecordedHashes(this.file, this.current.header.id, this.cachePath);
  }
}

/** Opens recall over one session file (index built, or loaded from its cache and grown). */
export function openRecall(sessionFile: string, options: OpenRecallOptions = {}): Promise<SessionRecall> {
  return SessionRecall.open(sessionFile, options);
}

/** The session id in the header line of `sessionFile`, read without parsing the rest; null if there is none. */
function headerId(sessionFile: string): string | null {
  let fd: number;
  try {
    fd = openSync(sessionFile, "r");
  } catch {
    return null;
  }
  try {
    const buf = Buffer.alloc(64 * 1024);
    const n = readSync(fd, buf, 0, buf.length, 0);
    const nl = buf.subarray(0, n).indexOf(10);
    if (nl === -1) return null;
    const header: unknown = JSON.parse(buf.subarray(0, nl).toString("utf8"));
    if (typeof header !== "object" || header === null) return null;
    const id = (header as Record<string, unknown>)["id"];
    return (header as Record<string, unknown>)["type"] === "session" && typeof id === "string" ? id : null;
  } catch {
    return null;
  } finally {
    closeSync(fd);
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
  let cachePath = options.cachePath;
  if (cachePath === undefined) {
    const id = headerId(sessionFile);
    if (id === null) return null;
    cachePath = defaultCachePath(sessionFile, id, options.cacheDir);
  }
  const session = openSnapshot(cachePath, sessionFile);
  if (session === null) return null;
  const loaded = loadCachedIndex(cachePath, sessionFile, session);
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
