// Folding a history's dictionary log into a new base: the log (terms sessions gained, appended with a
// checksum) is cheap to write but scanned whole by each search, so once it outweighs its share of the base
// it is merged in, and the sessions no longer live are dropped from the lists.
import { rmSync, statSync } from "node:fs";
import { replaceFile } from "@context-fold/durable-fs";
import { readCacheBytes } from "./index-cache.js";
import { decodeLog, DictionaryBase, DictionaryLog, encodeDictionary, type TermSessions } from "./history-dictionary.js";
import type { HistorySession } from "./history-types.js";

/** The log is folded into a new dictionary base once it outweighs this share of the base (and this floor). */
const LOG_SHARE = 0.5;
const LOG_FLOOR = 256 * 1024;

/** A history's dictionary files and its manifest (removed with them when the base cannot be read). */
export interface DictionaryFiles {
  readonly basePath: string;
  readonly logPath: string;
  readonly manifestPath: string;
}

/** Folds the log into a new base when it outweighs its share; the sessions no longer live are left out. */
export function mergeDictionary(files: DictionaryFiles, live: readonly HistorySession[], force: boolean): boolean | "restart" {
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
  const map: TermSessions = new Map();
  if (baseBytes !== null) {
    try {
      for (const [term, list] of new DictionaryBase(baseBytes, files.basePath).toMap()) map.set(term, list);
    } catch {
      // An unreadable base: start the history over; the sessions' segments still load as they are.
      rmSync(files.basePath, { force: true });
      rmSync(files.logPath, { force: true });
      rmSync(files.manifestPath, { force: true });
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
  replaceFile(files.basePath, encodeDictionary(map), { mode: 0o600 });
  replaceFile(files.logPath, Buffer.alloc(0), { mode: 0o600 });
  return true;
}
