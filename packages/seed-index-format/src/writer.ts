// The append-only writer: validate, then append one whole line under the seed index's append lock
// (@context-fold/durable-fs: `<seed-index>.lock`, held only for the append), so writers in any process
// never interleave or share a seq. The next seq is read from the file's tail under that lock (scanning
// back past a damaged tail to the last valid record), never from a full re-read of a growing index.
import { closeSync, fstatSync, ftruncateSync, fsyncSync, mkdirSync, openSync, readSync, type Stats, statSync, utimesSync } from "node:fs";
import { dirname } from "node:path";
import { appendFile, type LockOptions, lockPathFor, syncDirectory, withAppendLock, writeAll } from "@context-fold/durable-fs";
import { InvalidRecordError } from "./errors.js";
import { classifyLine } from "./reader.js";
import { longLineOutcome } from "./record-stream.js";
import { type FoldIndexRecord, type FoldRetractRecord, type Span, validateRecord, validateSpan } from "./records.js";
import type { SpanSpool } from "./span-spool.js";

export interface AppendOptions {
  /** fsync the file after the write (durable against power loss; slower). */
  fsync?: boolean;
  /** How long to wait for another writer's lock (default 10 s); past it a LockTimeoutError is thrown. */
  lockTimeoutMs?: number;
  /** A lock file older than this is left over from a crash and is taken over (default 10 s). */
  lockStaleMs?: number;
}

type AnyRecord = FoldIndexRecord | FoldRetractRecord;

const CHUNK = 64 * 1024;

/**
 * The seq after the last valid record (fold-index or retract) of the file, read backwards from its end:
 * a torn or invalid tail is stepped over; 0 for a missing or empty file, or one without a valid record.
 */
export function nextSeqFromTail(path: string): number {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (error) {
    if ((error as { code?: unknown }).code === "ENOENT") return 0;
    throw error;
  }
  try {
    const size = fstatSync(fd).size;
    // Newlines are found walking back chunk by chunk (no bytes carried between chunks), and each line is
    // classified from its own offsets once its start is known: a line longer than LINE_HOLD (a whole
    // session's `index` record is hundreds of megabytes) is scanned span by span rather than held, so the
    // walk costs the tail's bytes once, whatever the lines' lengths.
    const chunk = Buffer.alloc(CHUNK);
    let lineEnd = size;
    let end = size;
    while (end > 0) {
      const start = Math.max(0, end - CHUNK);
      const got = readAt(fd, chunk, end - start, start);
      for (let i = got - 1; i >= -1; i--) {
        if (i >= 0 && chunk[i] !== 0x0a) continue;
        if (i === -1 && start > 0) break;
        const lineStart = start + i + 1;
        if (lineEnd > lineStart) {
          const seq = seqOfLine(path, fd, lineStart, lineEnd - lineStart, lineEnd === size);
          if (seq !== undefined) return seq + 1;
        }
        lineEnd = lineStart - 1;
      }
      end = start;
    }
    return 0;
  } finally {
    closeSync(fd);
  }
}

/** Lines up to this many bytes are read whole to find their seq; longer ones are scanned. */
const LINE_HOLD = 8 * 1024 * 1024;

function readAt(fd: number, into: Buffer, length: number, position: number): number {
  let got = 0;
  while (got < length) {
    const n = readSync(fd, into, got, length - got, position + got);
    if (n === 0) break;
    got += n;
  }
  return got;
}

/** The seq of the record or retraction on the line at [start, start + length), if it is a valid one. */
function seqOfLine(path: string, fd: number, start: number, length: number, isLast: boolean): number | undefined {
  let outcome;
  if (length > LINE_HOLD) outcome = longLineOutcome(path, start, length, isLast);
  else {
    const line = Buffer.alloc(length);
    const got = readAt(fd, line, length, start);
    outcome = classifyLine(line.toString("utf8", 0, got), isLast);
  }
  return outcome.outcome === "record" || outcome.outcome === "retract" ? outcome.record.seq : undefined;
}

function lockOptions(options: AppendOptions): LockOptions {
  return { ...(options.lockTimeoutMs === undefined ? {} : { timeoutMs: options.lockTimeoutMs }), ...(options.lockStaleMs === undefined ? {} : { staleMs: options.lockStaleMs }) };
}

/** The line for `record`, preceded by a newline when the file ends in a torn line (so those bytes stay on their own line, where the reader reports them). */
function lineFor(path: string, record: AnyRecord): Buffer {
  return Buffer.from(`${tornTail(path) ? "\n" : ""}${JSON.stringify(record)}\n`, "utf8");
}

/** Does the file end in a line without its newline (an interrupted append)? */
function tornTail(path: string): boolean {
  let fd: number | null = null;
  try {
    fd = openSync(path, "r");
    const size = fstatSync(fd).size;
    if (size === 0) return false;
    const last = Buffer.alloc(1);
    readSync(fd, last, 0, 1, size - 1);
    // Under the lock no other appender is mid-write: a missing newline is a torn tail.
    return last[0] !== 0x0a;
  } catch (error) {
    if ((error as { code?: unknown }).code !== "ENOENT") throw error;
    return false;
  } finally {
    if (fd !== null) closeSync(fd);
  }
}

function checked<R extends AnyRecord>(path: string, record: R): R {
  const result = validateRecord(record);
  if (!result.ok) throw new InvalidRecordError(path, result.errors);
  return record;
}

/**
 * Append one record as one line, under the append lock. Throws InvalidRecordError (file untouched) when
 * the record does not match the contract, LockTimeoutError (from @context-fold/durable-fs) when another
 * writer held the lock past `lockTimeoutMs`. A write that fails is cut back off the file.
 */
export async function appendRecord(path: string, record: AnyRecord, options: AppendOptions = {}): Promise<void> {
  checked(path, record);
  await withAppendLock(path, () => {
    appendFile(path, lineFor(path, record), { fsync: options.fsync === true });
  }, lockOptions(options));
}

/**
 * What one appender knows of the file after its own last append, kept by the caller across appends
 * (`appendNextRecord`'s `tail`): when the file under the lock still has the same identity, size and
 * times, nothing was written since, so the next seq is known and the file ends in a newline — the tail
 * need not be read back. Any other writer's append (always under the lock) or replacement changes them.
 */
export interface AppendTail {
  known?: { readonly dev: number; readonly ino: number; readonly size: number; readonly mtimeMs: number; readonly ctimeMs: number; readonly nextSeq: number } | undefined;
}

function statOf(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch (error) {
    if ((error as { code?: unknown }).code === "ENOENT") return undefined;
    throw error;
  }
}

/**
 * Each span's JSON text, made and checked once per span object: a writer that appends the same spans in
 * record after record (a `compact` record lists every span of the lineage, most of them listed by the
 * compaction before) validates and serializes only the spans it has not written yet. The spans of the
 * last record are kept encoded too (their UTF-8 bytes, joined, with each span's end): the next record's
 * spans that start with the same span objects reuse those bytes, so only the spans after them are
 * encoded. Keyed by identity: a span given to it must never be changed afterwards (records' spans are
 * read-only values).
 */
export class SpanTexts {
  readonly #texts = new WeakMap<Span, string>();
  /** The last `joined` call's spans, their joined UTF-8 bytes (the start of `#bytes`), and where each span's bytes end. */
  readonly #spans: Span[] = [];
  readonly #ends: number[] = [];
  #bytes: Buffer = Buffer.alloc(0);

  /** The JSON text of `span` (at `index` in its record's spans); throws InvalidRecordError when it is no valid span. */
  text(path: string, span: Span, index: number): string {
    let text = this.#texts.get(span);
    if (text !== undefined) return text;
    const result = validateSpan(span, index);
    if (!result.ok) throw new InvalidRecordError(path, result.errors);
    text = JSON.stringify(span);
    this.#texts.set(span, text);
    return text;
  }

  /**
   * The UTF-8 bytes of the spans' texts joined by commas (each span checked as `text` checks it): the
   * leading spans that are the last call's (the same objects, in order) keep the bytes that call wrote,
   * so only the spans after them are encoded. The bytes returned are this writer's own buffer: valid
   * until its next call (an append writes them at once).
   */
  joined(path: string, spans: readonly Span[]): Buffer {
    const kept = this.#spans;
    const ends = this.#ends;
    let same = 0;
    while (same < kept.length && same < spans.length && kept[same] === spans[same]) same += 1;
    // Each added span's bytes counted once, as its text is taken: they give where it ends and the bytes
    // of all of them (the joined text is encoded once, never measured again whole). Nothing kept changes
    // until every added span is checked: a span that throws leaves the last call's bytes as they were.
    const texts: string[] = [];
    const added: number[] = [];
    const start = same === 0 ? 0 : (ends[same - 1] as number);
    let at = start;
    for (let index = same; index < spans.length; index++) {
      const text = this.text(path, spans[index] as Span, index);
      texts.push(text);
      at += (index === 0 ? 0 : 1) + Buffer.byteLength(text, "utf8");
      added.push(at);
    }
    const end = at;
    kept.length = same;
    ends.length = same;
    for (let i = 0; i < added.length; i++) {
      kept.push(spans[same + i] as Span);
      ends.push(added[i] as number);
    }
    if (end > this.#bytes.length) {
      // Room to grow: the next records list these spans and a few more (an eighth more at the first, so
      // the next record's few added spans do not copy all of them into a larger buffer).
      const grown = Buffer.allocUnsafe(Math.max(end + (end >> 3), Math.ceil(this.#bytes.length * 1.5)));
      this.#bytes.copy(grown, 0, 0, start);
      this.#bytes = grown;
    }
    if (texts.length > 0) this.#bytes.write(`${same === 0 ? "" : ","}${texts.join(",")}`, start, "utf8");
    return this.#bytes.subarray(0, end);
  }
}

/**
 * The line (with its newline, after `prefix`; in pieces when `texts` is given) of a valid record, as
 * `JSON.stringify(record)` gives it, checked: the record without its spans by the contract's check, each
 * span by `texts` (once per span object, its bytes kept from the last record's when it leads both). A record is valid exactly when it
 * is with `spans: []` and each of its spans is, so this accepts and rejects what `validateRecord` does.
 */
function recordLine(path: string, prefix: string, record: AnyRecord, texts: SpanTexts | undefined): Buffer | Buffer[] {
  if (texts === undefined || record.kind !== "fold-index" || record.spans.length === 0) return Buffer.from(`${prefix}${JSON.stringify(checked(path, record))}\n`, "utf8");
  const { before, after } = headAround(path, { ...record, spans: [] });
  return [Buffer.from(`${prefix}${before}`, "utf8"), texts.joined(path, record.spans), Buffer.from(`${after}\n`, "utf8")];
}

/**
 * Append the record `build` makes for the next seq, assigned under the lock from the file's tail (at
 * least `minSeq`, e.g. a writer's own counter): no two writers ever take the same seq. Returns the record
 * as appended. `spanTexts`: the writer's span texts, kept across its appends (see `SpanTexts`).
 */
export async function appendNextRecord<R extends AnyRecord>(path: string, build: (seq: number) => R, options: AppendOptions & { minSeq?: number; tail?: AppendTail; spanTexts?: SpanTexts } = {}): Promise<R> {
  return withAppendLock(path, () => {
    const tail = options.tail;
    const known = tail?.known;
    let unchanged = false;
    if (tail !== undefined) {
      tail.known = undefined;
      const now = known === undefined ? undefined : statOf(path);
      unchanged = known !== undefined && now !== undefined && now.dev === known.dev && now.ino === known.ino && now.size === known.size && now.mtimeMs === known.mtimeMs && now.ctimeMs === known.ctimeMs;
    }
    const seq = Math.max(unchanged && known !== undefined ? known.nextSeq : nextSeqFromTail(path), options.minSeq ?? 0);
    const record = build(seq);
    const line = recordLine(path, !unchanged && tornTail(path) ? "\n" : "", record, options.spanTexts);
    appendFile(path, line, { fsync: options.fsync === true });
    if (tail !== undefined) {
      const after = statOf(path);
      if (after !== undefined) tail.known = { dev: after.dev, ino: after.ino, size: after.size, mtimeMs: after.mtimeMs, ctimeMs: after.ctimeMs, nextSeq: record.seq + 1 };
    }
    return record;
  }, lockOptions(options));
}

/** Has `value` (an object) a `toJSON` method, which JSON.stringify calls with the key it is found under? */
function hasToJson(value: object): boolean {
  return typeof (value as { toJSON?: unknown }).toJSON === "function";
}

/**
 * `JSON.stringify(record)` (a record's head: `recordJson`), each top-level array written item by item:
 * V8 writes a long array of small objects holding a non-ASCII string (the user messages of a long
 * session, ~6k of them) about 2.5 times slower whole than item by item (measured 2026-12-03, Node 22:
 * 20 ms against 7.6 ms for the bench's 100 MB session). The same text: an item's JSON within an array
 * is its JSON alone, but for what JSON.stringify writes as `null` there (undefined, a function, a
 * symbol), written so here; a value with `toJSON` (called with its key, which differs) is left to
 * JSON.stringify whole.
 */
function recordJson(record: Record<string, unknown>): string {
  if (hasToJson(record)) return JSON.stringify(record);
  let out = "{";
  let first = true;
  for (const key of Object.keys(record)) {
    const value = record[key];
    if (typeof value === "object" && value !== null && hasToJson(value)) return JSON.stringify(record);
    const text = Array.isArray(value) && value.length >= ITEM_BY_ITEM ? arrayJson(value) : JSON.stringify(value);
    if (text === undefined) return JSON.stringify(record);
    out += `${first ? "" : ","}${JSON.stringify(key)}:${text}`;
    first = false;
  }
  return `${out}}`;
}

/** Arrays at least this long are written item by item (shorter ones are as fast whole). */
const ITEM_BY_ITEM = 1024;

/** `JSON.stringify(items)` item by item (see `recordJson`); undefined when an item has `toJSON`. */
function arrayJson(items: readonly unknown[]): string | undefined {
  let out = "[";
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    if (typeof item === "object" && item !== null && hasToJson(item)) return undefined;
    const text = (JSON.stringify(item) as string | undefined) ?? "null";
    out += i === 0 ? text : `,${text}`;
  }
  return `${out}]`;
}

/** Stands in for the spans while the rest of a streamed record is serialized (a string no record holds). */
const SPANS_MARK = "\u0000context-fold: spans go here\u0000";

/** The record's line up to its spans (`…"spans":[`), and from their end (`]…}`). */
function headAround(path: string, record: FoldIndexRecord): { before: string; after: string } {
  if (record.spans.length > 0) throw new TypeError("a streamed record's spans are in its spool: pass it with `spans: []`");
  checked(path, record);
  // The mark takes the spans' place in the key order, so the line is the one JSON.stringify gives.
  const text = recordJson({ ...record, spans: SPANS_MARK });
  const token = `"spans":${JSON.stringify(SPANS_MARK)}`;
  const at = text.indexOf(token);
  if (at === -1 || text.includes(token, at + 1)) throw new TypeError("a streamed record cannot hold the spans mark in its own fields");
  return { before: `${text.slice(0, at)}"spans":[`, after: `]${text.slice(at + token.length)}` };
}

/** Refresh the lock's time this often (bytes written) during a long append, so no waiter judges it stale. */
const LOCK_REFRESH_BYTES = 64 * 1024 * 1024;

/**
 * Writes the record's line at the file's end in pieces (the caller holds the append lock): the head, the
 * spooled spans, the end. On any failure the file is cut back to where it was, as `appendFile` does; a
 * crash midway leaves a torn last line, which readers report (torn-tail) and the next append starts a
 * new line after, as after any interrupted append.
 */
function appendLine(path: string, prefix: string, record: FoldIndexRecord, spool: SpanSpool, sync: boolean): void {
  const { before, after } = headAround(path, record);
  mkdirSync(dirname(path), { recursive: true });
  let created = false;
  let fd: number;
  try {
    fd = openSync(path, "r+");
  } catch (error) {
    if ((error as { code?: unknown }).code !== "ENOENT") throw error;
    fd = openSync(path, "wx+");
    created = true;
  }
  try {
    const start = fstatSync(fd).size;
    let at = start;
    let sinceRefresh = 0;
    const write = (bytes: Uint8Array): void => {
      writeAll(fd, bytes, at, path);
      at += bytes.length;
      sinceRefresh += bytes.length;
      if (sinceRefresh >= LOCK_REFRESH_BYTES) {
        sinceRefresh = 0;
        const now = new Date();
        utimesSync(lockPathFor(path), now, now);
      }
    };
    try {
      write(Buffer.from(`${prefix}${before}`, "utf8"));
      spool.eachPiece(write);
      write(Buffer.from(`${after}\n`, "utf8"));
      if (sync) fsyncSync(fd);
    } catch (error) {
      try {
        ftruncateSync(fd, start);
        fsyncSync(fd);
      } catch {
        if (error instanceof Error) Object.assign(error, { tailDirty: true });
      }
      throw error;
    }
    if (created && sync) syncDirectory(dirname(path));
  } finally {
    closeSync(fd);
  }
}

/**
 * `appendRecord` for a record whose spans are in `spool` (`record.spans` is []): the line is written in
 * pieces under the append lock, byte for byte the line `appendRecord` writes for the record with those
 * spans. Throws InvalidRecordError (file untouched) when the record does not match the contract.
 */
export async function appendRecordStreamed(path: string, record: FoldIndexRecord, spool: SpanSpool, options: AppendOptions = {}): Promise<void> {
  headAround(path, record);
  await withAppendLock(path, () => {
    appendLine(path, tornTail(path) ? "\n" : "", record, spool, options.fsync === true);
  }, lockOptions(options));
}

/**
 * `appendNextRecord` for a record whose spans are in `spool`: the seq is taken under the lock from the
 * file's tail (at least `minSeq`), `build(seq)` makes the record without its spans. Returns it as built.
 */
export async function appendNextRecordStreamed(path: string, build: (seq: number) => FoldIndexRecord, spool: SpanSpool, options: AppendOptions & { minSeq?: number } = {}): Promise<FoldIndexRecord> {
  return withAppendLock(path, () => {
    const seq = Math.max(nextSeqFromTail(path), options.minSeq ?? 0);
    const record = build(seq);
    appendLine(path, tornTail(path) ? "\n" : "", record, spool, options.fsync === true);
    return record;
  }, lockOptions(options));
}
