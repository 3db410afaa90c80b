// Folding a history's dictionary log into a new base: the log (terms sessions gained, appended with a
// checksum) is cheap to write but scanned whole by each search, so once it outweighs its share of the base
// it is merged in, and the sessions no longer live are dropped from the lists. The merge never holds every
// term at once (a first build's log lists every term of every session): the terms are taken in ranges of
// their first two bytes, each range small enough to gather in memory, sorted and streamed to the new base.
import { closeSync, fstatSync, openSync, readSync, rmSync, statSync } from "node:fs";
import { replaceFile } from "@context-fold/durable-fs";
import { readCacheBytes } from "./index-cache.js";
import { BOUND_UNKNOWN, DictionaryBase, dictionaryChunks, type DictionaryEntry, type LogRecordRange, logRecordLength, logRecordRanges } from "./history-dictionary.js";
import type { HistorySession } from "./history-types.js";

/** The log is folded into a new base once it outweighs this share of the base (and this floor). */
const LOG_SHARE = 0.5;
const LOG_FLOOR = 256 * 1024;
/** Term occurrences (log) and entries (base) gathered per range, at most (one two-byte start may hold more). */
const RANGE_TERMS = 400_000;
/** Bytes of the log read at once: the log is walked a window at a time, once per range, never held whole. */
const WINDOW = 4 << 20;
/** Ranges are of a term's first two bytes: byte 0 × 257 + (byte 1 + 1), 0 for a one-byte term: byte order. */
const BUCKETS = 256 * 257;

/** A history's dictionary files and its manifest (removed with them when the base cannot be read). */
export interface DictionaryFiles {
  readonly basePath: string;
  readonly logPath: string;
  readonly manifestPath: string;
}

function bucketOf(bytes: Buffer, at: number, length: number): number {
  if (length === 0) return 0;
  return (bytes[at] as number) * 257 + (length > 1 ? (bytes[at + 1] as number) + 1 : 0);
}

/** The log file read a window of whole records at a time. */
class LogWindows {
  /** Bytes of whole, good records from the start (set by the first, verifying walk). */
  private limit = -1;
  constructor(
    private readonly fd: number,
    private readonly size: number,
    private readonly windowBytes: number,
  ) {}

  private read(at: number, length: number): Buffer {
    const buf = Buffer.allocUnsafe(length);
    let got = 0;
    while (got < length) {
      const n = readSync(this.fd, buf, got, length - got, at + got);
      if (n === 0) break;
      got += n;
    }
    return buf.subarray(0, got);
  }

  /**
   * Calls `visit` with each record (its terms' range within `window`), in order. The first walk checks
   * each record's sha256 and ends at the first torn or bad one; later walks stop where it ended.
   */
  walk(visit: (window: Buffer, record: LogRecordRange) => void): void {
    const verify = this.limit < 0;
    const end = verify ? this.size : this.limit;
    let at = 0;
    let want = this.windowBytes;
    while (at < end) {
      const window = this.read(at, Math.min(want, end - at));
      const { records, bytes } = logRecordRanges(window, verify);
      for (const r of records) visit(window, r);
      at += bytes;
      want = this.windowBytes;
      if (bytes < window.length) {
        // A record the window cut short is read whole by the next one; one it held whole but could not read (or a torn end) ends the log.
        const rest = window.subarray(bytes);
        if (at + rest.length >= end) break;
        if (rest.length >= 8) {
          const whole = logRecordLength(rest);
          if (whole === null || whole <= rest.length) break;
          want = Math.max(this.windowBytes, whole);
        }
      }
    }
    if (verify) this.limit = at;
  }
}

/**
 * The merged entries, sorted by term bytes: the base's and the log's, each range of buckets gathered in
 * a map keyed by the terms' bytes as latin1 (whose string order is their byte order), ordinals kept only
 * for live sessions, sorted and each once, each with its score bound code. A session that has grown
 * since its bounds were computed (its document count and lengths changed) has a log record past its
 * first listing (the base's, or an earlier record): its bounds become unknown, so a search bounds it
 * from its segment.
 */
function* mergedEntries(base: DictionaryBase | null, log: LogWindows, alive: ReadonlySet<number>, rangeTerms: number): Generator<DictionaryEntry> {
  const counts = new Uint32Array(BUCKETS + 1);
  const count = (b: number): void => {
    counts[b] = (counts[b] as number) + 1;
  };
  if (base !== null) for (const key of base.keys()) count(bucketOf(key, 0, key.length));
  const logged = new Map<number, number>();
  log.walk((window, r) => {
    logged.set(r.ordinal, (logged.get(r.ordinal) ?? 0) + 1);
    let pos = r.termsAt;
    for (let i = 0; i < r.count; i++) {
      const l = window.readUInt16LE(pos);
      count(bucketOf(window, pos + 2, l));
      pos += 2 + l;
    }
  });
  const baseIt: Iterator<DictionaryEntry> = base === null ? [][Symbol.iterator]() : base.entries();
  let nextBase = baseIt.next();
  let lo = 0;
  while (lo < BUCKETS) {
    let hi = lo;
    let held = 0;
    while (hi < BUCKETS && (hi === lo || held + (counts[hi] as number) <= rangeTerms)) held += counts[hi++] as number;
    if (held > 0) {
      // Each session of a term as ordinal × 65536 + code: sorted, they come in ordinal order, and of one
      // session listed twice the last holds the greatest code (the safer bound).
      const map = new Map<string, number[]>();
      const add = (key: string, o: number, code: number): void => {
        if (!alive.has(o)) return;
        const list = map.get(key);
        if (list === undefined) map.set(key, [o * 65536 + code]);
        else list.push(o * 65536 + code);
      };
      while (nextBase.done !== true && bucketOf(nextBase.value.key, 0, nextBase.value.key.length) < hi) {
        const key = nextBase.value.key.toString("latin1");
        const { ordinals, codes } = nextBase.value;
        for (let i = 0; i < ordinals.length; i++) {
          const o = ordinals[i] as number;
          add(key, o, logged.has(o) || codes === undefined ? BOUND_UNKNOWN : (codes[i] as number));
        }
        nextBase = baseIt.next();
      }
      log.walk((window, r) => {
        let pos = r.termsAt;
        for (let i = 0; i < r.count; i++) {
          const l = window.readUInt16LE(pos);
          const b = bucketOf(window, pos + 2, l);
          if (b >= lo && b < hi) add(window.toString("latin1", pos + 2, pos + 2 + l), r.ordinal, (logged.get(r.ordinal) ?? 0) > 1 ? BOUND_UNKNOWN : window.readUInt16LE(r.codesAt + 2 * i));
          pos += 2 + l;
        }
      });
      const keys = [...map.keys()].sort();
      for (const key of keys) {
        const list = map.get(key) as number[];
        map.delete(key);
        list.sort((a, b) => a - b);
        const ordinals: number[] = [];
        const codes: number[] = [];
        for (let k = 0; k < list.length; k++) {
          const v = list[k] as number;
          const o = Math.floor(v / 65536);
          if (k + 1 < list.length && Math.floor((list[k + 1] as number) / 65536) === o) continue;
          ordinals.push(o);
          codes.push(v % 65536);
        }
        yield { key: Buffer.from(key, "latin1"), ordinals, codes };
      }
    }
    lo = hi;
  }
}

/**
 * Folds the log into a new base when it outweighs its share (or `force`); the sessions no longer live are
 * left out. `limits`: term occurrences gathered in memory at once, bytes of the log read at once (tests make them small).
 */
export function mergeDictionary(files: DictionaryFiles, live: readonly HistorySession[], force: boolean, limits: { rangeTerms: number; windowBytes: number } = { rangeTerms: RANGE_TERMS, windowBytes: WINDOW }): boolean | "restart" {
  const sizeOf = (path: string): number | null => {
    try {
      return statSync(path).size;
    } catch {
      return null;
    }
  };
  const logSize = sizeOf(files.logPath);
  const baseSize = sizeOf(files.basePath);
  if (logSize === null || logSize === 0) return false;
  if (!force && baseSize !== null && logSize < Math.max(LOG_FLOOR, baseSize * LOG_SHARE)) return false;
  const baseBytes = readCacheBytes(files.basePath);
  let base: DictionaryBase | null = null;
  if (baseBytes !== null) {
    try {
      base = new DictionaryBase(baseBytes, files.basePath);
    } catch {
      // An unreadable base: start the history over; the sessions' segments still load as they are.
      rmSync(files.basePath, { force: true });
      rmSync(files.logPath, { force: true });
      rmSync(files.manifestPath, { force: true });
      return "restart";
    }
  }
  let fd: number;
  try {
    fd = openSync(files.logPath, "r");
  } catch {
    return false;
  }
  try {
    const alive = new Set(live.filter((s) => s.ordinal >= 0).map((s) => s.ordinal));
    const log = new LogWindows(fd, fstatSync(fd).size, limits.windowBytes);
    replaceFile(files.basePath, dictionaryChunks(mergedEntries(base, log, alive, limits.rangeTerms)), { mode: 0o600 });
  } finally {
    closeSync(fd);
  }
  replaceFile(files.logPath, Buffer.alloc(0), { mode: 0o600 });
  return true;
}
