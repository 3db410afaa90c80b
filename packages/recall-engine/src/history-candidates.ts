// Which sessions of a history can answer a word query: the terms ranking would match its words by (the
// token, its stem, the terms either begins, the pieces), looked up in the dictionary base and its log, so
// a search opens only those sessions' segments; and, from the score bounds the base keeps per term and
// session, an upper bound of any score each can give (rank.ts wordsBoundPlan), so a search ranks the
// sessions best first and leaves out those that cannot reach the page without opening them.
import { closeSync, fstatSync, openSync } from "node:fs";
import { readCacheBytes } from "./index-cache.js";
import { boundOfCode, DictionaryBase, type DictionaryPages, idfOfCode, logCandidates, stemKey, unionKey } from "./history-dictionary.js";
import { parseQuery, piecesOf, type ParsedQuery } from "./query.js";
import { NO_TERMS, type TermBounds, type TermsBound, wordsBoundPlan } from "./rank.js";
import { stemOf } from "./stem.js";
import { MIN_PREFIX } from "./term-prefixes.js";

/** What the dictionary says of a query's sessions. */
export interface HistoryCandidates {
  /** The sessions that may hold a hit ("all": a regex, or `user`, may be in any). */
  readonly want: Set<number> | "all";
  /**
   * Per candidate, an upper bound of any score it can give; absent where the dictionary keeps none (a
   * session grown or added since the base was written, one not served from a segment, a query with
   * phrases): its segment bounds it.
   */
  readonly bounds: ReadonlyMap<number, number>;
}

const NONE: ReadonlyMap<number, number> = new Map();

/**
 * The sessions the dictionary says may hold a hit of `query`, and their score bounds. `docCountOf`: a
 * session's block count, where the manifest keeps it (a compound token's match inside a longer one is
 * bounded by it; without it such a session is left unbounded). `kept`: the base's pages an earlier search
 * of the process read (reused while the base file is the same one; a search adds those it reads).
 */
export function historyCandidates(basePath: string, logPath: string, query: string, regex: boolean, docCountOf: (ordinal: number) => number | undefined = () => undefined, kept?: DictionaryPages): HistoryCandidates {
  const parsed = parseQuery(query, regex ? { regex: true } : {});
  if (parsed.mode !== "words") return { want: "all", bounds: NONE };
  let fd = -1;
  let base: DictionaryBase;
  try {
    fd = openSync(basePath, "r");
    const st = fstatSync(fd);
    base = DictionaryBase.inPlace(fd, st.size, basePath, kept?.forFile(st));
  } catch (error) {
    if (fd >= 0) closeSync(fd);
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return candidatesIn(logPath, parsed, DictionaryBase.empty(), docCountOf);
    return { want: "all", bounds: NONE };
  }
  try {
    return candidatesIn(logPath, parsed, base, docCountOf);
  } catch (error) {
    // Bytes that do not read as a dictionary: every session may hold a hit (the next merge rewrites it).
    if (error instanceof RangeError) return { want: "all", bounds: NONE };
    throw error;
  } finally {
    closeSync(fd);
  }
}

/** The sessions `base` and the log list for the terms ranking would match `parsed`'s words by, and the score bounds of those only the base lists. */
function candidatesIn(logPath: string, parsed: Extract<ParsedQuery, { mode: "words" }>, base: DictionaryBase, docCountOf: (ordinal: number) => number | undefined): HistoryCandidates {
  const exacts = new Set<string>();
  const prefixes: string[] = [];
  // What ranking matches a token by (rank.ts): the token, its stem, the terms either begins, the pieces.
  for (const term of parsed.terms) {
    // Ranking matches `user` to the user's own messages, whatever their words.
    if (term.primary === "user") return { want: "all", bounds: NONE };
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
  const logged = new Set<number>();
  const logBytes = readCacheBytes(logPath);
  if (logBytes !== null) logCandidates(logBytes, exacts, prefixes, out, logged);
  return { want: out, bounds: parsed.phrases.length > 0 ? NONE : boundsOf(base, parsed, [...out].filter((o) => !logged.has(o)), docCountOf) };
}

/**
 * What some terms' codes say per session, by ordinal (below `size`; others are never asked): their
 * bounds summed, the least of their idfs and how many they are (rank.ts TermsBound), as columns: a
 * common word's prefix runs to tens of thousands of (term, session) codes per query.
 */
class SessionColumns {
  private readonly bound: Float64Array;
  private readonly idf: Float64Array;
  private readonly count: Uint32Array;
  constructor(size: number) {
    this.bound = new Float64Array(size);
    this.idf = new Float64Array(size).fill(Number.POSITIVE_INFINITY);
    this.count = new Uint32Array(size);
  }
  /** The one term's code of session `o`. */
  set(o: number, code: number): void {
    if (o >= this.count.length) return;
    this.bound[o] = boundOfCode(code);
    this.idf[o] = idfOfCode(code);
    this.count[o] = 1;
  }
  /** One more term's code of session `o`. */
  add(o: number, code: number): void {
    if (o >= this.count.length) return;
    this.bound[o] = (this.bound[o] as number) + boundOfCode(code);
    this.idf[o] = Math.min(this.idf[o] as number, idfOfCode(code));
    this.count[o] = (this.count[o] as number) + 1;
  }
  holds(o: number): boolean {
    return (this.count[o] ?? 0) > 0;
  }
  boundOf(o: number): number {
    return this.bound[o] ?? 0;
  }
  at(o: number): TermsBound {
    const count = this.count[o] ?? 0;
    return count === 0 ? NO_TERMS : { bound: this.bound[o] as number, idf: this.idf[o] as number, count };
  }
}

/**
 * The score bound of each of `ordinals` from the base's per-term bounds (a session with a log record is
 * left out by the caller: its base bounds may be older than its segment). Each term ranking asks for is
 * read from the base once, for every session.
 */
function boundsOf(base: DictionaryBase, parsed: Extract<ParsedQuery, { mode: "words" }>, ordinals: readonly number[], docCountOf: (ordinal: number) => number | undefined): Map<number, number> {
  let size = 0;
  for (const o of ordinals) size = Math.max(size, o + 1);
  const exactRead = new Map<string, SessionColumns>();
  const exactOf = (term: string): SessionColumns => {
    let found = exactRead.get(term);
    if (found === undefined) {
      const into = new SessionColumns(size);
      base.eachExact(term, (o, code) => into.set(o, code));
      exactRead.set(term, into);
      found = into;
    }
    return found;
  };
  // By prefix, then the term left out: no key string is built per session asked.
  const prefixRead = new Map<string, Map<string, SessionColumns>>();
  const prefixOf = (prefix: string, except: string): SessionColumns => {
    let byExcept = prefixRead.get(prefix);
    if (byExcept === undefined) {
      byExcept = new Map();
      prefixRead.set(prefix, byExcept);
    }
    let found = byExcept.get(except);
    if (found === undefined) {
      const into = new SessionColumns(size);
      const own = Buffer.from(prefix, "utf8");
      const left = Buffer.from(except, "utf8");
      // The terms longer than the prefix (as ranking expands it), but the one left out, summed per session.
      base.eachPrefixedEntry(prefix, (term, ordinals, n, codes, codesAt) => {
        if (term.equals(own) || term.equals(left)) return;
        for (let i = 0; i < n; i++) into.add(ordinals[i] as number, codes.readUInt16LE(codesAt + 2 * i));
      });
      byExcept.set(except, into);
      found = into;
    }
    return found;
  };
  // A token's prefix match, as kept under its union key; 0 where the session holds the token (its code
  // known: built whole, never grown) but kept no union (no longer term begins it); else not kept.
  const unionRead = new Map<string, SessionColumns>();
  const unionOf = (token: string, o: number): number | null => {
    let kept = unionRead.get(token);
    if (kept === undefined) {
      kept = exactOf(unionKey(token));
      unionRead.set(token, kept);
    }
    if (kept.holds(o)) return Number.isFinite(kept.boundOf(o)) ? kept.boundOf(o) : null;
    const own = exactOf(token);
    return own.holds(o) && Number.isFinite(own.boundOf(o)) ? 0 : null;
  };
  // The prefix match of a token the session does not hold, as kept under its stem's key; else not kept.
  const stemUnionOf = (stem: string, o: number): number | null => {
    const kept = exactOf(stemKey(stem));
    return kept.holds(o) && Number.isFinite(kept.boundOf(o)) ? kept.boundOf(o) : null;
  };
  const out = new Map<number, number>();
  const boundOf = wordsBoundPlan(parsed, (word) => word === "user");
  // One view of the columns, at the session `at` names (a thousand sessions are asked, each of the same terms).
  let at = 0;
  const terms: TermBounds = {
    exact: (term) => exactOf(term).at(at),
    prefixed: (prefix, except) => prefixOf(prefix, except).at(at),
    union: (token) => unionOf(token, at),
    stemUnion: (stem) => stemUnionOf(stem, at),
    get docCount() {
      return docCountOf(at);
    },
  };
  for (const o of ordinals) {
    at = o;
    const bound = boundOf(terms);
    if (Number.isFinite(bound)) out.set(o, bound);
  }
  return out;
}
