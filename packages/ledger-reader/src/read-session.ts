// Reads a session file (read-only, streamed in chunks) into a Session; resumes from the bytes consumed
// for appended data; streams entries for files of any size; parses in-memory text for tests and tools.
import { createHash } from "node:crypto";
import { closeSync, fstatSync, openSync, readSync, statSync } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";
import { LedgerBuilder } from "./ledger-builder.js";
import { LedgerError } from "./errors.js";
import { advanceLineage, shapeLineage, walkRecovered, type LineageState } from "./lineage.js";
import { remember, type SessionState, stateOf } from "./session-state.js";
import type { Block, Damage, Entry, Session, StreamItem } from "./types.js";

const CHUNK = 4 * 1024 * 1024;
/**
 * Streaming reads smaller chunks: what a chunk yields is parsed before the caller takes any of it, and
 * a chunk's entries still waiting when the young generation is collected move to the old one.
 */
const STREAM_CHUNK = 256 * 1024;
/** Bytes before the resume offset compared on update: a rewritten file almost surely differs here. */
const TAIL_CHECK = 256;
/** The smallest read buffer of an update (see `updateChunk`). */
const UPDATE_CHUNK_MIN = 64 * 1024;
const NEWLINE = 0x0a;

export interface ReadOptions {
  /** Keep block text and message content in memory (default true). Without it, `resolveAnchor` re-reads the file. */
  readonly withText?: boolean;
  /** Called after each chunk is taken in, with the bytes read so far and the file's size (a progress bar). */
  readonly onBytes?: (read: number, total: number) => void;
  /**
   * Read a file without a header line (a fragment of a session, which Pi refuses) instead of throwing
   * NO_HEADER: its header is made up, id `fragment-<first 12 hex of the file's sha256>`. A diagnostic
   * read: the file still is no session Pi can load.
   */
  readonly fragment?: boolean;
}

/** The id a fragment gets: `fragment-` and the first 12 hex of the sha256 of the file's bytes. */
async function fragmentIdOf(fh: FileHandle): Promise<string> {
  const hash = createHash("sha256");
  const buf = Buffer.allocUnsafe(CHUNK);
  for (let pos = 0; ; ) {
    const { bytesRead } = await fh.read(buf, 0, buf.length, pos);
    if (bytesRead === 0) break;
    hash.update(buf.subarray(0, bytesRead));
    pos += bytesRead;
  }
  return `fragment-${hash.digest("hex").slice(0, 12)}`;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function openReadOnly(path: string): Promise<FileHandle> {
  try {
    // "r": read-only; never created, truncated, locked or written.
    return await open(path, "r");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw new LedgerError("NOT_FOUND", path, "no such file (Pi creates it with the first message)", { cause: error });
    throw new LedgerError("UNREADABLE", path, `cannot open for reading: ${describe(error)}`, { cause: error });
  }
}

/** Feed `fh` from `from` to its end into the builder, pausing after every chunk (for streaming). */
async function* feed(builder: LedgerBuilder, fh: FileHandle, from: number, chunk = CHUNK): AsyncGenerator<void, void, undefined> {
  // Two buffers: the next chunk is read while this one is parsed, so parsing never waits on the disk.
  let current = Buffer.allocUnsafe(chunk);
  let spare = Buffer.allocUnsafe(chunk);
  // The unfinished line, then the next chunk copied after it: one buffer reused (grown for a longer
  // line), not a new concatenation per chunk — those left the C heap fragmented (≈90 MB held on 1 GB).
  // Taken only once a line spans chunks: an update's few-KB append whose lines are whole takes none.
  let carry = Buffer.alloc(0);
  let carried = 0;
  const room = (bytes: number): void => {
    if (bytes <= carry.length) return;
    const grown = Buffer.allocUnsafe(Math.max(bytes, carry.length * 2));
    carry.copy(grown, 0, 0, carried);
    carry = grown;
  };
  let pos = from;
  const readAt = (buffer: Buffer, at: number): Promise<number> =>
    fh.read(buffer, 0, chunk, at).then(
      ({ bytesRead }) => bytesRead,
      (error: unknown) => {
        throw new LedgerError("UNREADABLE", builder.path, `read failed: ${describe(error)}`, { byteOffset: at, cause: error });
      },
    );
  let next: Promise<number> | undefined = readAt(current, pos);
  try {
    for (;;) {
      const bytesRead = await next;
      next = undefined;
      if (bytesRead === 0) break;
      const buf = current;
      current = spare;
      spare = buf;
      pos += bytesRead;
      next = readAt(current, pos);
      const read = buf.subarray(0, bytesRead);
      let data = read;
      if (carried > 0) {
        room(carried + bytesRead);
        read.copy(carry, carried);
        carried += bytesRead;
        // Still inside one long line: collect until a newline arrives.
        if (read.indexOf(NEWLINE) === -1) continue;
        data = carry.subarray(0, carried);
      }
      const before = builder.byteLength;
      builder.consume(data, 0, data.length, false);
      const used = builder.byteLength - before;
      // The read buffers are reused: keep the unfinished line (a move within `carry` when it is there already).
      const rest = data.length - used;
      if (rest > 0) {
        if (data !== read) data.copy(carry, 0, used);
        else {
          carried = 0;
          room(rest);
          data.copy(carry, 0, used);
        }
      }
      carried = rest;
      yield;
    }
  } finally {
    // Stopped early (an error, or a streaming caller that broke off): let the read in flight settle.
    if (next !== undefined) await next.catch(() => 0);
  }
  builder.consume(carry, 0, carried, true);
}

async function feedAll(builder: LedgerBuilder, fh: FileHandle, from: number, chunk = CHUNK): Promise<void> {
  for await (const _ of feed(builder, fh, from, chunk)) {
    // every chunk is taken into the builder as it arrives
  }
}

/** Read buffer for an update that appends `bytes`: a power of two from 64 KiB up to CHUNK. */
function updateChunk(bytes: number): number {
  let chunk = UPDATE_CHUNK_MIN;
  while (chunk < bytes && chunk < CHUNK) chunk *= 2;
  return chunk;
}

async function readTail(fh: FileHandle, end: number): Promise<Buffer> {
  const start = Math.max(0, end - TAIL_CHECK);
  const tail = Buffer.alloc(end - start);
  if (tail.length > 0) await fh.read(tail, 0, tail.length, start);
  return tail;
}

/** Salvaged `id` → `parentId` of lines that do not parse: how the recovered view walks past them. */
function bridgesOf(damaged: readonly Damage[]): Map<string, string> {
  const bridges = new Map<string, string>();
  for (const d of damaged) {
    const s = d.salvage;
    if (s?.id !== undefined && s.parentId !== undefined) bridges.set(s.id, s.parentId);
  }
  return bridges;
}

/** Damage that can break a parent chain (a blank line or a missing final newline cannot). */
function breaksChains(damaged: readonly Damage[]): boolean {
  return damaged.some((d) => d.kind !== "blank" && d.kind !== "no-trailing-newline");
}

/**
 * Crossing a break whose parent id is unreadable: Pi appends every entry under the current leaf, and
 * a parent id that no line holds (not an entry, not a salvaged line) means the parent's line was lost —
 * torn, cut to nothing, or removed whole without a trace. The orphan most likely continued the entry
 * before it in file order. Decided by position only; undefined at the first entry.
 */
function acrossBreak(entries: readonly Entry[]): (orphan: Entry) => Entry | undefined {
  return (orphan) => entries[orphan.position - 1];
}

/** A root whose parent id names no entry: a line was lost even where no damaged line is left. */
function danglingRoot(builder: LedgerBuilder): boolean {
  return builder.roots.some((id) => builder.byId.get(id)?.parentId != null);
}

/**
 * The recovered view of the active branch: Pi's lineage, every recovered entry, and the chain from the
 * last entry in file order walked through recovered parents and across damaged lines. Pi's own set
 * when nothing was recovered and no line broke a chain.
 */
function recoveredLineageIds(builder: LedgerBuilder, damaged: readonly Damage[], piIds: ReadonlySet<string>): ReadonlySet<string> {
  if (builder.recoveredCount === 0 && !breaksChains(damaged) && !danglingRoot(builder)) return piIds;
  const ids = new Set(piIds);
  for (const entry of builder.entries) if (entry.recovered) ids.add(entry.id);
  const last = builder.entries[builder.entries.length - 1];
  for (const entry of walkRecovered(builder.byId, last?.id ?? null, bridgesOf(damaged), acrossBreak(builder.entries))) ids.add(entry.id);
  return ids;
}

/**
 * The recovered view of the active branch, root first: through recovered entries, past damaged lines
 * through their readable parentId, and across a break whose parent is unreadable by file position.
 */
export function recoveredLineage(session: Session): Entry[] {
  const last = session.entries[session.entries.length - 1];
  return walkRecovered(session.byId, last?.id ?? null, bridgesOf(session.damaged), acrossBreak(session.entries));
}

/** Build the public Session from the builder's current state (sharing its arrays: no copies). */
function snapshot(builder: LedgerBuilder, previous?: LineageState): { session: Session; lineage: LineageState } {
  const lineage = advanceLineage(builder.byId, builder.leafId, (entry) => builder.blockIndexesOf(entry), previous);
  return { session: sessionOf(builder, lineage.lineage, lineage.ids, lineage.scan.segments), lineage };
}

/** The Session of a read that is never updated (the shape): its lineage kept without an update's indexes. */
function shapeSnapshot(builder: LedgerBuilder): Session {
  const lineage = shapeLineage(builder.byId, builder.leafId, (entry) => builder.blockIndexesOf(entry), builder.entryCount);
  return sessionOf(builder, lineage.lineage, lineage.ids, lineage.segments);
}

function sessionOf(builder: LedgerBuilder, lineage: Entry[], lineageIds: ReadonlySet<string>, compactions: Session["compactions"]): Session {
  const header = builder.requireHeader();
  const damaged = builder.damageWithTail();
  // Pi's leaf: the last entry it keeps (a recovered torn-line object is never Pi's leaf).
  const leafId = builder.leafId;
  return {
    path: builder.path,
    header,
    entries: builder.entries,
    blocks: builder.blocks,
    damaged,
    byId: builder.byId,
    leafId,
    lineage,
    lineageIds,
    recoveredLineageIds: recoveredLineageIds(builder, damaged, lineageIds),
    branchPoints: builder.branchPoints,
    roots: builder.roots,
    compactions,
    byteLength: builder.byteLength,
    withText: builder.withText,
  };
}

/** Read a whole session file. Never writes, truncates or locks it. */
export async function readSession(path: string, options: ReadOptions = {}): Promise<Session> {
  const fh = await openReadOnly(path);
  try {
    const stats = await fh.stat();
    if (stats.isDirectory()) throw new LedgerError("UNREADABLE", path, "is a directory, not a session file");
    const fragmentId = options.fragment === true ? await fragmentIdOf(fh) : undefined;
    const builder = new LedgerBuilder(path, { withText: options.withText ?? true, streaming: false, ...(fragmentId === undefined ? {} : { fragmentId }) });
    if (options.onBytes === undefined) await feedAll(builder, fh, 0);
    else {
      const report = options.onBytes;
      for await (const _ of feed(builder, fh, 0)) report(builder.byteLength, stats.size);
    }
    const { session, lineage } = snapshot(builder);
    remember(session, { builder, lineage, dev: stats.dev, ino: stats.ino, mtimeMs: stats.mtimeMs, tail: await readTail(fh, builder.byteLength) });
    return session;
  } finally {
    await fh.close();
  }
}

/**
 * A session read for its shape only, in memory that grows with the number of entries, not with their
 * text: `session` has every entry (ids, type, time, message role, a compaction's cut and summary; no
 * message content), the tree, lineage, compactions with their `#N` segments and all damage (with
 * salvage) exactly as `readSession` gives them — but `session.blocks` is empty and `withText` false:
 * blocks are only counted. What `inspect` shows; anything that needs text reads it by byte offset.
 */
export interface SessionShape {
  readonly session: Session;
  /** Blocks in the file (`#N` runs 0 … blockCount − 1). */
  readonly blockCount: number;
  /** Blocks per kind, kinds sorted. */
  readonly blocksByKind: Readonly<Record<string, number>>;
  /** Each entry's first `#N`, by entry position (its blocks run to the next entry's first, or blockCount). */
  readonly blockStart: readonly number[];
  /** Read with `blockBytes: true`: each block's UTF-8 text size by `#N` (what a cut weighs), else undefined. */
  readonly blockBytes: readonly number[] | undefined;
}

export interface ShapeOptions extends Pick<ReadOptions, "onBytes" | "fragment"> {
  /** Measure each block's UTF-8 text size as it goes by (`SessionShape.blockBytes`). */
  readonly blockBytes?: boolean;
}

/** Read a session's shape (see SessionShape). Never writes, truncates or locks the file. */
export async function readSessionShape(path: string, options: ShapeOptions = {}): Promise<SessionShape> {
  const fh = await openReadOnly(path);
  try {
    const stats = await fh.stat();
    if (stats.isDirectory()) throw new LedgerError("UNREADABLE", path, "is a directory, not a session file");
    const fragmentId = options.fragment === true ? await fragmentIdOf(fh) : undefined;
    // withText stays on for damage only: a salvaged line keeps its text (what inspect counts); blocks keep none.
    const builder = new LedgerBuilder(path, { withText: true, streaming: false, shape: true, blockBytes: options.blockBytes === true, ...(fragmentId === undefined ? {} : { fragmentId }) });
    const report = options.onBytes;
    for await (const _ of feed(builder, fh, 0)) report?.(builder.byteLength, stats.size);
    const session = shapeSnapshot(builder);
    const kinds = [...builder.blockKinds.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return {
      session: { ...session, withText: false },
      blockCount: builder.blockCount,
      blocksByKind: Object.fromEntries(kinds.map((k) => [k, builder.blockKinds.get(k) ?? 0])),
      blockStart: builder.blockStart,
      blockBytes: builder.blockBytes,
    };
  } finally {
    await fh.close();
  }
}

/**
 * Read what was appended since `previous` was read: cost proportional to the new bytes. Throws
 * LedgerError LEDGER_CHANGED when the file was truncated or replaced (read it again from the start).
 * `previous` shares its arrays with the result and must not be used afterwards.
 */
export async function updateSession(previous: Session): Promise<Session> {
  const state = stateOf(previous);
  if (state === undefined) return readSession(previous.path, { withText: previous.withText });
  const { builder } = state;
  if (state.dev === -1) {
    throw new LedgerError("LEDGER_CHANGED", previous.path, "was parsed from memory: there is no file to resume; read the file with readSession");
  }
  if (unchangedSince(previous.path, state)) return previous;
  const fh = await openReadOnly(previous.path);
  try {
    const stats = await fh.stat();
    const changed = (why: string): LedgerError =>
      new LedgerError("LEDGER_CHANGED", previous.path, `${why} since it was read: read it again from the start`, {
        byteOffset: builder.byteLength,
      });
    if (stats.dev !== state.dev || stats.ino !== state.ino) throw changed("the file was replaced");
    if (stats.size < builder.byteLength) throw changed("the file was truncated");
    const tail = await readTail(fh, builder.byteLength);
    if (!tail.equals(state.tail)) throw changed("the file was rewritten");
    if (stats.size === builder.byteLength && builder.tailDamage === undefined) return previous;
    // Buffers sized to what was appended (a turn's few KB), not two 4 MB chunks per update: those are
    // fresh external memory on every call and drive the garbage collector of the whole process.
    await feedAll(builder, fh, builder.byteLength, updateChunk(stats.size - builder.byteLength));
    const { session, lineage } = snapshot(builder, state.lineage);
    remember(session, { builder, lineage, dev: stats.dev, ino: stats.ino, mtimeMs: stats.mtimeMs, tail: await readTail(fh, builder.byteLength) });
    return session;
  } finally {
    await fh.close();
  }
}

/** The largest append `updateSessionSync` reads (a turn appends tens of KB; more goes to `updateSession`). */
export const SYNC_UPDATE_MAX = 1024 * 1024;

function openReadOnlySync(path: string): number {
  try {
    // "r": read-only; never created, truncated, locked or written.
    return openSync(path, "r");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw new LedgerError("NOT_FOUND", path, "no such file (Pi creates it with the first message)", { cause: error });
    throw new LedgerError("UNREADABLE", path, `cannot open for reading: ${describe(error)}`, { cause: error });
  }
}

/** Read `fd` into `buf` from file offset `at` until it is full or the file ends; the bytes read. */
function readFullySync(path: string, fd: number, buf: Buffer, at: number): number {
  let got = 0;
  while (got < buf.length) {
    let n: number;
    try {
      n = readSync(fd, buf, got, buf.length - got, at + got);
    } catch (error) {
      throw new LedgerError("UNREADABLE", path, `read failed: ${describe(error)}`, { byteOffset: at + got, cause: error });
    }
    if (n === 0) break;
    got += n;
  }
  return got;
}

/**
 * `updateSession` without a promise, for a small append: one open, one fstat and one read at a known
 * offset (the last TAIL_CHECK bytes already consumed, to tell a rewrite, and everything after them).
 * The same checks and the same result as `updateSession` (LEDGER_CHANGED when the file was truncated,
 * replaced or rewritten; an unterminated last line left for the next read). Returns undefined, having
 * read nothing, when more than `maxBytes` were appended (read those with `updateSession`: a large read
 * must not block) or `previous` was not read from a file by this reader. `previous` shares its arrays
 * with the result and must not be used afterwards.
 */
export function updateSessionSync(previous: Session, maxBytes = SYNC_UPDATE_MAX): Session | undefined {
  const state = stateOf(previous);
  if (state === undefined) return undefined;
  const { builder } = state;
  if (state.dev === -1) {
    throw new LedgerError("LEDGER_CHANGED", previous.path, "was parsed from memory: there is no file to resume; read the file with readSession");
  }
  if (unchangedSince(previous.path, state)) return previous;
  const fd = openReadOnlySync(previous.path);
  try {
    const stats = fstatSync(fd);
    const changed = (why: string): LedgerError =>
      new LedgerError("LEDGER_CHANGED", previous.path, `${why} since it was read: read it again from the start`, {
        byteOffset: builder.byteLength,
      });
    if (stats.dev !== state.dev || stats.ino !== state.ino) throw changed("the file was replaced");
    const consumed = builder.byteLength;
    if (stats.size < consumed) throw changed("the file was truncated");
    if (stats.size - consumed > maxBytes) return undefined;
    const start = Math.max(0, consumed - TAIL_CHECK);
    const buf = Buffer.allocUnsafe(stats.size - start);
    const got = readFullySync(previous.path, fd, buf, start);
    const checked = consumed - start;
    if (got < checked) throw changed("the file was truncated");
    if (buf.compare(state.tail, 0, state.tail.length, 0, checked) !== 0) throw changed("the file was rewritten");
    if (got === checked && builder.tailDamage === undefined) return previous;
    builder.consume(buf, checked, got, true);
    const { session, lineage } = snapshot(builder, state.lineage);
    // The new tail lies in what was read: every byte from `start` on is in `buf`.
    const end = builder.byteLength - start;
    const tail = Buffer.from(buf.subarray(Math.max(0, end - TAIL_CHECK), end));
    remember(session, { builder, lineage, dev: stats.dev, ino: stats.ino, mtimeMs: stats.mtimeMs, tail });
    return session;
  } finally {
    closeSync(fd);
  }
}

/**
 * Whether the file is, by a synchronous stat, exactly as the last read left it: same identity, size
 * equal to the bytes consumed, mtime unchanged since the stat taken before that read. Then nothing was
 * appended, and an update needs no open, read or parse (the extension asks for the session several
 * times a turn, mostly with nothing new). Bytes appended during the read are consumed, so they never
 * hide behind an equal size. What this cannot see is a rewrite to the very same size within the
 * filesystem's mtime tick after the read; Pi only appends, and the next growth checks the tail bytes.
 */
function unchangedSince(path: string, state: SessionState): boolean {
  if (state.mtimeMs === undefined || state.builder.tailDamage !== undefined) return false;
  let now;
  try {
    now = statSync(path);
  } catch {
    return false; // the full path reports what went wrong
  }
  return now.dev === state.dev && now.ino === state.ino && now.size === state.builder.byteLength && now.mtimeMs === state.mtimeMs;
}

/** Parse session text held in memory (tests, tools). `path` only labels errors and the result. */
export function parseSessionText(text: string, path = "<memory>"): Session {
  const builder = new LedgerBuilder(path, { withText: true, streaming: false });
  const bytes = Buffer.from(text, "utf8");
  builder.consume(bytes, 0, bytes.length, true);
  const { session, lineage } = snapshot(builder);
  // No file behind it: dev/ino -1 make a later updateSession report LEDGER_CHANGED, never misread.
  remember(session, { builder, lineage, dev: -1, ino: -1, tail: Buffer.alloc(0) });
  return session;
}

/**
 * The items queued so far, each let go as it is handed out: an item the caller is done with is garbage
 * at once, not held by the chunk's list until the last one is taken (held items outlive young-generation
 * collections and pile up in the old one: hundreds of MB over a 1 GB stream).
 */
function* taken(fresh: StreamItem[]): Generator<StreamItem, void, undefined> {
  const items: (StreamItem | undefined)[] = fresh.splice(0);
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    items[i] = undefined;
    if (item !== undefined) yield item;
  }
}

/**
 * Stream a session of any size: the header, then every entry (with its blocks) and every damage
 * report in file order. Holds only tree metadata between chunks, never the text already yielded.
 */
export async function* streamEntries(path: string, options: ReadOptions = {}): AsyncGenerator<StreamItem, void, undefined> {
  const fh = await openReadOnly(path);
  try {
    const fragmentId = options.fragment === true ? await fragmentIdOf(fh) : undefined;
    const builder = new LedgerBuilder(path, { withText: options.withText ?? true, streaming: true, ...(fragmentId === undefined ? {} : { fragmentId }) });
    for await (const _ of feed(builder, fh, 0, STREAM_CHUNK)) yield* taken(builder.fresh);
    yield* taken(builder.fresh);
    builder.requireHeader();
  } finally {
    await fh.close();
  }
}

/**
 * Whether the active lineage runs forward in the file (each entry after its parent), so one streamed
 * pass meets it in lineage order. Pi appends children after their parent, so its sessions always do;
 * a hand-edited file may not, and is then read whole by the commands that stream.
 */
export function lineageInFileOrder(session: Session): boolean {
  const lineage = session.lineage;
  return lineage.every((entry, i) => i === 0 || entry.position > (lineage[i - 1]?.position ?? -1));
}

/**
 * What a streamed second read needs of a session's first read to meet its active lineage: the file, and
 * each lineage entry's position with a 32-bit hash of its id (to tell a file replaced between the reads).
 * A few bytes per entry, so a command can let the shape go before it streams: on a 1 GB session the
 * shape is ≈230 MB of heap, the route ≈4 MB.
 */
export interface LineageRoute {
  readonly path: string;
  readonly fragment: boolean;
  /** Entry positions of the lineage, root → leaf (increasing: see `lineageInFileOrder`). */
  readonly positions: Int32Array;
  /** `idHash` of each lineage entry's id, in the same order. */
  readonly idHashes: Int32Array;
}

/** FNV-1a over the id's UTF-16 code units: tells an entry from another at the same position. */
function idHash(id: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  return h | 0;
}

/** The route of `session`'s active lineage (see LineageRoute); its lineage must run forward in the file. */
export function lineageRoute(session: Session): LineageRoute {
  if (!lineageInFileOrder(session)) throw new LedgerError("NOT_LOADED", session.path, "the active branch runs backwards in the file: read the session whole");
  const lineage = session.lineage;
  const positions = new Int32Array(lineage.length);
  const idHashes = new Int32Array(lineage.length);
  for (let i = 0; i < lineage.length; i++) {
    const entry = lineage[i];
    if (entry === undefined) continue;
    positions[i] = entry.position;
    idHashes[i] = idHash(entry.id);
  }
  return { path: session.path, fragment: session.header.fragment === true, positions, idHashes };
}

/**
 * The active lineage's entries with their blocks (text included), in lineage order, from a second,
 * streamed read of the file whose shape (or whole read) is `session`: memory holds one chunk's entries
 * at a time. The lineage must run forward in the file (`lineageInFileOrder`). Throws LedgerError
 * LEDGER_CHANGED when the file no longer holds `session`'s entries (replaced between the two reads).
 */
export async function* streamLineage(session: Session): AsyncGenerator<{ readonly entry: Entry; readonly blocks: readonly Block[] }, void, undefined> {
  yield* streamRoute(lineageRoute(session));
}

/** `streamLineage` from a route taken earlier (`lineageRoute`), once the session itself is let go. */
export async function* streamRoute(route: LineageRoute): AsyncGenerator<{ readonly entry: Entry; readonly blocks: readonly Block[] }, void, undefined> {
  // The lineage runs forward in the file and the stream numbers entries 0, 1, 2, …: the next lineage
  // entry is the one to meet (no position → id map over the whole lineage).
  const { positions, idHashes } = route;
  let met = 0;
  for await (const item of streamEntries(route.path, route.fragment ? { fragment: true } : {})) {
    if (item.kind !== "entry") continue;
    if (met >= positions.length || positions[met] !== item.entry.position) continue;
    if (idHashes[met] !== idHash(item.entry.id)) {
      throw new LedgerError("LEDGER_CHANGED", route.path, `entry ${String(item.entry.position)} is ${item.entry.id}, not the entry first read there: the file changed between reads; run again`, {
        line: item.entry.line,
        byteOffset: item.entry.byteOffset,
      });
    }
    met++;
    yield item;
  }
  if (met !== positions.length) throw new LedgerError("LEDGER_CHANGED", route.path, `the file holds ${String(met)} of the ${String(positions.length)} lineage entries first read: it changed between reads; run again`);
}

/** The blocks of the active lineage's entries, in lineage order. */
export function lineageBlocks(session: Session): Block[] {
  const state = stateOf(session);
  if (state !== undefined) return state.builder.blocksOfAll(session.lineage);
  return session.blocks.filter((block) => session.lineageIds.has(block.entryId));
}

/** Block `#index`, or undefined. */
export function blockAt(session: Session, index: number): Block | undefined {
  return Number.isInteger(index) ? session.blocks[index] : undefined;
}

/** The blocks of one entry, in content order. */
export function blocksOfEntry(session: Session, entry: Entry): Block[] {
  const state = stateOf(session);
  if (state !== undefined) return state.builder.blocksOf(entry);
  return session.blocks.filter((block) => block.entryPosition === entry.position);
}

/** Is the block on the active lineage (root → leaf)? */
export function isOnLineage(session: Session, block: Block): boolean {
  return session.lineageIds.has(block.entryId) && session.byId.get(block.entryId)?.position === block.entryPosition;
}
