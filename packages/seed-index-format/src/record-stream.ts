// Reading a seed index whose records are too long to hold: a `context-fold index` record of a 1 GB
// session is one 213 MB line of a million spans, which JSON.parse turns into 1.5 GB of objects. A line
// over `holdLineUpTo` bytes is scanned instead: its spans array is cut out span by span (each parsed and
// checked alone), the rest of the line parsed as a record with `spans: []`, and the spans left in the
// file, where `forEachSpan` reads them again. Any line the scan cannot take exactly (malformed, invalid,
// not a v2 fold-index record, a key written with escapes) is read whole, as `readSeedIndex` reads it, so
// every outcome is the one `readSeedIndex` gives.
import { closeSync, createReadStream, fstatSync, openSync, readSync } from "node:fs";
import { SeedIndexUnreadableError } from "./errors.js";
import { classifyLine, type LineOutcome, type ReadOutcome } from "./reader.js";
import { type FoldIndexRecord, type Span, validateRecord, validateSpan } from "./records.js";

/** Where a record's spans were left: its line's bytes in the file, and how many spans it holds. */
export interface SpansInFile {
  readonly path: string;
  readonly byteOffset: number;
  readonly byteLength: number;
  readonly count: number;
  /** The file's identity when read: a replaced file is told, not read as the spans first checked. */
  readonly dev: number;
  readonly ino: number;
}

/** A `readSeedIndex` outcome; a record read from a long line has `spans: []` and says where they are. */
export type LeanReadOutcome = ReadOutcome & { readonly spansInFile?: SpansInFile };

export interface LeanReadOptions {
  /** Lines up to this many bytes are read whole (default 8 MiB); longer ones are scanned. */
  readonly holdLineUpTo?: number;
}

const DEFAULT_HOLD = 8 * 1024 * 1024;
const SCAN_CHUNK = 1024 * 1024;
const NEWLINE = 0x0a;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const SPANS_KEY = Buffer.from("spans");

const isSpace = (byte: number): boolean => byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d;

/** Thrown inside a scan: the line is not one the scan takes exactly, read it whole. */
class NotScannable extends Error {}

/** Thrown when a line's bytes are no longer in the file (replaced or cut while read). */
class FileChanged extends Error {}

/**
 * Reads bytes [start, start + length) of `fd` in chunks and hands them to `take`, in order. Each chunk is a
 * fresh buffer: pieces of it may be kept.
 */
function eachChunk(fd: number, start: number, length: number, take: (chunk: Buffer) => void): void {
  let at = start;
  const end = start + length;
  while (at < end) {
    const chunk = Buffer.allocUnsafe(Math.min(SCAN_CHUNK, end - at));
    let got = 0;
    while (got < chunk.length) {
      const n = readSync(fd, chunk, got, chunk.length - got, at + got);
      if (n === 0) throw new FileChanged(`the file ended at byte ${String(at + got)}, inside a line that ran to byte ${String(end)}`);
      got += n;
    }
    take(chunk);
    at += got;
  }
}

function concat(parts: Buffer[]): Buffer {
  return parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts);
}

/**
 * Scans one record line: calls `onSpan` with each element of its top-level `spans` array (parsed), and
 * returns the line parsed without them (`spans: []`) and their number. Throws NotScannable when the line
 * has no such array, a top-level key with an escape or a second `spans`, or a piece that does not parse.
 */
function scanLine(fd: number, start: number, length: number, onSpan: (value: unknown, index: number) => void): { head: unknown; count: number } {
  const head: Buffer[] = [];
  let element: Buffer[] = [];
  let count = 0;
  let depth = 0;
  let inString = false;
  let escaped = false;
  // Top-level keys: after `{` or a top-level `,` the next string is a key; its value is the next token after `:`.
  let expectKey = false;
  let keyBytes: number[] | undefined;
  let keyHasEscape = false;
  let lastKeyIsSpans = false;
  let awaitValue = false;
  let spansSeen = false;
  // 0: before the spans array, 1: inside it, 2: after it.
  let phase = 0;
  let elementHasContent = false;
  const finishElement = (): void => {
    if (!elementHasContent) throw new NotScannable("an empty element");
    const bytes = concat(element);
    let value: unknown;
    try {
      value = JSON.parse(bytes.toString("utf8")) as unknown;
    } catch {
      throw new NotScannable("an element does not parse");
    }
    onSpan(value, count);
    count += 1;
    element = [];
    elementHasContent = false;
  };
  eachChunk(fd, start, length, (chunk) => {
    let from = 0; // start of the bytes of this chunk not yet given to head or element
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i] as number;
      if (inString) {
        if (keyBytes !== undefined && !escaped && byte !== QUOTE) keyBytes.push(byte);
        if (escaped) escaped = false;
        else if (byte === BACKSLASH) {
          escaped = true;
          if (keyBytes !== undefined) keyHasEscape = true;
        } else if (byte === QUOTE) {
          inString = false;
          if (keyBytes !== undefined) {
            if (keyHasEscape) throw new NotScannable("a key with an escape");
            lastKeyIsSpans = SPANS_KEY.equals(Buffer.from(keyBytes));
            if (lastKeyIsSpans) {
              if (spansSeen) throw new NotScannable("two spans keys");
              spansSeen = true;
            }
            keyBytes = undefined;
          }
        }
        continue;
      }
      if (isSpace(byte)) continue;
      if (phase === 1 && depth === 2) {
        if (byte === COMMA) {
          element.push(chunk.subarray(from, i));
          from = i + 1;
          finishElement();
          continue;
        }
        if (byte === CLOSE_BRACKET) {
          element.push(chunk.subarray(from, i));
          from = i;
          if (count > 0 || elementHasContent) finishElement();
          phase = 2;
          depth -= 1;
          continue;
        }
        elementHasContent = true;
      }
      if (depth === 1 && phase !== 1) {
        if (awaitValue) {
          awaitValue = false;
          if (lastKeyIsSpans) {
            if (byte !== OPEN_BRACKET) throw new NotScannable("spans is not an array");
            head.push(chunk.subarray(from, i + 1));
            from = i + 1;
            phase = 1;
            depth = 2;
            continue;
          }
        } else if (byte === COLON) awaitValue = true;
        else if (byte === COMMA) expectKey = true;
        else if (byte === QUOTE && expectKey) {
          expectKey = false;
          keyBytes = [];
          keyHasEscape = false;
          inString = true;
          continue;
        }
      }
      if (byte === QUOTE) inString = true;
      else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
        depth += 1;
        if (depth === 1 && byte === OPEN_BRACE) expectKey = true;
      } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) depth -= 1;
    }
    (phase === 1 ? element : head).push(chunk.subarray(from));
  });
  if (phase !== 2) throw new NotScannable("no spans array");
  let parsed: unknown;
  try {
    parsed = JSON.parse(concat(head).toString("utf8")) as unknown;
  } catch {
    throw new NotScannable("the record around the spans does not parse");
  }
  return { head: parsed, count };
}

/** The outcome of the long line at [start, start + length) of `path`, from a scan, or read whole (the writer finds its tail's seq with it too). */
export function longLineOutcome(path: string, start: number, length: number, isLast: boolean): LineOutcome & { spansInFile?: SpansInFile } {
  try {
    return longLineRead(path, start, length, isLast);
  } catch (error) {
    if (error instanceof FileChanged) throw new SeedIndexUnreadableError(path, new Error(`${error.message}: the file changed while read`));
    throw error;
  }
}

function longLineRead(path: string, start: number, length: number, isLast: boolean): LineOutcome & { spansInFile?: SpansInFile } {
  const fd = openSync(path, "r");
  try {
    try {
      let valid = true;
      const scanned = scanLine(fd, start, length, (value, index) => {
        if (valid && !validateSpan(value, index).ok) valid = false;
      });
      const head = scanned.head as { kind?: unknown; v?: unknown } | null;
      if (valid && typeof head === "object" && head !== null && !Array.isArray(head) && head.kind === "fold-index" && head.v === 2) {
        const checked = validateRecord(head);
        if (checked.ok) {
          const { dev, ino } = fstatSync(fd);
          return { outcome: "record", record: head as FoldIndexRecord, spansInFile: { path, byteOffset: start, byteLength: length, count: scanned.count, dev, ino } };
        }
      }
    } catch (error) {
      if (!(error instanceof NotScannable)) throw error;
    }
    // Anything else is told exactly as a whole read tells it.
    const parts: Buffer[] = [];
    eachChunk(fd, start, length, (chunk) => parts.push(chunk));
    const text = new TextDecoder("utf-8").decode(Buffer.concat(parts, length));
    return classifyLine(isLast ? text : text.replace(/\r$/, ""), isLast);
  } finally {
    closeSync(fd);
  }
}

/**
 * `readSeedIndex`, holding no line longer than `holdLineUpTo` bytes: a valid v2 fold-index record on a
 * longer line comes with `spans: []` and `spansInFile` (read them with `forEachSpan`). Every outcome,
 * line number and byte offset is the one `readSeedIndex` gives.
 */
export async function* readSeedIndexLean(path: string, options: LeanReadOptions = {}): AsyncIterable<LeanReadOutcome> {
  const hold = options.holdLineUpTo ?? DEFAULT_HOLD;
  const decoder = new TextDecoder("utf-8");
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  /** The line under way is longer than `hold`: its bytes are counted, not kept. */
  let long = false;
  let lineStart = 0;
  let line = 0;
  const stream = createReadStream(path, { highWaterMark: 1 << 20 });
  const lineOutcome = (bytesOrLength: Buffer | number, isLast: boolean): LeanReadOutcome => {
    line += 1;
    if (typeof bytesOrLength === "number") return { line, byteOffset: lineStart, ...longLineOutcome(path, lineStart, bytesOrLength, isLast) } as LeanReadOutcome;
    const text = decoder.decode(bytesOrLength);
    return { line, byteOffset: lineStart, ...classifyLine(isLast ? text : text.replace(/\r$/, ""), isLast) } as LeanReadOutcome;
  };
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      let from = 0;
      for (let at = chunk.indexOf(NEWLINE, from); at !== -1; at = chunk.indexOf(NEWLINE, from)) {
        const piece = chunk.subarray(from, at);
        const length = pendingBytes + piece.length;
        yield long || length > hold ? lineOutcome(length, false) : lineOutcome(pendingBytes === 0 ? piece : Buffer.concat([...pending, piece], length), false);
        lineStart += length + 1;
        pending = [];
        pendingBytes = 0;
        long = false;
        from = at + 1;
      }
      if (from < chunk.length) {
        if (!long) pending.push(chunk.subarray(from));
        pendingBytes += chunk.length - from;
        if (!long && pendingBytes > hold) {
          long = true;
          pending = [];
        }
      }
    }
  } catch (error) {
    throw error instanceof SeedIndexUnreadableError ? error : new SeedIndexUnreadableError(path, error);
  }
  if (pendingBytes > 0) yield long || pendingBytes > hold ? lineOutcome(pendingBytes, true) : lineOutcome(Buffer.concat(pending, pendingBytes), true);
}

/** `readSeedIndexFile` through `readSeedIndexLean`: a missing file is an empty index (`exists: false`). */
export async function readSeedIndexFileLean(path: string, options: LeanReadOptions = {}): Promise<{ outcomes: LeanReadOutcome[]; exists: boolean }> {
  const outcomes: LeanReadOutcome[] = [];
  try {
    for await (const outcome of readSeedIndexLean(path, options)) outcomes.push(outcome);
  } catch (error) {
    const cause = error instanceof SeedIndexUnreadableError ? error.cause : error;
    if ((cause as NodeJS.ErrnoException | undefined)?.code === "ENOENT") return { outcomes: [], exists: false };
    throw error;
  }
  return { outcomes, exists: true };
}

/**
 * Calls `onSpan` with each span of `record`, in order: the spans it holds, or, when `spansInFile` says
 * they were left in the file, those read again from there. Throws SeedIndexUnreadableError when those
 * bytes no longer hold the spans first read (the file was replaced meanwhile).
 */
export function forEachSpan(record: FoldIndexRecord, spansInFile: SpansInFile | undefined, onSpan: (span: Span, index: number) => void): void {
  if (spansInFile === undefined) {
    record.spans.forEach(onSpan);
    return;
  }
  const { path, byteOffset, byteLength, count } = spansInFile;
  let seen = 0;
  try {
    const fd = openSync(path, "r");
    try {
      // Each span was checked when the line was first read: the same file (a seed index is only appended
      // to) still holds those bytes, so they are not checked again (a check per span per pass cost
      // `verify` 1.2× the CPU on the 1 GB bench session).
      const now = fstatSync(fd);
      if (now.dev !== spansInFile.dev || now.ino !== spansInFile.ino || now.size < byteOffset + byteLength) throw new FileChanged("another file is there now, or a shorter one");
      scanLine(fd, byteOffset, byteLength, (value, index) => {
        if (typeof value !== "object" || value === null || Array.isArray(value)) throw new NotScannable("a span is no object");
        seen = index + 1;
        onSpan(value as Span, index);
      });
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    // The caller's own errors (thrown by onSpan) pass as they are.
    if (error instanceof NotScannable || error instanceof FileChanged) {
      throw new SeedIndexUnreadableError(path, new Error(`the record at byte ${String(byteOffset)} no longer reads as it did (${error.message}): the file changed while read`));
    }
    throw error;
  }
  if (seen !== count) throw new SeedIndexUnreadableError(path, new Error(`the record at byte ${String(byteOffset)} held ${String(count)} spans, now ${String(seen)}: the file changed while read`));
}

/** The spans of some records of a lean read: how many, and a walk over them (see `recordSpans`). */
export interface RecordSpans {
  readonly count: number;
  /** Calls `onSpan` with every span, in record order, each record's in order. */
  forEach(onSpan: (span: Span, record: FoldIndexRecord) => void): void;
}

/**
 * The spans of `records` (records of `outcomes`, e.g. their `currentView`), those a long line left in the
 * file read back from it by `forEachSpan` on each walk: nothing of them is held between walks.
 */
export function recordSpans(records: readonly FoldIndexRecord[], outcomes: readonly LeanReadOutcome[]): RecordSpans {
  const where = new Map<FoldIndexRecord, SpansInFile>();
  for (const o of outcomes) if (o.outcome === "record" && o.spansInFile !== undefined) where.set(o.record, o.spansInFile);
  let count = 0;
  for (const record of records) count += where.get(record)?.count ?? record.spans.length;
  return {
    count,
    forEach(onSpan) {
      for (const record of records) forEachSpan(record, where.get(record), (span) => onSpan(span, record));
    },
  };
}
