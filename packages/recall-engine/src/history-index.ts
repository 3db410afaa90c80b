// Recall across a whole history: one index per sessions folder, kept in the user's state folder. Each
// session is a segment: its postings, compact and read in place (history-segment.ts), and its block table
// (history-table.ts: what ranking needs of each block and where its text sits in the ledger, no text). A
// term dictionary says which sessions hold which terms, so a query opens only the sessions that can answer
// it and ranks each with the one-session ranking over that session's own statistics: a hit ranks the same
// as when its session is searched alone. Brought up to date before each search, incrementally (a grown
// session indexes only its appended blocks), under one lock (two Pi windows and the CLI).
import { createHash } from "node:crypto";
import { closeSync, type Dirent, fstatSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { type Block, readSession, type Session } from "@context-fold/ledger-reader";
import { appendFile, replaceFile, stateDir, withAppendLock } from "@context-fold/durable-fs";
import { CACHE_FORMAT, type CacheKey, cacheKeyFor, compareKey, defaultCachePath, isCacheKey, readCacheBytes } from "./index-cache.js";
import { decodeLog, DictionaryBase, DictionaryLog, encodeDictionary, encodeLogRecord, logCandidates, type TermSessions } from "./history-dictionary.js";
import { encodePostings, encodeSegment, SegmentParts, type SegmentTerm } from "./history-segment.js";
import { BlockTable, encodeTable, textHash } from "./history-table.js";
import { openRecall } from "./open-recall.js";
import { parseQuery, piecesOf, type ParsedQuery } from "./query.js";
import { kindWeight, rankWords, type ScoredDoc } from "./rank.js";
import { recallFile } from "./recall-file.js";
import { type ExpandedEntry, RecallIndex } from "./recall-index.js";
import { CorruptIndexError, RecallError, SnapshotStaleError } from "./errors.js";
import { buildScope, parseScope, type ScopeView } from "./scope.js";
import { EMPTY } from "./segments.js";
import { pageAcross, type RankedSession, rankSession, listSessionFiles, type SessionsSearchResult } from "./sessions.js";
import { snapshotEligible } from "./snapshot.js";
import { resolveSessionName } from "./session-names.js";
import { stemOf } from "./stem.js";
import { TermIndex } from "./term-index.js";
import { MIN_PREFIX } from "./term-prefixes.js";

/** Bumped when the manifest, the dictionary or the segments' layout change shape: the history is rebuilt. */
export const HISTORY_FORMAT = 3;
/** A grown session's segment takes at most this many parts (its first included); the growth past them rewrites it whole. */
const MAX_PARTS = 8;
/** The log is folded into a new dictionary base once it outweighs this share of the base (and this floor). */
const LOG_SHARE = 0.5;
const LOG_FLOOR = 256 * 1024;
/** Holding the lock through a first build of a large history is expected: only a dead holder is taken over. */
const LOCK_MS = 30 * 60_000;
const TITLE_MAX = 80;
/** Sessions kept open (segment reader and block table) between searches of one process, most recently used last. */
const KEEP_OPEN = 512;

/** `$XDG_STATE_HOME/context-fold/history` (an absolute value only, as XDG says), else `~/.local/state/context-fold/history`. */
export function historyRoot(env: Readonly<Record<string, string | undefined>> = process.env): string {
  return stateDir("history", env);
}

/** The folder of one sessions folder's history: keyed by its resolved path. */
export function historyDirFor(sessionsDir: string, root: string = historyRoot()): string {
  return join(root, createHash("sha256").update(resolve(sessionsDir)).digest("hex").slice(0, 16));
}

/** What the history knows of one session. */
export interface HistorySession {
  /** Path under the sessions folder (how hits name it). */
  readonly path: string;
  readonly id: string;
  /** The project folder (the header's cwd). */
  readonly project: string | null;
  /** The header's timestamp (ISO), null without one. */
  readonly date: string | null;
  /** The first line of the first user message. */
  readonly title: string;
  readonly size: number;
  readonly mtimeMs: number;
  /** The session's number in the dictionary; -1 when it could not be read (`problem` says why). */
  readonly ordinal: number;
  /** Terms of its segment the dictionary already lists (a grown session adds the ones past it). */
  readonly termCount: number;
  /** Parts its growths added to its segment after the first (`<base>.seg.1` …), 0 when absent. */
  readonly parts?: number;
  /** The ledger bytes its segment was built from (how a grown session is told from a rewritten one). */
  readonly key?: CacheKey;
  /** Not served from a segment (a ledger of an older version, or damaged: its bytes are not the blocks' source): read in full when searched. */
  readonly full?: boolean;
  readonly problem?: string;
}

interface Manifest {
  readonly format: number;
  /** The recall index format (tokenization) the segments were built with: another one rebuilds the history. */
  readonly indexFormat: number;
  readonly sessionsDir: string;
  readonly nextOrdinal: number;
  readonly sessions: readonly HistorySession[];
}

export interface HistoryUpdate {
  readonly added: number;
  readonly grown: number;
  readonly replaced: number;
  readonly removed: number;
  readonly unchanged: number;
  readonly unreadable: number;
  /** The dictionary was rewritten whole this time (the log folded in, or a format change). */
  readonly merged: boolean;
}

export interface HistoryFilters {
  /** Only sessions started in this folder (the header's cwd). */
  readonly project?: string;
  /** Only sessions whose header time is at or after / before this (ms since the epoch). */
  readonly since?: number;
  readonly until?: number;
}

export interface HistorySearchOptions extends HistoryFilters {
  /**
   * A project folder whose sessions' hits come first, then every other session's (each group by score):
   * the default inside a project folder. Unlike `project`, it leaves no session out.
   */
  readonly first?: string;
  /** Per session: `lineage` (default) or `all`. */
  readonly scope?: string;
  readonly page?: number;
  readonly pageSize?: number;
  readonly regex?: boolean;
}

export interface HistorySearchResult extends SessionsSearchResult {
  /** Sessions the dictionary pointed to and that were opened and ranked. */
  readonly searched: number;
  /** What each hit's session is: project folder, date, title, keyed by the label the hits carry. */
  readonly named: Readonly<Record<string, { readonly file: string; readonly id: string; readonly project: string | null; readonly date: string | null; readonly title: string }>>;
  readonly update: HistoryUpdate;
}

export interface HistoryOptions {
  /** Where histories are kept (default `historyRoot()`). */
  readonly root?: string;
  /** Called as sessions are brought up to date: (done, total, file). */
  readonly onProgress?: (done: number, total: number, file: string) => void;
}

function sortedNames(entries: Dirent[]): Dirent[] {
  return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function firstLine(text: string): string {
  const line = text.trimStart().split("\n", 1)[0]?.trim() ?? "";
  return line.length > TITLE_MAX ? `${line.slice(0, TITLE_MAX - 1)}…` : line;
}

function inFilters(s: HistorySession, filters: HistoryFilters): boolean {
  if (s.ordinal < 0) return false;
  if (filters.project !== undefined && (s.project === null || resolve(s.project) !== resolve(filters.project))) return false;
  const t = s.date === null ? Number.NaN : Date.parse(s.date);
  if (filters.since !== undefined && !(t >= filters.since)) return false;
  if (filters.until !== undefined && !(t < filters.until)) return false;
  return true;
}

export class HistoryIndex {
  readonly sessionsDir: string;
  readonly dir: string;
  private readonly segments: string;
  private readonly onProgress: HistoryOptions["onProgress"];
  private manifest: Manifest;
  /** Sessions answered from their block table by an earlier search of this process, while their bytes stay the same. */
  private readonly open = new Map<string, { readonly size: number; readonly mtimeMs: number; readonly reader: SegmentParts; readonly table: BlockTable }>();

  private constructor(sessionsDir: string, dir: string, options: HistoryOptions) {
    this.sessionsDir = resolve(sessionsDir);
    this.dir = dir;
    this.segments = join(dir, "segments");
    this.onProgress = options.onProgress;
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

  /** The sessions as last brought up to date. */
  get sessions(): readonly HistorySession[] {
    return this.manifest.sessions;
  }

  private readManifest(): Manifest | null {
    const bytes = readCacheBytes(this.manifestPath);
    if (bytes === null) return null;
    try {
      const doc = JSON.parse(bytes.toString("utf8")) as Manifest;
      if (doc.format !== HISTORY_FORMAT || doc.indexFormat !== CACHE_FORMAT || doc.sessionsDir !== this.sessionsDir || !Array.isArray(doc.sessions)) return null;
      return doc;
    } catch {
      return null;
    }
  }

  /** Where a session's segment files live: `<base>.seg` (postings) and `<base>.tab` (block table). */
  private segmentBase(file: string, id: string): string {
    return defaultCachePath(file, id, this.segments).replace(/\.recall$/, "");
  }

/** The file of a segment's part `k` (0: the first; later ones hold a grown session's appended blocks). */
  private static partPath(base: string, k: number): string {
    return k === 0 ? `${base}.seg` : `${base}.seg.${String(k)}`;
  }

  private dropSegment(file: string, id: string): void {
    const base = this.segmentBase(file, id);
    this.dropParts(base, 1);
    for (const p of [`${base}.seg`, `${base}.tab`]) rmSync(p, { force: true });
  }

  /** Removes a segment's parts from `k` on (left by a growth a whole rewrite replaced). */
  private dropParts(base: string, k: number): void {
    for (let p = k; p < MAX_PARTS; p++) rmSync(HistoryIndex.partPath(base, p), { force: true });
  }

  /**
   * Indexes `session` into its segment. When the ledger only grew since `was` (its parts and table open
   * and hold `was`'s blocks), only the appended blocks are tokenized, into one more part: a term keeps the
   * id its earlier parts gave it, a new one takes the next; no earlier part is read past the directory
   * blocks its lookups visit, or rewritten. At MAX_PARTS the segment is rewritten whole (the same ids: the
   * session's first-seen order). Returns the terms the dictionary does not list for it yet (all of them,
   * when built anew), its term count, parts and whether it grew.
   */
  private indexSession(file: string, session: Session, was: HistorySession | undefined): { terms: string[]; termCount: number; parts: number; grown: boolean } {
    const base = this.segmentBase(file, session.header.id);
    const wasParts = was?.parts ?? 0;
    let old: { reader: SegmentParts; hashes: string[] } | null = null;
    if (was !== undefined && was.ordinal >= 0 && was.full !== true && was.id === session.header.id && was.key !== undefined && isCacheKey(was.key) && compareKey(was.key, file, session) === "prefix") {
      let reader: SegmentParts | undefined;
      try {
        reader = SegmentParts.open(Array.from({ length: wasParts + 1 }, (_, k) => HistoryIndex.partPath(base, k)));
        const table = BlockTable.read(file, readFileSync(`${base}.tab`), `${base}.tab`, true);
        if (reader.docCount === was.key.blockCount && table.count === was.key.blockCount && reader.termCount === was.termCount) old = { reader, hashes: table.hashes() };
        else reader.close();
      } catch (error) {
        reader?.close();
        if (!(error instanceof CorruptIndexError) && (error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      }
    }
    try {
      const extend = old !== null && wasParts + 1 < MAX_PARTS;
      const from = extend && old !== null ? old.reader.docCount : 0;
      // Postings of the blocks from `from` on, by the one-session index (its rule for what is indexed); the
      // documents before stand in as empty ones, so its postings carry the blocks' own numbers.
      const part = new TermIndex([], EMPTY, new Array<number>(from).fill(0));
      RecallIndex.fromTerms(session, part);
      const texts = part.termTexts();
      const lengths: number[] = [];
      for (let d = from; d < part.docCount; d++) lengths.push(part.docLength(d));
      const terms: SegmentTerm[] = [];
      const added: string[] = [];
      let parts = 0;
      let termCount = texts.length;
      if (extend && old !== null) {
        termCount = old.reader.termCount;
        const keys = texts.map((t) => Buffer.from(t, "utf8"));
        const known = old.reader.termIds(texts, keys);
        for (let i = 0; i < texts.length; i++) {
          let id = known[i] as number;
          // New terms take the next ids in the order the appended blocks first hold them (first-seen order).
          if (id < 0) {
            id = termCount++;
            added.push(texts[i] as string);
          }
          terms.push({ key: keys[i] as Buffer, id, ...encodePostings(part.postingListsOf(i), 0) });
        }
        parts = wasParts + 1;
        replaceFile(HistoryIndex.partPath(base, parts), encodeSegment(terms, lengths, from, termCount), { mode: 0o600 });
      } else {
        // Ids are the session's first-seen order, as its earlier parts gave them: the terms past those are new.
        const known = old?.reader.termCount ?? 0;
        for (let i = 0; i < texts.length; i++) {
          const term = texts[i] as string;
          terms.push({ key: Buffer.from(term, "utf8"), id: i, ...encodePostings(part.postingListsOf(i), 0) });
          if (i >= known) added.push(term);
        }
        replaceFile(`${base}.seg`, encodeSegment(terms, lengths), { mode: 0o600 });
        this.dropParts(base, 1);
      }
      replaceFile(`${base}.tab`, encodeTable(session, old?.hashes ?? []), { mode: 0o600 });
      return { terms: added, termCount, parts, grown: old !== null };
    } finally {
      old?.reader.close();
    }
  }

  /**
   * Brings the history up to date with the sessions folder: new sessions added, grown ones extended by
   * their appended blocks, replaced or truncated ones rebuilt, deleted ones dropped. Under the history's
   * lock; every file replaced atomically or appended with a checksum, so a crash leaves a usable history.
   */
  async update(): Promise<HistoryUpdate> {
    const unchanged = this.unchanged();
    if (unchanged !== null) return unchanged;
    return withAppendLock(join(this.dir, "history"), () => this.updateLocked(), { timeoutMs: LOCK_MS, staleMs: LOCK_MS });
  }

  /**
   * The update when nothing changed (every session's size and time as the manifest has them, none added
   * or gone), read without the lock: every file is replaced atomically, so the manifest read is whole.
   * Null when something changed (the locked update then does the work).
   */
  private unchanged(): HistoryUpdate | null {
    const read = this.readManifest();
    if (read === null) return null;
    const files = listSessionFiles(this.sessionsDir);
    if (files.length !== read.sessions.length) return null;
    for (const [k, file] of files.entries()) {
      const s = read.sessions[k] as HistorySession;
      if (relative(this.sessionsDir, file) !== s.path) return null;
      try {
        const st = statSync(file);
        if (st.size !== s.size || st.mtimeMs !== s.mtimeMs) return null;
      } catch {
        return null;
      }
      this.onProgress?.(k + 1, files.length, file);
    }
    this.manifest = read;
    return { added: 0, grown: 0, replaced: 0, removed: 0, unchanged: files.length, unreadable: 0, merged: false };
  }

  private async updateLocked(): Promise<HistoryUpdate> {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    let fresh = false;
    const read = this.readManifest();
    if (read === null) {
      // No history, or one of another format: start over (segments are rebuilt as sessions are read).
      rmSync(this.segments, { recursive: true, force: true });
      rmSync(this.basePath, { force: true });
      rmSync(this.logPath, { force: true });
      fresh = true;
    }
    const before = new Map((read?.sessions ?? []).map((s) => [s.path, s]));
    let nextOrdinal = read?.nextOrdinal ?? 0;
    const files = listSessionFiles(this.sessionsDir);
    const out: HistorySession[] = [];
    const records: Buffer[] = [];
    const counts = { added: 0, grown: 0, replaced: 0, removed: 0, unchanged: 0, unreadable: 0 };
    let done = 0;
    for (const file of files) {
      const path = relative(this.sessionsDir, file);
      const was = before.get(path);
      before.delete(path);
      let st: { size: number; mtimeMs: number };
      try {
        st = statSync(file);
      } catch {
        continue; // deleted between the listing and now
      }
      if (was !== undefined && was.size === st.size && was.mtimeMs === st.mtimeMs) {
        out.push(was);
        counts.unchanged++;
        this.onProgress?.(++done, files.length, file);
        continue;
      }
      try {
        const session = await readSession(file);
        const eligible = snapshotEligible(session);
        let indexed: { terms: string[]; termCount: number; parts: number; grown: boolean };
        if (eligible) indexed = this.indexSession(file, session, was);
        else {
          // Served by reading the ledger in full when searched: only its terms are kept, in the dictionary.
          const terms = RecallIndex.build(session).termTexts();
          indexed = { terms, termCount: terms.length, parts: 0, grown: false };
        }
        const continues = indexed.grown;
        const ordinal = continues && was !== undefined ? was.ordinal : nextOrdinal++;
        if (indexed.terms.length > 0) records.push(encodeLogRecord(ordinal, indexed.terms));
        if (was !== undefined && was.ordinal >= 0 && was.id !== "" && was.id !== session.header.id) this.dropSegment(file, was.id);
        if (!eligible) this.dropSegment(file, session.header.id);
        if (was === undefined) counts.added++;
        else if (continues) counts.grown++;
        else counts.replaced++;
        const user = session.blocks.find((b) => b.kind === "user");
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
          ...(eligible ? { key: cacheKeyFor(file, session) } : { full: true }),
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
    if (records.length > 0) appendFile(this.logPath, Buffer.concat(records));
    const merged = this.maybeMerge(out, fresh);
    if (merged === "restart") return this.updateLocked();
    this.manifest = { format: HISTORY_FORMAT, indexFormat: CACHE_FORMAT, sessionsDir: this.sessionsDir, nextOrdinal, sessions: out };
    if (read === null || counts.added + counts.grown + counts.replaced + counts.removed + counts.unreadable > 0 || merged) {
      replaceFile(this.manifestPath, JSON.stringify(this.manifest), { mode: 0o600 });
    }
    return { ...counts, merged };
  }

  /** Folds the log into a new base when it outweighs its share; the sessions no longer live are left out. */
  private maybeMerge(live: readonly HistorySession[], force: boolean): boolean | "restart" {
    const sizeOf = (path: string): number | null => {
      try {
        return statSync(path).size;
      } catch {
        return null;
      }
    };
    const logSize = sizeOf(this.logPath);
    const baseSize = sizeOf(this.basePath);
    if (logSize === null || logSize === 0) return false;
    if (!force && baseSize !== null && logSize < Math.max(LOG_FLOOR, baseSize * LOG_SHARE)) return false;
    const logBytes = readCacheBytes(this.logPath);
    const baseBytes = readCacheBytes(this.basePath);
    if (logBytes === null) return false;
    const map: TermSessions = new Map();
    if (baseBytes !== null) {
      try {
        for (const [term, list] of new DictionaryBase(baseBytes, this.basePath).toMap()) map.set(term, list);
      } catch {
        // An unreadable base: start the history over; the sessions' segments still load as they are.
        rmSync(this.basePath, { force: true });
        rmSync(this.logPath, { force: true });
        rmSync(this.manifestPath, { force: true });
        return "restart";
      }
    }
    new DictionaryLog(decodeLog(logBytes).records).mergeInto(map);
    const alive = new Set(live.filter((s) => s.ordinal >= 0).map((s) => s.ordinal));
    for (const [term, list] of map) {
      const kept = list.filter((o) => alive.has(o));
      if (kept.length === 0) map.delete(term);
      else map.set(term, kept);
    }
    replaceFile(this.basePath, encodeDictionary(map), { mode: 0o600 });
    replaceFile(this.logPath, Buffer.alloc(0), { mode: 0o600 });
    return true;
  }

  /** The sessions the dictionary says may hold a hit of `query` (a regex, or `user`, may be in any). */
  private candidates(query: string, regex: boolean): Set<number> | "all" {
    const parsed = parseQuery(query, regex ? { regex: true } : {});
    if (parsed.mode !== "words") return "all";
    let fd = -1;
    let base: DictionaryBase;
    try {
      fd = openSync(this.basePath, "r");
      base = DictionaryBase.inPlace(fd, fstatSync(fd).size, this.basePath);
    } catch (error) {
      if (fd >= 0) closeSync(fd);
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return this.candidatesIn(parsed, DictionaryBase.empty());
      return "all";
    }
    try {
      return this.candidatesIn(parsed, base);
    } catch (error) {
      // Bytes that do not read as a dictionary: every session may hold a hit (the next merge rewrites it).
      if (error instanceof RangeError) return "all";
      throw error;
    } finally {
      closeSync(fd);
    }
  }

  /** The sessions `base` and the log list for the terms ranking would match `parsed`'s words by. */
  private candidatesIn(parsed: Extract<ParsedQuery, { mode: "words" }>, base: DictionaryBase): Set<number> | "all" {
    const exacts = new Set<string>();
    const prefixes: string[] = [];
    // What ranking matches a token by (rank.ts): the token, its stem, the terms either begins, the pieces.
    for (const term of parsed.terms) {
      // Ranking matches `user` to the user's own messages, whatever their words.
      if (term.primary === "user") return "all";
      exacts.add(term.primary);
      const stem = stemOf(term.primary);
      if (stem !== null) exacts.add(stem);
      const prefix = stem ?? term.primary;
      if (prefix.length >= MIN_PREFIX) prefixes.push(prefix);
      const pieces = piecesOf(term.primary);
      if (pieces.length >= 2 && pieces[0] !== undefined) exacts.add(pieces[0]);
    }
    for (const phrase of parsed.phrases) for (const t of phrase.terms) exacts.add(t);
    const out = new Set<number>();
    for (const t of exacts) base.exact(t, out);
    for (const p of prefixes) base.prefixed(p, out);
    // The log (terms sessions gained since the base was written) is scanned once for all of them.
    const logBytes = readCacheBytes(this.logPath);
    if (logBytes !== null) logCandidates(logBytes, exacts, prefixes, out);
    return out;
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

  /** The segment and block table of a session (kept open between searches while its bytes stay the same). */
  private segmentOf(file: string, s: HistorySession): { reader: SegmentParts; table: BlockTable } {
    let kept = this.open.get(file);
    if (kept === undefined || kept.size !== s.size || kept.mtimeMs !== s.mtimeMs) {
      const base = this.segmentBase(file, s.id);
      kept = { size: s.size, mtimeMs: s.mtimeMs, reader: SegmentParts.open(Array.from({ length: (s.parts ?? 0) + 1 }, (_, k) => HistoryIndex.partPath(base, k))), table: BlockTable.read(file, readFileSync(`${base}.tab`), `${base}.tab`) };
    }
    this.open.delete(file);
    this.open.set(file, kept);
    if (this.open.size > KEEP_OPEN) this.open.delete(this.open.keys().next().value as string);
    return kept;
  }

  /**
   * A word query over one session's segment: the one-session ranking (rank.ts) over its postings, read in
   * place, with its block table's facts (kind weights, call/result pairs, the user's messages, the scope's
   * blocks). Blocks and the scope's segments are built only if a page of results shows the session.
   */
  private rankSegment(file: string, s: HistorySession, parsed: Extract<ParsedQuery, { mode: "words" }>, scopeName: string | undefined): { item: RankedSession; scope: string } {
    const { reader, table } = this.segmentOf(file, s);
    const spec = parseScope(scopeName);
    const n = table.count;
    let scope: ScopeView | undefined;
    const fullScope = (): ScopeView => (scope ??= buildScope(table.source().source, spec));
    let mask: Uint8Array;
    let name: string;
    if (spec.kind === "all") {
      mask = new Uint8Array(n).fill(1);
      name = "all";
    } else if (spec.kind === "lineage") {
      mask = new Uint8Array(n);
      for (let i = 0; i < n; i++) if (table.inLineage(i)) mask[i] = 1;
      name = "lineage";
    } else {
      mask = fullScope().mask;
      name = fullScope().name;
    }
    const users: number[] = [];
    for (let i = 0; i < n; i++) if (table.kindOf(i) === "user") users.push(i);
    // The segment's parts answer what rank.ts asks of a term index (see SegmentParts).
    const ranked = rankWords(reader as unknown as TermIndex, parsed, mask, (doc) => table.textOf(doc), {
      weightOf: (doc) => kindWeight(table.kindOf(doc)),
      resultOf: (doc) => table.resultOf(doc),
      speakerDocs: (word) => (word === "user" ? users : null),
    });
    const rank = {
      parsed,
      ranked,
      get scope(): ScopeView {
        return fullScope();
      },
    };
    const item: RankedSession = {
      label: s.path,
      file,
      get blocks(): readonly Block[] {
        return table.source().blocks;
      },
      rank,
    };
    return { item, scope: name };
  }

  private async searchOnce(query: string, options: HistorySearchOptions, update: HistoryUpdate, tables: boolean): Promise<HistorySearchResult> {
    const chosen = this.manifest.sessions.filter((s) => inFilters(s, options));
    const want = this.candidates(query, options.regex === true);
    const parsed = parseQuery(query, options.regex === true ? { regex: true } : {});
    const opened: RankedSession[] = [];
    const skipped: { file: string; reason: string }[] = [];
    const merged: { s: number; hit: ScoredDoc }[] = [];
    const named: Record<string, { file: string; id: string; project: string | null; date: string | null; title: string }> = {};
    let mode: SessionsSearchResult["mode"] = parsed.mode;
    let scopeName = options.scope ?? "lineage";
    try {
      for (const s of chosen) {
        if (want !== "all" && !want.has(s.ordinal)) continue;
        const file = join(this.sessionsDir, s.path);
        try {
          // A regex reads every block's text, and a table found stale is not trusted again: those read the ledger in full.
          let item: RankedSession;
          if (tables && parsed.mode === "words" && s.full !== true) {
            const ranked = this.rankSegment(file, s, parsed, options.scope);
            item = ranked.item;
            scopeName = ranked.scope;
          } else {
            item = await rankSession(file, s.path, query, { ...(options.scope === undefined ? {} : { scope: options.scope }), ...(options.regex === undefined ? {} : { regex: options.regex }), cache: false }, false);
            scopeName = item.rank.scope.name;
          }
          const k = opened.length;
          opened.push(item);
          mode = item.rank.parsed.mode;
          for (const hit of item.rank.ranked) merged.push({ s: k, hit });
          named[s.path] = { file, id: s.id, project: s.project, date: s.date, title: s.title };
        } catch (error) {
          if (error instanceof RecallError && error.code === "BAD_PATTERN") throw error;
          if (error instanceof SnapshotStaleError) throw error;
          skipped.push({ file, reason: error instanceof Error ? error.message : String(error) });
        }
      }
      for (const s of this.manifest.sessions) if (s.ordinal < 0 && s.problem !== undefined) skipped.push({ file: join(this.sessionsDir, s.path), reason: s.problem });
      const firstDir = options.first === undefined ? null : resolve(options.first);
      const firstLabels = new Set(chosen.filter((s) => firstDir !== null && s.project !== null && resolve(s.project) === firstDir).map((s) => s.path));
      const page = pageAcross(opened, merged, options, firstLabels.size === 0 ? undefined : (k) => firstLabels.has((opened[k] as RankedSession).label));
      const shown = new Set(page.hits.map((h) => h.session));
      const shownNamed = Object.fromEntries(Object.entries(named).filter(([label]) => shown.has(label)));
      return { query, mode, scope: scopeName, ...page, sessions: chosen.length, skipped, searched: opened.length, named: shownNamed, update };
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
      const tab = `${this.segmentBase(file, known.id)}.tab`;
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
      return textHash(block.text) === recorded.hashOf(block.index) ? null : `#${String(block.index)} text differs from what the history indexed`;
    });
    return { file, entries: entries.map((e) => ({ ...e, verifiedAgainst: e.index < recorded.count ? "block-table" : "none" })) };
  }
}

/** What one kept history is: its sessions folder, sessions and bytes. */
export interface HistoryListing {
  readonly dir: string;
  readonly sessionsDir: string | null;
  readonly sessions: number;
  readonly bytes: number;
  readonly modified: number;
}

function folderBytes(dir: string): { bytes: number; modified: number } {
  let bytes = 0;
  let modified = 0;
  const walk = (d: string): void => {
    let names: Dirent[];
    try {
      names = sortedNames(readdirSync(d, { withFileTypes: true }));
    } catch {
      return;
    }
    for (const e of names) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else {
        try {
          const st = statSync(p);
          bytes += st.size;
          modified = Math.max(modified, st.mtimeMs);
        } catch {
          // removed while listed
        }
      }
    }
  };
  walk(dir);
  return { bytes, modified };
}

/** Every history kept under `root`, by folder. */
export function listHistories(root: string = historyRoot()): HistoryListing[] {
  let names: Dirent[];
  try {
    names = sortedNames(readdirSync(root, { withFileTypes: true }));
  } catch {
    return [];
  }
  const out: HistoryListing[] = [];
  for (const e of names) {
    if (!e.isDirectory()) continue;
    const dir = join(root, e.name);
    let sessionsDir: string | null = null;
    let sessions = 0;
    try {
      const doc = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8")) as Partial<Manifest>;
      sessionsDir = typeof doc.sessionsDir === "string" ? doc.sessionsDir : null;
      sessions = Array.isArray(doc.sessions) ? doc.sessions.length : 0;
    } catch {
      // a history without a readable manifest is still listed (and can be cleaned)
    }
    out.push({ dir, sessionsDir, sessions, ...folderBytes(dir) });
  }
  return out;
}
