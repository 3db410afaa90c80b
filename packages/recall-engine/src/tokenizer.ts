// Code-aware tokenization: each run of identifier/path characters yields its whole form plus its
// path segments and camelCase/snake_case parts, lowercased. Hand-written scanner (no regex), linear.

/** Characters that join parts into one compound token (`src/db/pool.ts`, `drizzle-orm`, `r:call_1`). */
function isJoiner(c: number): boolean {
  // . / \ - @ :
  return c === 46 || c === 47 || c === 92 || c === 45 || c === 64 || c === 58;
}
/** Segment separators: a compound split on these gives segments that are themselves searchable whole. */
function isSegmentSeparator(c: number): boolean {
  return c === 47 || c === 92 || c === 64 || c === 58;
}
function isAsciiWord(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 36;
}
const NON_ASCII_WORD = /[\p{L}\p{N}]/u;
function isWordChar(text: string, i: number, c: number): boolean {
  if (c < 128) return isAsciiWord(c);
  return NON_ASCII_WORD.test(text.charAt(i));
}
function isUpper(c: number): boolean {
  return c >= 65 && c <= 90;
}
function isLower(c: number): boolean {
  return c >= 97 && c <= 122;
}

/** Longer runs (base64 blobs, minified code) are indexed whole only: their parts are noise. */
const MAX_PART_SPLIT = 128;

/** Receives each term of a run; `whole` is true for the run's own (compound) form. */
export type TermSink = (term: string, whole: boolean) => void;

/** Calls `sink` for every term of `text`; returns the number of runs (the document length for BM25). */
export function tokenize(text: string, sink: TermSink): number {
  const n = text.length;
  let runs = 0;
  let i = 0;
  while (i < n) {
    let c = text.charCodeAt(i);
    if (!(isWordChar(text, i, c) || isJoiner(c))) {
      i++;
      continue;
    }
    const start = i;
    let simple = true; // only [a-z0-9]
    while (i < n) {
      c = text.charCodeAt(i);
      if (isJoiner(c)) simple = false;
      else if (isWordChar(text, i, c)) {
        if (!(isLower(c) || (c >= 48 && c <= 57))) simple = false;
      } else break;
      i++;
    }
    if (simple) {
      runs++;
      sink(text.slice(start, i), true);
      continue;
    }
    // Trim joiners at both ends ("cache?" was already cut; "pool.ts," / "/abs/path" / "--flag").
    let s = start;
    let e = i;
    while (s < e && isJoiner(text.charCodeAt(s))) s++;
    while (e > s && isJoiner(text.charCodeAt(e - 1))) e--;
    if (s === e) continue;
    runs++;
    emitCompound(text.slice(s, e), sink);
  }
  return runs;
}

/** Emits `term` unless this run already emitted it (runs have few parts: a linear scan beats a Set). */
function emitOnce(seen: string[], term: string, sink: TermSink): void {
  if (term.length === 0) return;
  for (let k = 0; k < seen.length; k++) if (seen[k] === term) return;
  seen.push(term);
  sink(term, false);
}

/** Emits each piece of `raw[from, to)` split on `isSep` (joiners trimmed off its ends), when there are 2+. */
function emitPieces(
  raw: string,
  from: number,
  to: number,
  isSep: (c: number) => boolean,
  lowerSlice: (a: number, b: number) => string,
  seen: string[],
  sink: TermSink,
): void {
  let found = false;
  for (let k = from; k < to; k++) {
    if (isSep(raw.charCodeAt(k))) {
      found = true;
      break;
    }
  }
  if (!found) return;
  let pieceStart = from;
  for (let k = from; k <= to; k++) {
    if (k < to && !isSep(raw.charCodeAt(k))) continue;
    let a = pieceStart;
    let b = k;
    while (a < b && isJoiner(raw.charCodeAt(a))) a++;
    while (b > a && isJoiner(raw.charCodeAt(b - 1))) b--;
    if (b > a) emitOnce(seen, lowerSlice(a, b), sink);
    pieceStart = k + 1;
  }
}

function isDot(c: number): boolean {
  return c === 46;
}

/**
 * Terms of one trimmed run, deduplicated within the run: the whole run, its path/scope segments
 * (`src/db/pool.ts` → `pool.ts`), each segment's `.` pieces (`drizzle-orm.config` → `drizzle-orm`),
 * every joiner-separated piece (`this.editor.addToHistory` → `addtohistory`, `a::b`, `a->b`, `a-b`),
 * then atoms (camelCase / snake_case parts). Every identifier-like piece is thus findable whole;
 * a compound query token still needs the whole compound (its pieces are only its parts).
 */
export function emitCompound(raw: string, sink: TermSink): void {
  const whole = raw.toLowerCase();
  sink(whole, true);
  const n = raw.length;
  if (n > MAX_PART_SPLIT) return;
  // Slicing the lowered string is only safe when lowercasing kept every position (ASCII, most text).
  const aligned = whole.length === n;
  const lowerSlice = (a: number, b: number): string => (aligned ? whole.slice(a, b) : raw.slice(a, b).toLowerCase());
  const seen: string[] = [whole];
  // Path/scoped segments: `src/db/pool.ts` → `pool.ts`; `drizzle-orm@0.30` → `drizzle-orm`.
  emitPieces(raw, 0, n, isSegmentSeparator, lowerSlice, seen, sink);
  // `.` pieces inside each segment keep their `-` (`drizzle-orm.config.ts` → `drizzle-orm`).
  let hasDash = false;
  for (let k = 0; k < n; k++) {
    if (raw.charCodeAt(k) === 45) {
      hasDash = true;
      break;
    }
  }
  if (hasDash) {
    let segStart = 0;
    let segDash = false;
    for (let k = 0; k <= n; k++) {
      const c = k < n ? raw.charCodeAt(k) : 0;
      if (k < n && !isSegmentSeparator(c)) {
        if (c === 45) segDash = true;
        continue;
      }
      // Without a `-`, a segment's `.` pieces are its joiner pieces (emitted next).
      if (segDash) emitPieces(raw, segStart, k, isDot, lowerSlice, seen, sink);
      segStart = k + 1;
      segDash = false;
    }
  }
  // Every joiner-separated piece whole: `extracted_tables.xlsx` → `extracted_tables`, `AsciinemaPlayer.create` → `asciinemaplayer`.
  emitPieces(raw, 0, n, isJoiner, lowerSlice, seen, sink);
  // Atoms: split on joiners, `_`, `$` and camelCase boundaries (`XMLHttpRequest` → xml, http, request).
  let atomStart = -1;
  for (let k = 0; k <= n; k++) {
    const c = k < n ? raw.charCodeAt(k) : 0;
    if (k === n || isJoiner(c) || c === 95 || c === 36) {
      if (atomStart >= 0) emitOnce(seen, lowerSlice(atomStart, k), sink);
      atomStart = -1;
      continue;
    }
    if (atomStart < 0) {
      atomStart = k;
      continue;
    }
    if (isUpper(c)) {
      const prev = raw.charCodeAt(k - 1);
      if (isLower(prev) || (isUpper(prev) && k + 1 < n && isLower(raw.charCodeAt(k + 1)))) {
        emitOnce(seen, lowerSlice(atomStart, k), sink);
        atomStart = k;
      }
    }
  }
}

/** One query token: the term a block must hold (`primary`) and the parts that only add to its score. */
export interface QueryTerm {
  readonly primary: string;
  readonly parts: readonly string[];
}

/** Splits free text the way documents are split, keeping each run's whole form apart from its parts. */
export function queryTerms(text: string): QueryTerm[] {
  const out: QueryTerm[] = [];
  let current: { primary: string; parts: string[] } | undefined;
  tokenize(text, (term, whole) => {
    if (whole) {
      current = { primary: term, parts: [] };
      out.push(current);
    } else if (current !== undefined) current.parts.push(term);
  });
  return out;
}
