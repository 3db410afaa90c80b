// Folding a history's dictionary log into a new base: the log (terms sessions gained, appended with a
// checksum) is cheap to write but scanned whole by each search, so once it outweighs its share of the base
// it is merged in, and the sessions no longer live are dropped from the lists. The merge never holds every
// term at once (a first build's log lists every term of every session): the terms are taken in ranges of
// their first two bytes, each range small enough to gather in memory, sorted and streamed to the new base.
import { rmSync, statSync } from "node:fs";
import { replaceFile } from "@context-fold/durable-fs";
import { readCacheBytes } from "./index-cache.js";
import { DictionaryBase, dictionaryChunks, type DictionaryEntry, type LogRecordRange, logRecordRanges } from "./history-dictionary.js";
import type { HistorySession } from "./history-types.js";

/** The log is folded into a new base once it outweighs this share of the base (and this floor). */
const LOG_SHARE = 0.5;
const LOG_FLOOR = 256 * 1024;
/** Term occurrences (log) and entries (base) gathered per range, at most (one two-byte start may hold more). */
const RANGE_TERMS = 400_000;
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

/**
 * The merged entries, sorted by term bytes: the base's and the log's, each range of buckets gathered in
 * a map keyed by the terms' bytes as latin1 (whose string order is their byte order), ordinals kept only
 * for live sessions, sorted and each once.
 */
function* mergedEntries(base: DictionaryBase | null, log: Buffer, records: readonly LogRecordRange[], alive: ReadonlySet<number>, rangeTerms: number): Generator<DictionaryEntry> {
  const counts = new Uint32Array(BUCKETS + 1);
  const count = (b: number): void => {
    counts[b] = (counts[b] as number) + 1;
  };
  if (base !== null) for (const key of base.keys()) count(bucketOf(key, 0, key.length));
  for (const r of records) {
    let pos = r.termsAt;
    for (let i = 0; i < r.count; i++) {
      const l = log.readUInt16LE(pos);
      count(bucketOf(log, pos + 2, l));
      pos += 2 + l;
    }
  }
  const baseIt: Iterator<DictionaryEntry> = base === null ? [][Symbol.iterator]() : base.entries();
  let nextBase = baseIt.next();
  let lo = 0;
  while (lo < BUCKETS) {
    let hi = lo;
    let held = 0;
    while (hi < BUCKETS && (hi === lo || held + (counts[hi] as number) <= rangeTerms)) held += counts[hi++] as number;
    if (held > 0) {
      const map = new Map<string, number[]>();
      const add = (key: string, o: number): void => {
        if (!alive.has(o)) return;
        const list = map.get(key);
        if (list === undefined) map.set(key, [o]);
        else list.push(o);
      };
      while (nextBase.done !== true && bucketOf(nextBase.value.key, 0, nextBase.value.key.length) < hi) {
        const key = nextBase.value.key.toString("latin1");
        for (const o of nextBase.value.ordinals) add(key, o);
        nextBase = baseIt.next();
      }
      for (const r of records) {
        let pos = r.termsAt;
        for (let i = 0; i < r.count; i++) {
          const l = log.readUInt16LE(pos);
          const b = bucketOf(log, pos + 2, l);
          if (b >= lo && b < hi) add(log.toString("latin1", pos + 2, pos + 2 + l), r.ordinal);
          pos += 2 + l;
        }
      }
      const keys = [...map.keys()].sort();
      for (const key of keys) {
        const list = map.get(key) as number[];
        map.delete(key);
        list.sort((a, b) => a - b);
        const ordinals = list.filter((o, k) => k === 0 || o !== list[k - 1]);
        yield { key: Buffer.from(key, "latin1"), ordinals };
      }
    }
    lo = hi;
  }
}

/**
 * Folds the log into a new base when it outweighs its share (or `force`); the sessions no longer live are
 * left out. `rangeTerms`: term occurrences gathered in memory at once (tests make it small).
 */
export function mergeDictionary(files: DictionaryFiles, live: readonly HistorySession[], force: boolean, rangeTerms = RANGE_TERMS): boolean | "restart" {
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
  const logBytes = readCacheBytes(files.logPath);
  const baseBytes = readCacheBytes(files.basePath);
  if (logBytes === null) return false;
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
  const alive = new Set(live.filter((s) => s.ordinal >= 0).map((s) => s.ordinal));
  replaceFile(files.basePath, dictionaryChunks(mergedEntries(base, logBytes, logRecordRanges(logBytes).records, alive, rangeTerms)), { mode: 0o600 });
  replaceFile(files.logPath, Buffer.alloc(0), { mode: 0o600 });
  return true;
}
