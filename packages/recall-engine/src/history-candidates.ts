// Which sessions of a history can answer a word query: the terms ranking would match its words by (the
// token, its stem, the terms either begins, the pieces), looked up in the dictionary base and its log, so
// a search opens only those sessions' segments.
import { closeSync, fstatSync, openSync } from "node:fs";
import { readCacheBytes } from "./index-cache.js";
import { DictionaryBase, logCandidates } from "./history-dictionary.js";
import { parseQuery, piecesOf, type ParsedQuery } from "./query.js";
import { stemOf } from "./stem.js";
import { MIN_PREFIX } from "./term-prefixes.js";

/** The sessions the dictionary says may hold a hit of `query` (a regex, or `user`, may be in any). */
export function historyCandidates(basePath: string, logPath: string, query: string, regex: boolean): Set<number> | "all" {
  const parsed = parseQuery(query, regex ? { regex: true } : {});
  if (parsed.mode !== "words") return "all";
  let fd = -1;
  let base: DictionaryBase;
  try {
    fd = openSync(basePath, "r");
    base = DictionaryBase.inPlace(fd, fstatSync(fd).size, basePath);
  } catch (error) {
    if (fd >= 0) closeSync(fd);
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return candidatesIn(logPath, parsed, DictionaryBase.empty());
    return "all";
  }
  try {
    return candidatesIn(logPath, parsed, base);
  } catch (error) {
    // Bytes that do not read as a dictionary: every session may hold a hit (the next merge rewrites it).
    if (error instanceof RangeError) return "all";
    throw error;
  } finally {
    closeSync(fd);
  }
}

/** The sessions `base` and the log list for the terms ranking would match `parsed`'s words by. */
function candidatesIn(logPath: string, parsed: Extract<ParsedQuery, { mode: "words" }>, base: DictionaryBase): Set<number> | "all" {
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
  const logBytes = readCacheBytes(logPath);
  if (logBytes !== null) logCandidates(logBytes, exacts, prefixes, out);
  return out;
}
