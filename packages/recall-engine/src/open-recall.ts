// One session's recall, end to end: read the ledger, load the on-disk index when its key still
// matches (growing it by the appended blocks), else build it; save atomically; refresh as Pi appends.
import { closeSync, fdatasyncSync, openSync, rmSync, statSync, writeSync } from "node:fs";
import { type Block, LedgerError, readSession, updateSession, type Session } from "@context-fold/ledger-reader";
import { writeAtomic } from "./cache-write.js";
import { cacheKeyFor, defaultCachePath } from "./index-cache.js";
import type { OpenRecallOptions } from "./open-options.js";
import { loadRecordedHashes, type RecordedHashes } from "./recorded-hashes.js";
import { RecallIndex, type ExpandedEntry, type SearchOptions } from "./recall-index.js";
import type { SearchResult } from "./results.js";
import { type DiskState, loadCachedIndex, tailLogPath } from "./snapshot-recall.js";
import { writeSnapshot } from "./snapshot-write.js";

export type { OpenRecallOptions } from "./open-options.js";

export interface CacheReport {
  /** built: no cache; loaded: used as is; updated: loaded + appended blocks; rebuilt: cache refused; memory: caching off, or the cache could not be written (`reason` says why). */
  readonly status: "built" | "loaded" | "updated" | "rebuilt" | "memory";
  readonly path: string | null;
  /** Why a cache was refused (stale key, corrupt bytes). */
  readonly reason?: string;
  /** Blocks indexed by this open/refresh (0 when loaded as is). */
  readonly indexed: number;
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
  /** The read whose block table this process last wrote beside the cache (`save` writes one). */
  private tableOf: Session | null = null;

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
    // Streamed to the file as views of the index's postings: never a second copy of them in memory.
    const bytes = this.index.serializeParts(cacheKeyFor(this.file, this.current));
    writeAtomic(this.cachePath, bytes.chunks);
    // Record the blocks' hashes as first indexed (the block table keeps a hash once recorded), so expand
    // can tell text changed in the ledger since. Not written for ledgers that are not eligible (see snapshot.ts).
    this.tableOf = writeSnapshot(this.cachePath, this.current) ? this.current : null;
    // The old tail chains to the old base, so it could never be applied; removing it saves the read.
    rmSync(tailLogPath(this.cachePath), { force: true });
    this.disk = { chain: bytes.chain, baseBytes: bytes.byteLength, tailBytes: 0 };
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
    if (this.cachePath === null) return false;
    // Written by `save` for this very read (a first search builds and saves, then asks for the table):
    // the same bytes again would cost a second pass over every block.
    if (this.tableOf === this.current) return true;
    this.tableOf = writeSnapshot(this.cachePath, this.current) ? this.current : null;
    return this.tableOf !== null;
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

