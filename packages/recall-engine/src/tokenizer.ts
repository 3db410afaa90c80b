// Code-aware tokenization: each run of identifier/path characters yields its whole form plus its
// path segments, pieces and camelCase/snake_case parts, lowercased. Hand-written scanner (no regex), linear.

// Per-ASCII-char classes from one table lookup (the scanner's inner loop runs once per input char).
const WORD = 1;
/** `.` `/` `\` `-` `@` `:` join parts into one compound token (`src/db/pool.ts`, `drizzle-orm`, `r:call_1`). */
const JOINER = 2;
/** [a-z0-9]: a run of only these is already its own lowercase whole (no parts). */
const PLAIN = 4;
const UPPER = 8;
/** `/` `\` `@` `:` split a compound into segments that are themselves searchable whole. */
const SEGMENT = 16;
/** `_` `$` split atoms but not pieces. */
const ATOM_SPLIT = 32;
/** A letter or digit outside ASCII (the run is lowered as a string, not char by char). */
const NON_ASCII = 64;
const DIGIT = 128;
const LOWER = 256;
/** `-` and `.`: a run holding both may have a segment whose `.` pieces keep a `-` (`drizzle-orm.config`). */
const DASH = 512;
const DOT = 1024;
const CLASS = new Uint16Array(128);
for (let c = 0; c < 128; c++) {
  let k = 0;
  if ((c >= 97 && c <= 122) || (c >= 48 && c <= 57)) k |= WORD | PLAIN;
  if (c >= 48 && c <= 57) k |= DIGIT;
  if (c >= 97 && c <= 122) k |= LOWER;
  if (c >= 65 && c <= 90) k |= WORD | UPPER;
  if (c === 95 || c === 36) k |= WORD | ATOM_SPLIT;
  if (c === 46 || c === 45) k |= JOINER | (c === 45 ? DASH : DOT);
  if (c === 47 || c === 92 || c === 64 || c === 58) k |= JOINER | SEGMENT;
  CLASS[c] = k;
}
const NON_ASCII_WORD = /[\p{L}\p{N}]/u;
/**
 * The class of a UTF-16 code unit ≥ 128, memoised per code unit (1 + class; 0: not asked yet): the
 * Unicode property test allocates a one-character string, and Korean or Japanese text asks it per char.
 * Per code unit, as the test itself is (a lone surrogate is no letter).
 */
const NON_ASCII_CLASS = new Uint8Array(0x10000);
function nonAsciiClass(text: string, i: number, c: number): number {
  const memo = NON_ASCII_CLASS[c] as number;
  if (memo !== 0) return memo - 1;
  const k = NON_ASCII_WORD.test(text.charAt(i)) ? WORD | NON_ASCII : 0;
  NON_ASCII_CLASS[c] = k + 1;
  return k;
}
function isJoiner(c: number): boolean {
  return c < 128 && ((CLASS[c] as number) & JOINER) !== 0;
}
function isSegmentSeparator(c: number): boolean {
  return c < 128 && ((CLASS[c] as number) & SEGMENT) !== 0;
}
function isUpper(c: number): boolean {
  return c >= 65 && c <= 90;
}
function isLower(c: number): boolean {
  return c >= 97 && c <= 122;
}
function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}
/** A letter inside a run: ASCII letters, and any non-ASCII character (runs hold only letters and digits). */
function isRunLetter(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c >= 128;
}

/**
 * Han, Hiragana, Katakana and Hangul: scripts written without spaces between words, so a run of them
 * is also indexed as character bigrams (a word inside a compound is then found by its bigrams).
 */
export function isCjk(c: number): boolean {
  return (
    (c >= 0xac00 && c <= 0xd7af) || // Hangul syllables
    (c >= 0x1100 && c <= 0x11ff) || // Hangul Jamo
    (c >= 0x3130 && c <= 0x318f) || // Hangul compatibility Jamo
    (c >= 0x3040 && c <= 0x30ff) || // Hiragana, Katakana
    (c >= 0x3400 && c <= 0x4dbf) || // CJK extension A
    (c >= 0x4e00 && c <= 0x9fff) || // CJK unified ideographs
    (c >= 0xf900 && c <= 0xfaff) // CJK compatibility ideographs
  );
}

/**
 * Longer runs (long URLs and paths, base64 blobs, minified code) get their joiner and `_` pieces only:
 * camelCase and letter/digit parts of such runs are noise.
 */
const MAX_PART_SPLIT = 128;
/** An atom with more letter/digit boundaries than this is an opaque id (`4b1e9d07`), not name + number. */
const MAX_DIGIT_BOUNDARIES = 2;

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/**
 * FNV-1a over the UTF-16 code units of `s[a, b)` with ASCII letters lowered: the term table's hash.
 * Terms travel as ranges of the source text whose ASCII capitals are lowered on the fly.
 */
export function termHash(s: string, a = 0, b = s.length): number {
  let h = FNV_OFFSET;
  for (let k = a; k < b; k++) {
    const c = s.charCodeAt(k);
    h = Math.imul(h ^ (c >= 65 && c <= 90 ? c + 32 : c), FNV_PRIME);
  }
  return h;
}

/** `s[a, b)` equals `t[ta, ta + (b - a))` once ASCII capitals of both are lowered. */
export function sameTerm(s: string, a: number, b: number, t: string, ta: number): boolean {
  for (let k = a; k < b; k++) {
    let x = s.charCodeAt(k);
    let y = t.charCodeAt(ta + k - a);
    if (x === y) continue;
    if (x >= 65 && x <= 90) x += 32;
    if (y >= 65 && y <= 90) y += 32;
    if (x !== y) return false;
  }
  return true;
}

/** The term `src[a, b)` names: ASCII capitals lowered (the only capitals a term range may hold). */
export function termText(src: string, a: number, b: number): string {
  const t = src.slice(a, b);
  for (let k = 0; k < t.length; k++) {
    const c = t.charCodeAt(k);
    // A range with ASCII capitals is all ASCII (non-ASCII runs are lowered first): plain toLowerCase.
    if (c >= 65 && c <= 90) return t.toLowerCase();
  }
  return t;
}

/** Receives each term of a run; `whole` is true for the run's own (compound) form. */
export type TermSink = (term: string, whole: boolean) => void;

/**
 * Receives each term as the range `src[start, end)` with its `termHash`; the term is that range with
 * ASCII capitals lowered (other characters are already lowercase). The index looks terms up without
 * slicing a string per token.
 */
export type TermRangeSink = (src: string, start: number, end: number, hash: number, whole: boolean) => void;

/** Calls `sink` for every term of `text`; returns the number of runs (the document length for BM25). */
export function tokenize(text: string, sink: TermSink): number {
  return scanTerms(text, (src, a, b, _hash, whole) => {
    sink(termText(src, a, b), whole);
  });
}

/** `tokenize` with terms as hashed ranges (no per-term strings). */
export function scanTerms(text: string, sink: TermRangeSink): number {
  return scanRuns(text, (src, start, end, hash, kinds) => {
    runTerms(src, start, end, hash, kinds, sink);
  });
}

/** Set in a run's `kinds` when joiners were trimmed off its ends (its classes are then recounted). */
const TRIMMED = 2048;

/**
 * Receives each run as the range `src[start, end)` (joiners trimmed off its ends) with its `termHash`
 * and `kinds`, an opaque summary of its characters that `runTerms` takes back. A run's terms depend on
 * its exact text alone, so the index build expands each distinct run once (`runTerms`) and repeats the
 * same terms for every later occurrence of that text.
 */
export type RunSink = (src: string, start: number, end: number, hash: number, kinds: number) => void;

/** Calls `sink` for every run of `text` (the runs `scanTerms` splits); returns their number (the document length for BM25). */
export function scanRuns(text: string, sink: RunSink): number {
  const n = text.length;
  let runs = 0;
  let i = 0;
  while (i < n) {
    let c = text.charCodeAt(i);
    let k = c < 128 ? (CLASS[c] as number) : nonAsciiClass(text, i, c);
    if (k === 0) {
      i++;
      continue;
    }
    const start = i;
    let kinds = 0; // union of the run's char classes
    let h = FNV_OFFSET; // of the run with ASCII capitals lowered (UPPER << 2 is 32: A → a, branch-free)
    while (true) {
      kinds |= k;
      h = Math.imul(h ^ (c + ((k & UPPER) << 2)), FNV_PRIME);
      i++;
      if (i >= n) break;
      c = text.charCodeAt(i);
      k = c < 128 ? (CLASS[c] as number) : nonAsciiClass(text, i, c);
      if (k === 0) break;
    }
    if ((kinds & JOINER) === 0) {
      runs++;
      sink(text, start, i, h, kinds);
      continue;
    }
    // Trim joiners at both ends ("cache?" was already cut; "pool.ts," / "/abs/path" / "--flag").
    let s = start;
    let e = i;
    while (s < e && isJoiner(text.charCodeAt(s))) s++;
    while (e > s && isJoiner(text.charCodeAt(e - 1))) e--;
    if (s === e) continue;
    runs++;
    if (s === start && e === i) sink(text, s, e, h, kinds);
    else sink(text, s, e, termHash(text, s, e), kinds | TRIMMED);
  }
  return runs;
}

/**
 * Whether a run with these `kinds` (from `scanRuns`) is its only term: all lowercase letters, or all
 * digits. Such a run is the term itself (`src[start, end)` with its hash).
 */
export function isWholeOnlyRun(kinds: number): boolean {
  return (kinds & ~(WORD | PLAIN | LOWER)) === 0 || (kinds & ~(WORD | PLAIN | DIGIT)) === 0;
}

/** The terms of one run `src[start, end)` as `scanRuns` gave it (`hash`, `kinds` from there), deduplicated within the run. */
export function runTerms(src: string, start: number, end: number, hash: number, kinds: number, sink: TermRangeSink): void {
  if (isWholeOnlyRun(kinds)) {
    sink(src, start, end, hash, true);
    return;
  }
  // Lowercase letters and digits only (`sha256`, `5f49cd`): the whole, and its name/number parts
  // without the compound machinery (the same terms `emitAtom` gives, found here in one short pass).
  if ((kinds & ~(WORD | PLAIN | LOWER | DIGIT)) === 0) {
    sink(src, start, end, hash, true);
    if (end - start <= MAX_PART_SPLIT) emitDigitParts(src, start, end, sink);
    return;
  }
  if ((kinds & NON_ASCII) !== 0) compoundTerms(src, start, end, sink, null, 0, -1);
  // Untrimmed, the run's classes are known already (its splits need no second pass).
  else compoundTerms(src, start, end, sink, src, hash, (kinds & TRIMMED) === 0 ? kinds : -1);
}

/** The letter and digit parts of a lowercase run `text[a, b)` with one or two boundaries, each once. */
function emitDigitParts(text: string, a: number, b: number, sink: TermRangeSink): void {
  let boundaries = 0;
  for (let k = a + 1; k < b; k++) if (isDigit(text.charCodeAt(k - 1)) !== isDigit(text.charCodeAt(k))) boundaries++;
  if (boundaries === 0 || boundaries > MAX_DIGIT_BOUNDARIES) return;
  let from = a;
  let first = -1;
  for (let k = a + 1; k <= b; k++) {
    if (k < b && isDigit(text.charCodeAt(k - 1)) === isDigit(text.charCodeAt(k))) continue;
    // With three parts the last may repeat the first (`ab12ab`): emitted once.
    const repeat = first >= 0 && k - from === first - a && sameTerm(text, from, k, text, a);
    if (!repeat) sink(text, from, k, termHash(text, from, k), false);
    if (first < 0) first = k;
    from = k;
  }
}

// Terms this run already emitted, as ranges (runs have few parts: a linear scan beats a Set).
// Module scratch: the tokenizer is synchronous and never re-entered.
const seenSrc: string[] = [];
let seenStart: Int32Array = new Int32Array(64);
let seenEnd: Int32Array = new Int32Array(64);
let seenHash: Int32Array = new Int32Array(64);
let seenCount = 0;
const MAX_RUN_TERMS = 256;

/**
 * One run's terms go through here: `src[a, b)` is the term (ASCII capitals still to lower), deduplicated
 * within the run.
 */
function emitOnce(src: string, a: number, b: number, h: number, sink: TermRangeSink, whole = false): void {
  // A run with more parts than this is a blob (base64 split by `/`): the rest of its parts are noise,
  // and the linear dedup below stays bounded.
  if (seenCount >= MAX_RUN_TERMS) return;
  const length = b - a;
  for (let k = 0; k < seenCount; k++) {
    const s = seenStart[k] as number;
    if (seenHash[k] === h && (seenEnd[k] as number) - s === length && sameTerm(src, a, b, seenSrc[k] as string, s)) return;
  }
  if (seenCount === seenStart.length) {
    const size = seenCount * 2;
    const grow = (x: Int32Array): Int32Array => {
      const next = new Int32Array(size);
      next.set(x);
      return next;
    };
    seenStart = grow(seenStart);
    seenEnd = grow(seenEnd);
    seenHash = grow(seenHash);
  }
  seenSrc[seenCount] = src;
  seenStart[seenCount] = a;
  seenEnd[seenCount] = b;
  seenHash[seenCount] = h;
  seenCount++;
  sink(src, a, b, h, whole);
}

/**
 * Where a run's terms are read from: the run itself (`lowered` is the text, positions shifted by
 * `base`) or, for non-ASCII runs, its lowercased copy (`lowered`, positions from 0) when lowercasing
 * kept every position; else (`lowered` null) each part is sliced and lowercased.
 */
let runText = "";
let runBase = 0;
let runLowered: string | null = null;
let runLoweredBase = 0;
/** The run is ASCII (`runLowered` is the text itself). */
let runAscii = false;

function emitPart(a: number, b: number, sink: TermRangeSink): void {
  if (b <= a) return;
  if (runLowered !== null) {
    const x = runLoweredBase + a;
    const y = runLoweredBase + b;
    let h = FNV_OFFSET;
    if (runAscii) {
      for (let k = x; k < y; k++) {
        const c = runLowered.charCodeAt(k);
        h = Math.imul(h ^ (c + (((CLASS[c] as number) & UPPER) << 2)), FNV_PRIME);
      }
    } else h = termHash(runLowered, x, y);
    emitOnce(runLowered, x, y, h, sink);
  } else {
    const part = runText.slice(runBase + a, runBase + b).toLowerCase();
    emitOnce(part, 0, part.length, termHash(part), sink);
  }
}

/** What `emitPieces` splits at, as class bits: `/` `\` `@` `:`; `.` alone; every joiner. */
const BY_SEGMENT = SEGMENT;
const BY_DOT = DOT;
const BY_JOINER = JOINER;

/** Emits each piece of the run's `[from, to)` split at the chars of class `by` (joiners trimmed off its ends). */
function emitPieces(from: number, to: number, by: number, sink: TermRangeSink): void {
  const text = runText;
  const base = runBase;
  let pieceStart = from;
  for (let k = from; k <= to; k++) {
    if (k < to) {
      const c = text.charCodeAt(base + k);
      if (c >= 128 || ((CLASS[c] as number) & by) === 0) continue;
    }
    let a = pieceStart;
    let b = k;
    while (a < b && isJoiner(text.charCodeAt(base + a))) a++;
    while (b > a && isJoiner(text.charCodeAt(base + b - 1))) b--;
    emitPart(a, b, sink);
    pieceStart = k + 1;
  }
}

/**
 * Terms of one trimmed run, deduplicated within the run: the whole run, its path/scope segments
 * (`src/db/pool.ts` → `pool.ts`), each segment's `.` pieces (`drizzle-orm.config` → `drizzle-orm`),
 * every joiner-separated piece (`this.editor.addToHistory` → `addtohistory`, `a::b`, `a->b`, `a-b`),
 * then atoms (camelCase / snake_case parts). Every identifier-like piece is thus findable whole;
 * a compound query token still needs the whole compound (its pieces are only its parts).
 */
export function emitCompound(raw: string, sink: TermSink): void {
  let ascii = true;
  for (let k = 0; k < raw.length; k++) if (raw.charCodeAt(k) >= 128) ascii = false;
  compoundTerms(raw, 0, raw.length, (src, a, b, _hash, whole) => {
    sink(termText(src, a, b), whole);
  }, ascii ? raw : null, ascii ? termHash(raw) : 0, -1);
}

/**
 * `asciiText` is `text` when the run is ASCII (terms are its own ranges), with the run's hash;
 * `knownKinds` the union of an ASCII run's char classes when the caller has it, else -1.
 */
function compoundTerms(text: string, s: number, e: number, sink: TermRangeSink, asciiText: string | null, asciiHash: number, knownKinds: number): void {
  const n = e - s;
  runText = text;
  runBase = s;
  seenCount = 0;
  runAscii = asciiText !== null;
  if (asciiText !== null) {
    runLowered = asciiText;
    runLoweredBase = s;
    emitOnce(text, s, e, asciiHash, sink, true);
  } else {
    const whole = text.slice(s, e).toLowerCase();
    runLowered = whole.length === n ? whole : null;
    runLoweredBase = 0;
    emitOnce(whole, 0, whole.length, termHash(whole), sink, true);
  }
  const long = n > MAX_PART_SPLIT;
  // One pass for which splits apply, unless the classes are known and rule out a dashed dotted segment.
  let kinds = knownKinds;
  let dashedDotSegment = false;
  let segDash = false;
  let segDot = false;
  let cjk = false;
  const scan = knownKinds < 0 || (knownKinds & (DASH | DOT)) === (DASH | DOT);
  if (scan) kinds = 0;
  for (let k = 0; scan && k <= n; k++) {
    const c = k < n ? text.charCodeAt(s + k) : 47;
    const cls = c < 128 ? (CLASS[c] as number) : 0;
    if (c >= 128 && isCjk(c)) cjk = true;
    kinds |= cls;
    if (k === n || (cls & SEGMENT) !== 0) {
      if (segDash && segDot) dashedDotSegment = true;
      segDash = false;
      segDot = false;
    } else if (c === 45) segDash = true;
    else if (c === 46) segDot = true;
  }
  if (cjk) emitBigrams(n, sink);
  // Path/scoped segments: `src/db/pool.ts` → `pool.ts`; `drizzle-orm@0.30` → `drizzle-orm`.
  if ((kinds & SEGMENT) !== 0) emitPieces(0, n, BY_SEGMENT, sink);
  // `.` pieces inside each segment holding a `-` keep it (`drizzle-orm.config.ts` → `drizzle-orm`).
  if (dashedDotSegment) {
    let segStart = 0;
    let dash = false;
    let dot = false;
    for (let k = 0; k <= n; k++) {
      const c = k < n ? text.charCodeAt(s + k) : 47;
      if (k < n && !isSegmentSeparator(c)) {
        if (c === 45) dash = true;
        else if (c === 46) dot = true;
        continue;
      }
      // Without a `-`, a segment's `.` pieces are its joiner pieces (emitted next).
      if (dash && dot) emitPieces(segStart, k, BY_DOT, sink);
      segStart = k + 1;
      dash = false;
      dot = false;
    }
  }
  // Every joiner-separated piece whole: `extracted_tables.xlsx` → `extracted_tables`, `AsciinemaPlayer.create` → `asciinemaplayer`.
  if ((kinds & JOINER) !== 0) emitPieces(0, n, BY_JOINER, sink);
  const digitSplits = !long && (kinds & DIGIT) !== 0 && ((kinds & (LOWER | UPPER)) !== 0 || asciiText === null);
  if ((kinds & (UPPER | ATOM_SPLIT)) === 0 && (kinds & JOINER) !== 0 && !digitSplits) return; // atoms = the joiner pieces
  // Atoms: split on joiners, `_`, `$` and camelCase boundaries (`XMLHttpRequest` → xml, http, request);
  // a long run only on joiners, `_` and `$`.
  let atomStart = -1;
  for (let k = 0; k <= n; k++) {
    const c = k < n ? text.charCodeAt(s + k) : 0;
    if (k === n || isJoiner(c) || c === 95 || c === 36) {
      if (atomStart >= 0) emitAtom(atomStart, k, digitSplits, sink);
      atomStart = -1;
      continue;
    }
    if (atomStart < 0) {
      atomStart = k;
      continue;
    }
    if (!long && isUpper(c)) {
      const prev = text.charCodeAt(s + k - 1);
      if (isLower(prev) || (isUpper(prev) && k + 1 < n && isLower(text.charCodeAt(s + k + 1)))) {
        emitAtom(atomStart, k, digitSplits, sink);
        atomStart = k;
      }
    }
  }
}

/** An atom, and its letter/digit parts when it reads as a name and a number (`sha256` → sha, 256; `5미만` → 5, 미만). */
function emitAtom(a: number, b: number, digitSplits: boolean, sink: TermRangeSink): void {
  emitPart(a, b, sink);
  if (!digitSplits) return;
  const text = runText;
  const base = runBase;
  let boundaries = 0;
  for (let k = a + 1; k < b; k++) {
    const x = text.charCodeAt(base + k - 1);
    const y = text.charCodeAt(base + k);
    if ((isDigit(x) && isRunLetter(y)) || (isRunLetter(x) && isDigit(y))) boundaries++;
  }
  if (boundaries === 0 || boundaries > MAX_DIGIT_BOUNDARIES) return;
  let from = a;
  for (let k = a + 1; k <= b; k++) {
    if (k < b) {
      const x = text.charCodeAt(base + k - 1);
      const y = text.charCodeAt(base + k);
      if (!((isDigit(x) && isRunLetter(y)) || (isRunLetter(x) && isDigit(y)))) continue;
    }
    emitPart(from, k, sink);
    from = k;
  }
}

/**
 * Character bigrams of each CJK stretch of the run (`호가잔량비율` → 호가, 가잔, 잔량, …). Not deduplicated
 * through `emitOnce` (a long unspaced paragraph would make that quadratic): a repeated bigram counts as
 * a repeated term, which is what it is.
 */
function emitBigrams(n: number, sink: TermRangeSink): void {
  const text = runText;
  const base = runBase;
  let from = -1;
  for (let k = 0; k <= n; k++) {
    const inside = k < n && isCjk(text.charCodeAt(base + k));
    if (inside) {
      if (from < 0) from = k;
      continue;
    }
    if (from >= 0 && k - from >= 2) {
      for (let j = from; j + 2 <= k; j++) {
        if (j === 0 && j + 2 === n) continue; // the whole run, already emitted
        if (runLowered !== null) {
          const x = runLoweredBase + j;
          sink(runLowered, x, x + 2, termHash(runLowered, x, x + 2), false);
        } else {
          const part = text.slice(base + j, base + j + 2).toLowerCase();
          sink(part, 0, part.length, termHash(part), false);
        }
      }
    }
    from = -1;
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
