// Recall across a whole history: one index per sessions folder, kept in the user's state folder. Each
// session is a segment: its postings, compact and read in place (history-segment.ts), and its block table
// (history-table.ts: what ranking needs of each block and where its text sits in the ledger, no text). A
// term dictionary says which sessions hold which terms, so a query opens only the sessions that can answer
// it and ranks each with the one-session ranking over that session's own statistics: a hit ranks the same
// as when its session is searched alone. Brought up to date before each search, incrementally (a grown
// session indexes only its appended blocks), under one lock (two Pi windows and the CLI). This file holds
// the history's bookkeeping (manifest, update, search, expand); its parts live beside it: history-types.ts
// (shapes), history-folders.ts (where histories are kept), history-layout.ts (segment files),
// history-index-session.ts (indexing one session), history-merge.ts (folding the dictionary log),
// history-fresh-dictionary.ts (a first build's dictionary, gathered without a log),
// history-candidates.ts (which sessions can answer) and history-rank-segment.ts (ranking one segment).
import { existsSync, mkdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { LedgerError, readSession, type Session, updateSession } from "@context-fold/ledger-reader";
import { appendFile, replaceFile, withAppendLock } from "@context-fold/durable-fs";
import { CACHE_FORMAT, cacheKeyFor, isCacheKey, readCacheBytes } from "./index-cache.js";
import { BOUND_UNKNOWN, DictionaryPages, encodeLogRecord } from "./history-dictionary.js";
import { historyDirFor } from "./history-folders.js";
import { type HistoryCandidates, historyCandidates } from "./history-candidates.js";
import { type IndexedSession, indexSession } from "./history-index-session.js";
import { dropSegment, partPath, SegmentWriter, segmentBase, segmentBaseOf, segmentTag } from "./history-layout.js";
import { mergeDictionary } from "./history-merge.js";
import { dropRuns, FreshDictionary } from "./history-fresh-dictionary.js";
import { byteString } from "./history-segment.js";
import { rankSegment } from "./history-rank-segment.js";
import { SegmentParts } from "./history-segment-parts.js";
import { BlockTable, shownTextHash } from "./history-table.js";
import { HISTORY_FORMAT, type HistoryFilters, type HistoryOptions, type HistorySearchOptions, type HistorySearchResult, type HistorySession, type HistoryUpdate, type LedgerKeys, type Manifest } from "./history-types.js";
import { openRecall } from "./open-recall.js";
import { parseQuery } from "./query.js";
import { type ScoredDoc, wordsScoreBound } from "./rank.js";
import type { TermIndex } from "./term-index.js";
import { recallFile } from "./recall-file.js";
import { type ExpandedEntry, RecallIndex } from "./recall-index.js";
import { CorruptIndexError, RecallError, SnapshotStaleError } from "./errors.js";
import { pageAcross, pageRequest, type RankedSession, rankSession, listSessionFiles, type SessionsSearchResult } from "./sessions.js";
import { snapshotEligible } from "./snapshot.js";
import { resolveSessionName } from "./session-names.js";

/** Holding the lock through a first build of a large history is expected: only a dead holder is taken over. */
const LOCK_MS = 30 * 60_000;
const TITLE_MAX = 80;
/**
 * Sessions kept open (segment reader and block table) between searches of one process, most recently used
 * last. Above a history's size, a query holding a common word reopens every session each time: at 1,000
 * sessions, 512 kept cost a warm query 0.7-0.8 s of CPU and more memory (the garbage) than 2,048 (0.2 s).
 */
const KEEP_OPEN = 2048;
/**
 * Ledgers an update read last, kept read (with their parser's state) by a process: the session Pi is
 * writing grows again and again, and its next update then parses only the bytes appended since.
 */
const KEEP_READ = 4;
/**
 * keys.log (the keys of the sessions updates changed since keys.json was written whole, appended) is
 * folded into keys.json once it would pass this size: a growth appends its session's key (some 400
 * bytes) where it rewrote every session's (at 1,000 sessions some 360 KB).
 */
const KEYS_LOG_MAX = 64 * 1024;
/** Dictionary log records are appended once this many bytes of them wait (a first build never holds every session's terms). */
const LOG_BATCH = 4 << 20;

function firstLine(text: string): string {
  const line = text.trimStart().split("\n", 1)[0]?.trim() ?? "";
  return line.length > TITLE_MAX ? `${line.slice(0, TITLE_MAX - 1)}…` : line;
}

/**
 * JSON text with every non-ASCII character written as its \u escape (the same JSON): every search reads
 * the manifest whole, and an ASCII file decodes on Node's fast path into a one-byte string, which parses
 * faster (a title's ellipsis would otherwise make the whole file a two-byte string).
 */
function asciiJson(text: string): string {
  return text.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** `path` resolved, each distinct one once per search (sessions share a few project folders; a thousand are checked). */
function resolver(): (path: string) => string {
  const seen = new Map<string, string>();
  return (path) => {
    let out = seen.get(path);
    if (out === undefined) {
      out = resolve(path);
      seen.set(path, out);
    }
    return out;
  };
}

function inFilters(s: HistorySession, filters: HistoryFilters, resolved: (path: string) => string): boolean {
  if (s.ordinal < 0) return false;
  if (filters.project !== undefined && (s.project === null || resolved(s.project) !== resolved(filters.project))) return false;
  const t = s.date === null ? Number.NaN : Date.parse(s.date);
  if (filters.since !== undefined && !(t >= filters.since)) return false;
  if (filters.until !== undefined && !(t < filters.until)) return false;
  return true;
}

/** A session's ledger key as keys.json keeps it: at the size and time it was taken at. */
type KeptKey = LedgerKeys["sessions"][string];

/** The sessions listed, and those stat-ed, by an update before it takes the lock. */
interface Listing {
  files: string[];
  readonly stats: Map<string, { readonly size: number; readonly mtimeMs: number }>;
}

/** A session's segment kept open by a process: its parts, and its block table once a search ranked it. */
interface KeptSegment {
  readonly size: number;
  readonly mtimeMs: number;
  readonly base: string;
  readonly reader: SegmentParts;
  table?: BlockTable;
}

export class HistoryIndex {
  readonly sessionsDir: string;
  readonly dir: string;
  private readonly segments: string;
  private readonly onProgress: HistoryOptions["onProgress"];
  private readonly onUpdateWork: HistoryOptions["onUpdateWork"];
  private readonly keepOpen: number;
  /** The dictionary base's pages earlier searches read, kept while its file is the same (history-dictionary.ts DictionaryPages). */
  private readonly dictionaryPages = new DictionaryPages();
  private manifest: Manifest;
  /** The manifest last parsed, with the file's identity then (see `readManifest`). */
  private manifestRead: { readonly ino: number; readonly size: number; readonly mtimeMs: number; readonly doc: Manifest } | null = null;
  /**
   * The ledger keys `readKeys` gave (or an update wrote) for the manifest object `manifest`: while that
   * manifest is still the one read (its file unchanged, `readManifest`), its keys are these, whatever
   * keys.json holds since (another process's keys, written before a manifest it has not replaced yet).
   */
  private keysRead: { readonly manifest: Manifest; readonly keys: Map<string, KeptKey> } | null = null;
  /**
   * JSON text (`asciiJson`) of manifest entries and kept keys, by the object encoded: a session an update
   * leaves as it was keeps the same objects, so an update encodes only the sessions it changed (both
   * files encoded whole cost an update at 1,000 sessions some 10 ms of CPU). Those objects are never changed.
   */
  private readonly json = new WeakMap<object, string>();
  /** Sessions answered from their block table by an earlier search of this process, while their bytes stay the same. */
  private readonly open = new Map<string, KeptSegment>();
  /** The ledgers this process's updates read last (KEEP_READ), by file, most recent last. */
  private readonly ledgers = new Map<string, Session>();

  private constructor(sessionsDir: string, dir: string, options: HistoryOptions) {
    this.sessionsDir = resolve(sessionsDir);
    this.dir = dir;
    this.segments = join(dir, "segments");
    this.onProgress = options.onProgress;
    this.onUpdateWork = options.onUpdateWork;
    this.keepOpen = Math.max(1, options.keepOpen ?? KEEP_OPEN);
    this.manifest = { format: HISTORY_FORMAT, indexFormat: CACHE_FORMAT, sessionsDir: this.sessionsDir, nextOrdinal: 0, sessions: [] };
  }

  /** The history of `sessionsDir` (nothing read or written until `update` or `search`). */
  static for(sessionsDir: string, options: HistoryOptions = {}): HistoryIndex {
    return new HistoryIndex(sessionsDir, historyDirFor(sessionsDir, options.root), options);
  }

  private get manifestPath(): string {
    return join(this.dir, "manifest.json");
  }
  private get basePath(): string {
    return join(this.dir, "dictionary.bin");
  }
  private get logPath(): string {
    return join(this.dir, "dictionary.log");
  }
  private get keysPath(): string {
    return join(this.dir, "keys.json");
  }
  private get keysLogPath(): string {
    return join(this.dir, "keys.log");
  }

  /**
   * The ledger keys kept in keys.json, by path: each only while the manifest `read` has its session at the
   * size and time it was kept with (a crash between the two files' replacements leaves a session's key
   * unknown: that session, if it grew, is indexed anew rather than extended).
   */
  private readKeys(read: Manifest | null): Map<string, KeptKey> {
    const out = new Map<string, KeptKey>();
    if (read === null) return out;
    if (this.keysRead?.manifest === read) return this.keysRead.keys;
    this.keysRead = { manifest: read, keys: out };
    const bytes = readCacheBytes(this.keysPath);
    let doc: LedgerKeys | null = null;
    try {
      if (bytes !== null) doc = JSON.parse(bytes.toString("utf8")) as LedgerKeys;
    } catch {
      // Unreadable (cut short by a crash: it is not fsynced): no key from it.
    }
    const whole = doc !== null && doc.format === HISTORY_FORMAT && typeof doc.sessions === "object" && doc.sessions !== null ? doc.sessions : null;
    // keys.log: one key per line, the last line of a session the newest; a line a crash cut short (or
    // left as zeros) does not parse and is passed over (every append begins with a newline).
    const logged = new Map<string, KeptKey>();
    const log = readCacheBytes(this.keysLogPath);
    if (log !== null) {
      for (const line of log.toString("utf8").split("\n")) {
        if (line === "") continue;
        try {
          const entry = JSON.parse(line) as { path?: unknown; size?: unknown; mtimeMs?: unknown; key?: unknown };
          if (typeof entry.path === "string" && typeof entry.size === "number" && typeof entry.mtimeMs === "number" && isCacheKey(entry.key)) logged.set(entry.path, { size: entry.size, mtimeMs: entry.mtimeMs, key: entry.key });
        } catch {
          // cut short
        }
      }
    }
    // A session's key from the log, else from keys.json: whichever is at its size and time in the manifest
    // (a crash while keys.json was written whole leaves the log's older keys beside it).
    const at = (kept: KeptKey | undefined, s: HistorySession): boolean => kept !== undefined && kept.size === s.size && kept.mtimeMs === s.mtimeMs && isCacheKey(kept.key);
    for (const s of read.sessions) {
      const fromLog = logged.get(s.path);
      if (fromLog !== undefined && at(fromLog, s)) {
        out.set(s.path, fromLog);
        continue;
      }
      const kept = whole !== null && Object.hasOwn(whole, s.path) ? whole[s.path] : undefined;
      if (kept !== undefined && at(kept, s)) out.set(s.path, { size: kept.size, mtimeMs: kept.mtimeMs, key: kept.key });
    }
    return out;
  }

  /** `value`'s JSON text as asciiJson writes it, each object encoded once (`json`). */
  private jsonOf(value: object): string {
    let text = this.json.get(value);
    if (text === undefined) {
      text = asciiJson(JSON.stringify(value));
      this.json.set(value, text);
    }
    return text;
  }

  /** The text of `asciiJson(JSON.stringify(manifest))`, each session's entry as kept (`jsonOf`): its fields in their order. */
  private manifestText(m: Manifest): string {
    const head = `{"format":${JSON.stringify(m.format)},"indexFormat":${JSON.stringify(m.indexFormat)},"sessionsDir":${asciiJson(JSON.stringify(m.sessionsDir))},"nextOrdinal":${JSON.stringify(m.nextOrdinal)}`;
    return `${head},"sessions":[${m.sessions.map((s) => this.jsonOf(s)).join(",")}]}`;
  }

  /**
   * Keeps `keys` (every session's, as the manifest written next has them): the keys not in `before` (those
   * the update took anew) appended to keys.log, or, on a first build and once the log would pass
   * KEYS_LOG_MAX, keys.json written whole and the log removed. Neither is fsynced: see `updateLocked`.
   */
  private writeKeys(keys: ReadonlyMap<string, KeptKey>, before: ReadonlyMap<string, KeptKey>, whole: boolean): void {
    const lines: string[] = [];
    if (!whole) {
      for (const [path, key] of keys) if (before.get(path) !== key) lines.push(`{"path":${asciiJson(JSON.stringify(path))},${this.jsonOf(key).slice(1)}`);
      if (lines.length === 0) return;
    }
    const text = `\n${lines.join("\n")}\n`;
    const logSize = whole ? undefined : statSync(this.keysLogPath, { throwIfNoEntry: false })?.size;
    if (whole || (logSize ?? 0) + text.length > KEYS_LOG_MAX || (logSize === undefined && !existsSync(this.keysPath))) {
      replaceFile(this.keysPath, this.keysText(keys), { mode: 0o600, fsync: false });
      rmSync(this.keysLogPath, { force: true });
    } else if (logSize === undefined) replaceFile(this.keysLogPath, text, { mode: 0o600, fsync: false });
    else appendFile(this.keysLogPath, Buffer.from(text, "latin1"), { fsync: false });
  }

  /** The text of `asciiJson(JSON.stringify({ format, sessions }))` (LedgerKeys) of `keys` by path (a path ends in .jsonl: never an object's index key, so in this order), each key as kept (`jsonOf`). */
  private keysText(keys: ReadonlyMap<string, KeptKey>): string {
    const entries: string[] = [];
    for (const [path, key] of keys) entries.push(`${asciiJson(JSON.stringify(path))}:${this.jsonOf(key)}`);
    return `{"format":${JSON.stringify(HISTORY_FORMAT)},"sessions":{${entries.join(",")}}}`;
  }

  /** The sessions as last brought up to date. */
  get sessions(): readonly HistorySession[] {
    return this.manifest.sessions;
  }

  /**
   * The manifest as kept. Parsed again only when its file changed (it is replaced whole, by rename: another
   * inode): at 1,000 sessions parsing it is most of a warm search's fixed cost.
   */
  private readManifest(): Manifest | null {
    const st = statSync(this.manifestPath, { throwIfNoEntry: false });
    if (st === undefined) return null;
    const was = this.manifestRead;
    if (was !== null && was.ino === st.ino && was.size === st.size && was.mtimeMs === st.mtimeMs) return was.doc;
    const bytes = readCacheBytes(this.manifestPath);
    if (bytes === null) return null;
    let doc: Manifest;
    try {
      doc = JSON.parse(bytes.toString("utf8")) as Manifest;
    } catch {
      return null;
    }
    if (doc.format !== HISTORY_FORMAT || doc.indexFormat !== CACHE_FORMAT || doc.sessionsDir !== this.sessionsDir || !Array.isArray(doc.sessions)) return null;
    // Kept only when the file did not change while it was read (its stat before and after agree).
    const after = statSync(this.manifestPath, { throwIfNoEntry: false });
    this.manifestRead = after !== undefined && after.ino === st.ino && after.size === st.size && after.mtimeMs === st.mtimeMs && bytes.length === st.size ? { ino: st.ino, size: st.size, mtimeMs: st.mtimeMs, doc } : null;
    return doc;
  }

  /** `file` (a path under the sessions folder, as listed) relative to it, without path.relative's normalising: a thousand sessions are named per search. */
  private pathOf(file: string): string {
    const dir = this.sessionsDir.endsWith(sep) ? this.sessionsDir : `${this.sessionsDir}${sep}`;
    return file.startsWith(dir) ? file.slice(dir.length) : relative(this.sessionsDir, file);
  }

  /** The file of a session the manifest names by `path` (as listed: the folder, a separator, the path; see `pathOf`). */
  private fileOf(path: string): string {
    if (isAbsolute(path) || path.startsWith("..")) return join(this.sessionsDir, path);
    return this.sessionsDir.endsWith(sep) ? `${this.sessionsDir}${path}` : `${this.sessionsDir}${sep}${path}`;
  }

  /** Where a session's segment files live: `<base>.seg` (postings) and `<base>.tab` (block table). */
  private segmentBase(file: string, id: string, tag?: string): string {
    return tag === undefined ? segmentBase(this.segments, file, id) : segmentBaseOf(this.segments, id, tag);
  }

  private dropSegment(file: string, id: string): void {
    dropSegment(this.segments, file, id);
  }

  /**
   * Brings the history up to date with the sessions folder: new sessions added, grown ones extended by
   * their appended blocks, replaced or truncated ones rebuilt, deleted ones dropped. Under the history's
   * lock; every file replaced atomically or appended with a checksum, so a crash leaves a usable history.
   */
  async update(): Promise<HistoryUpdate> {
    const listing: Listing = { files: [], stats: new Map() };
    const unchanged = this.unchanged(listing);
    if (unchanged !== null) return unchanged;
    this.onUpdateWork?.();
    return withAppendLock(join(this.dir, "history"), () => this.updateLocked(listing), { timeoutMs: LOCK_MS, staleMs: LOCK_MS });
  }

  /**
   * The update when nothing changed (every session's size and time as the manifest has them, none added
   * or gone), read without the lock: every file is replaced atomically, so the manifest read is whole.
   * Null when something changed (the locked update then does the work, from the files listed and the
   * stats taken here, into `listing`: one listing and one stat per session per update).
   */
  private unchanged(listing: Listing): HistoryUpdate | null {
    const files = listSessionFiles(this.sessionsDir);
    listing.files = files;
    const read = this.readManifest();
    if (read === null) return null;
    if (files.length !== read.sessions.length) return null;
    // Indexed (a thousand sessions, on baseline code: `entries()` would make an array per step).
    for (let k = 0; k < files.length; k++) {
      const file = files[k] as string;
      const s = read.sessions[k] as HistorySession;
      if (this.pathOf(file) !== s.path) return null;
      let st;
      try {
        st = statSync(file, { throwIfNoEntry: false });
      } catch {
        return null;
      }
      if (st === undefined) return null;
      listing.stats.set(file, { size: st.size, mtimeMs: st.mtimeMs });
      if (st.size !== s.size || st.mtimeMs !== s.mtimeMs) return null;
      this.onProgress?.(k + 1, files.length, file);
    }
    this.manifest = read;
    return { added: 0, grown: 0, replaced: 0, removed: 0, unchanged: files.length, unreadable: 0, merged: false };
  }

  /**
   * The update under the lock. `listing`: the files and the stats `unchanged` took before the lock (a
   * session that changes after its stat is seen by the next update, as one changing after this one's).
   */
  private async updateLocked(listing?: Listing): Promise<HistoryUpdate> {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    let fresh = false;
    const read = this.readManifest();
    if (read === null) {
      // No history, or one of another format: start over (segments are rebuilt as sessions are read).
      rmSync(this.segments, { recursive: true, force: true });
      rmSync(this.basePath, { force: true });
      rmSync(this.logPath, { force: true });
      rmSync(this.keysPath, { force: true });
      rmSync(this.keysLogPath, { force: true });
      dropRuns(this.dir);
      fresh = true;
    }
    const before = new Map((read?.sessions ?? []).map((s) => [s.path, s]));
    // The ledger keys of the sessions as the manifest has them (kept apart from it: a search never reads them).
    const keysBefore = this.readKeys(read);
    const keys = new Map<string, KeptKey>();
    let nextOrdinal = read?.nextOrdinal ?? 0;
    const files = listing?.files ?? listSessionFiles(this.sessionsDir);
    const out: HistorySession[] = [];
    let records: Buffer[] = [];
    let waiting = 0;
    // A first build's files are named by nothing until its manifest: made durable together before it
    // (history-layout.ts SegmentWriter); its dictionary is written as a new base (fsynced) before it too,
    // gathered from sorted runs (history-fresh-dictionary.ts), where an update appends to the log and folds it.
    const writer = new SegmentWriter(this.segments, fresh);
    // A first build gathers its dictionary itself (every session's terms once, in ordinal order): no log.
    const dictionary = fresh ? new FreshDictionary(this.dir) : null;
    const flush = (): void => {
      if (records.length > 0) appendFile(this.logPath, Buffer.concat(records), { fsync: !fresh });
      records = [];
      waiting = 0;
    };
    const counts = { added: 0, grown: 0, replaced: 0, removed: 0, unchanged: 0, unreadable: 0 };
    let done = 0;
    for (const file of files) {
      const path = this.pathOf(file);
      const was = before.get(path);
      before.delete(path);
      let st: { size: number; mtimeMs: number } | undefined = listing?.stats.get(file);
      try {
        st ??= statSync(file);
      } catch {
        continue; // deleted between the listing and now
      }
      if (was !== undefined && was.size === st.size && was.mtimeMs === st.mtimeMs) {
        out.push(was);
        const key = keysBefore.get(path);
        if (key !== undefined) keys.set(path, key);
        counts.unchanged++;
        this.onProgress?.(++done, files.length, file);
        continue;
      }
      try {
        const session = await this.readLedger(file);
        const eligible = snapshotEligible(session);
        let indexed: IndexedSession;
        if (eligible) indexed = indexSession(this.segments, file, session, was, writer, keysBefore.get(path)?.key);
        else {
          // Served by reading the ledger in full when searched: only its terms are kept, in the dictionary (no score bounds: it is ranked whenever a term matches).
          const terms = RecallIndex.build(session).termTexts();
          indexed = { terms, codes: new Uint16Array(terms.length).fill(BOUND_UNKNOWN), termCount: terms.length, parts: 0, grown: false };
        }
        const continues = indexed.grown;
        const ordinal = continues && was !== undefined ? was.ordinal : nextOrdinal++;
        // A grown session always logs a record, its terms or none: a session with a record past its first
        // listing has score bounds no longer true (history-merge.ts), and a search bounds it from its segment.
        if (dictionary !== null) {
          if (indexed.terms.length > 0) dictionary.add(ordinal, indexed.keys ?? indexed.terms.map(byteString), indexed.codes, indexed.keyOrder);
        } else if (indexed.terms.length > 0 || continues) {
          const record = encodeLogRecord(ordinal, indexed.terms, indexed.codes);
          records.push(record);
          waiting += record.length;
          if (waiting >= LOG_BATCH) flush();
        }
        if (was !== undefined && was.ordinal >= 0 && was.id !== "" && was.id !== session.header.id) this.dropSegment(file, was.id);
        if (!eligible) this.dropSegment(file, session.header.id);
        if (was === undefined) counts.added++;
        else if (continues) counts.grown++;
        else counts.replaced++;
        const user = session.blocks.find((b) => b.kind === "user");
        const key = eligible ? cacheKeyFor(file, session) : null;
        if (key !== null) keys.set(path, { size: st.size, mtimeMs: st.mtimeMs, key });
        const header = session.header as { id: string; cwd?: unknown; timestamp?: unknown };
        out.push({
          path,
          id: session.header.id,
          project: typeof header.cwd === "string" ? header.cwd : null,
          date: typeof header.timestamp === "string" ? header.timestamp : null,
          title: user === undefined ? "" : firstLine(user.text),
          size: st.size,
          mtimeMs: st.mtimeMs,
          ordinal,
          termCount: indexed.termCount,
          ...(indexed.parts > 0 ? { parts: indexed.parts } : {}),
          ...(key !== null ? { tag: segmentTag(this.segments, file, session.header.id), blocks: key.blockCount } : { full: true }),
        });
      } catch (error) {
        counts.unreadable++;
        out.push({ path, id: was?.id ?? "", project: null, date: null, title: "", size: st.size, mtimeMs: st.mtimeMs, ordinal: -1, termCount: 0, problem: error instanceof Error ? error.message : String(error) });
      }
      this.onProgress?.(++done, files.length, file);
    }
    for (const gone of before.values()) {
      counts.removed++;
      if (gone.id !== "") this.dropSegment(join(this.sessionsDir, gone.path), gone.id);
    }
    flush();
    writer.commit();
    const gathered = dictionary !== null && !dictionary.empty;
    if (gathered) {
      const alive = new Set(out.filter((s) => s.ordinal >= 0).map((s) => s.ordinal));
      dictionary.write(this.basePath, (o) => alive.has(o));
      // An empty log, as a merge leaves it.
      replaceFile(this.logPath, Buffer.alloc(0), { mode: 0o600 });
    }
    const merged = gathered || mergeDictionary({ basePath: this.basePath, logPath: this.logPath, manifestPath: this.manifestPath }, out, fresh);
    // Another process's merge came first: start again from the files (its manifest is the newer).
    if (merged === "restart") return this.updateLocked();
    this.manifest = { format: HISTORY_FORMAT, indexFormat: CACHE_FORMAT, sessionsDir: this.sessionsDir, nextOrdinal, sessions: out };
    if (read === null || counts.added + counts.grown + counts.replaced + counts.removed + counts.unreadable > 0 || merged) {
      // The keys first: a manifest names no session whose key is not kept (a crash between the two leaves
      // keys the manifest does not have its sessions at, which `readKeys` then leaves out). Not fsynced:
      // keys.json and keys.log are a cache. Lost, cut short or older than the manifest after a crash, they
      // only hold fewer keys `readKeys` trusts (each only at its session's size and time in the manifest,
      // then checked against the ledger's bytes and the segment's counts by indexSession): a grown session
      // without one is indexed anew rather than extended, never answered wrongly. The manifest's fsync,
      // next, makes their folder entries durable with the manifest's.
      this.writeKeys(keys, keysBefore, read === null);
      const text = this.manifestText(this.manifest);
      replaceFile(this.manifestPath, text, { mode: 0o600 });
      // Kept as read: this process's next search does not parse what it just wrote (another inode, should another process replace it).
      const st = statSync(this.manifestPath, { throwIfNoEntry: false });
      this.manifestRead = st !== undefined && st.size === Buffer.byteLength(text) ? { ino: st.ino, size: st.size, mtimeMs: st.mtimeMs, doc: this.manifest } : null;
      this.keysRead = this.manifestRead === null ? null : { manifest: this.manifest, keys };
    }
    return { ...counts, merged };
  }

  /**
   * A session's ledger as it is now: from the read this process kept of it, the appended bytes only
   * (ledger-reader's updateSession), else read whole; kept for the next update (the KEEP_READ last).
   */
  private async readLedger(file: string): Promise<Session> {
    const kept = this.ledgers.get(file);
    this.ledgers.delete(file);
    let session: Session | undefined;
    if (kept !== undefined) {
      try {
        session = await updateSession(kept);
      } catch (error) {
        // Replaced, truncated or rewritten since: read again from its start.
        if (!(error instanceof LedgerError && error.code === "LEDGER_CHANGED")) throw error;
      }
    }
    session ??= await readSession(file);
    this.ledgers.set(file, session);
    if (this.ledgers.size > KEEP_READ) this.ledgers.delete(this.ledgers.keys().next().value as string);
    return session;
  }

  /** The sessions the dictionary says may hold a hit of `query`, and their score bounds (history-candidates.ts). */
  private candidates(query: string, regex: boolean): HistoryCandidates {
    // A session's block count, as its cache key keeps it (its segment's document count: a session whose
    // segment does not hold as many documents is not served from it, see history-index-session.ts).
    const blocks = new Map<number, number>();
    for (const s of this.manifest.sessions) if (s.ordinal >= 0 && s.full !== true && s.blocks !== undefined) blocks.set(s.ordinal, s.blocks);
    return historyCandidates(this.basePath, this.logPath, query, regex, (ordinal) => blocks.get(ordinal), this.dictionaryPages);
  }

  /** Every hit of `query` across the history (brought up to date first), merged by score and paged. */
  async search(query: string, options: HistorySearchOptions = {}): Promise<HistorySearchResult> {
    const update = await this.update();
    try {
      return await this.searchOnce(query, options, update, true);
    } catch (error) {
      if (!(error instanceof SnapshotStaleError)) throw error;
      this.open.clear();
      return this.searchOnce(query, options, update, false);
    }
  }

  /**
   * The segment of a session (kept open between searches while its bytes stay the same). Its block table
   * is read by `tableOf`, when the session is ranked: a session whose score bound leaves it out never reads it.
   */
  private segmentOf(file: string, s: HistorySession): KeptSegment {
    let kept = this.open.get(file);
    if (kept === undefined || kept.size !== s.size || kept.mtimeMs !== s.mtimeMs) {
      const base = this.segmentBase(file, s.id, s.tag);
      kept = { size: s.size, mtimeMs: s.mtimeMs, base, reader: SegmentParts.open(Array.from({ length: (s.parts ?? 0) + 1 }, (_, k) => partPath(base, k))) };
    }
    const before = this.open.get(file);
    // A segment found changed is dropped: its descriptors are closed with it.
    if (before !== undefined && before !== kept) before.reader.close();
    this.open.delete(file);
    this.open.set(file, kept);
    if (this.open.size > this.keepOpen) {
      const [oldest, evicted] = this.open.entries().next().value as [string, { reader: SegmentParts }];
      // Closed as it leaves: the search's end closes only the segments still kept, so one evicted mid-search would hold its descriptor for good.
      evicted.reader.close();
      this.open.delete(oldest);
    }
    return kept;
  }

  /** The segment and block table of a session, for ranking it. */
  private rankable(file: string, s: HistorySession): { reader: SegmentParts; table: BlockTable } {
    const kept = this.segmentOf(file, s);
    kept.table ??= BlockTable.forRanking(file, `${kept.base}.tab`);
    return { reader: kept.reader, table: kept.table };
  }

  private async searchOnce(query: string, options: HistorySearchOptions, update: HistoryUpdate, tables: boolean): Promise<HistorySearchResult> {
    const resolved = resolver();
    const chosen = this.manifest.sessions.filter((s) => inFilters(s, options, resolved));
    const { want, bounds } = this.candidates(query, options.regex === true);
    const parsed = parseQuery(query, options.regex === true ? { regex: true } : {});
    const skipped: { file: string; reason: string }[] = [];
    const named: Record<string, { file: string; id: string; project: string | null; date: string | null; title: string }> = {};
    const firstDir = options.first === undefined ? null : resolve(options.first);
    const isFirst = (s: HistorySession): boolean => firstDir !== null && s.project !== null && resolved(s.project) === firstDir;
    // The sessions the dictionary points to, each with its listing order (ties between sessions keep it),
    // its group (`first`) and an upper bound of any score it can give (Infinity where none is derived):
    // the dictionary's, else (a session grown or added since its base was written) its segment's.
    const order = chosen.map((s, at) => ({ s, at, group: isFirst(s) ? 0 : 1, bound: Number.POSITIVE_INFINITY })).filter((c) => want === "all" || want.has(c.s.ordinal));
    const words = tables && parsed.mode === "words" ? parsed : null;
    if (words !== null) {
      for (const c of order) {
        if (c.s.full === true) continue;
        const known = bounds.get(c.s.ordinal);
        if (known !== undefined) {
          c.bound = known;
          continue;
        }
        try {
          c.bound = wordsScoreBound(this.segmentOf(this.fileOf(c.s.path), c.s).reader as unknown as TermIndex, words, (word) => word === "user");
        } catch {
          // Left unbounded: ranking it reports what is wrong.
        }
      }
      order.sort((a, b) => a.group - b.group || b.bound - a.bound || a.at - b.at);
    }
    const { page: wantPage, pageSize } = pageRequest(options);
    const need = wantPage * pageSize;
    // The best `need` hits so far (group, then score): once the last of them is ahead of every hit a
    // session not yet opened could give, those sessions cannot reach the requested page.
    const best: { group: number; score: number }[] = [];
    const ahead = (a: { group: number; score: number }, group: number, score: number): boolean => a.group < group || (a.group === group && a.score > score);
    const ranked: { at: number; item: RankedSession; scope: string }[] = [];
    let left = 0;
    try {
      for (let k = 0; k < order.length; k++) {
        const c = order[k] as (typeof order)[number];
        const last = best[need - 1];
        if (last !== undefined && ahead(last, c.group, c.bound)) {
          left = order.length - k;
          break;
        }
        const s = c.s;
        const file = this.fileOf(s.path);
        try {
          // A regex reads every block's text, and a table found stale is not trusted again: those read the ledger in full.
          let item: RankedSession;
          let scope: string;
          if (words !== null && s.full !== true) {
            const segment = this.rankable(file, s);
            const one = rankSegment(file, s, segment, words, options.scope);
            // Ranked: its postings are not read again by this search (a page reads the block table and the
            // ledger). Let go now, not at the search's end: held through the ranking of a hundred other
            // sessions, they survived the collector's young generation and were copied and promoted.
            segment.reader.close();
            item = one.item;
            scope = one.scope;
          } else {
            item = await rankSession(file, s.path, query, { ...(options.scope === undefined ? {} : { scope: options.scope }), ...(options.regex === undefined ? {} : { regex: options.regex }), cache: false }, false);
            scope = item.rank.scope.name;
          }
          ranked.push({ at: c.at, item, scope });
          named[s.path] = { file, id: s.id, project: s.project, date: s.date, title: s.title };
          const hits = item.rank.ranked;
          for (let h = 0; h < hits.length; h++) {
            const hit = hits[h] as ScoredDoc;
            const worst = best[need - 1];
            if (worst !== undefined && !ahead({ group: c.group, score: hit.score }, worst.group, worst.score)) continue;
            let at = Math.min(best.length, need - 1);
            while (at > 0 && ahead({ group: c.group, score: hit.score }, (best[at - 1] as { group: number }).group, (best[at - 1] as { score: number }).score)) at--;
            best.splice(at, 0, { group: c.group, score: hit.score });
            if (best.length > need) best.pop();
          }
        } catch (error) {
          if (error instanceof RecallError && error.code === "BAD_PATTERN") throw error;
          if (error instanceof SnapshotStaleError) throw error;
          skipped.push({ file, reason: error instanceof Error ? error.message : String(error) });
        }
      }
      // Back in listing order: hits of equal score order as when every session is ranked.
      ranked.sort((a, b) => a.at - b.at);
      const opened = ranked.map((r) => r.item);
      const merged: { s: number; hit: ScoredDoc }[] = [];
      for (let k = 0; k < opened.length; k++) {
        const hits = (opened[k] as RankedSession).rank.ranked;
        for (let h = 0; h < hits.length; h++) merged.push({ s: k, hit: hits[h] as ScoredDoc });
      }
      const lastRanked = ranked.at(-1);
      const mode: SessionsSearchResult["mode"] = lastRanked?.item.rank.parsed.mode ?? parsed.mode;
      const scopeName = lastRanked?.scope ?? options.scope ?? "lineage";
      for (const s of this.manifest.sessions) if (s.ordinal < 0 && s.problem !== undefined) skipped.push({ file: this.fileOf(s.path), reason: s.problem });
      const firstLabels = new Set(chosen.filter(isFirst).map((s) => s.path));
      const page = pageAcross(opened, merged, options, firstLabels.size === 0 ? undefined : (k) => firstLabels.has((opened[k] as RankedSession).label));
      const shown = new Set(page.hits.map((h) => h.session));
      const shownNamed = Object.fromEntries(Object.entries(named).filter(([label]) => shown.has(label)));
      return { query, mode, scope: scopeName, ...page, totalExact: left === 0, sessions: chosen.length, skipped, searched: opened.length, named: shownNamed, update };
    } finally {
      for (const kept of this.open.values()) kept.reader.close();
    }
  }

  /** The session file a name means: a path under the sessions folder, an id or a unique start of one. */
  async resolve(name: string): Promise<string> {
    const under = join(this.sessionsDir, name);
    try {
      if (statSync(under).isFile()) return under;
    } catch {
      // not a path under the folder: an id, or a path of its own
    }
    return resolveSessionName(name, { sessionsDir: this.sessionsDir });
  }

  /**
   * Full text of `#N` blocks of the named session as its ledger holds them now, each verified against the
   * hash its block table recorded when the history first indexed it (else, for a session the history
   * keeps no table of, the one-session rules: its seed index).
   */
  async expand(session: string, indices: readonly number[]): Promise<{ file: string; entries: readonly ExpandedEntry[] }> {
    const file = await this.resolve(session);
    const path = relative(this.sessionsDir, file);
    // A process that expands without searching first has not read the manifest yet.
    const sessions = this.manifest.sessions.length > 0 ? this.manifest.sessions : (this.readManifest()?.sessions ?? []);
    const known = sessions.find((s) => s.path === path && s.ordinal >= 0 && s.full !== true);
    let table: BlockTable | null = null;
    if (known !== undefined) {
      const tab = `${this.segmentBase(file, known.id, known.tag)}.tab`;
      try {
        table = BlockTable.read(file, readFileSync(tab), tab, true);
      } catch (error) {
        if (!(error instanceof CorruptIndexError) && (error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      }
    }
    if (table === null) {
      const answer = await recallFile(file, { expand: indices, open: { cache: false } });
      if (answer.kind !== "expand") throw new Error(`recallFile answered ${answer.kind} to expand`);
      return { file, entries: answer.entries };
    }
    const recorded = table;
    const recall = await openRecall(file, { cache: false });
    const entries = recall.index.expand(indices, (block) => {
      if (block.index >= recorded.count) return `#${String(block.index)} was appended after the history last indexed this session`;
      return shownTextHash(block.text) === recorded.hashOf(block.index) ? null : `#${String(block.index)} text differs from what the history indexed`;
    });
    return { file, entries: entries.map((e) => ({ ...e, verifiedAgainst: e.index < recorded.count ? "block-table" : "none" })) };
  }
}
