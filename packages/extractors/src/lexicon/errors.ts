// The error lexicon: which lines of tool output are error lines, found verbatim and clipped to 240 chars.
// One linear-time regex (alternation of literals and bounded classes; no nested quantifiers).

/** Longest error line kept, in UTF-16 code units (a split surrogate pair at the cut is dropped). */
export const ERROR_LINE_MAX = 240;

// Each alternative is a literal or a bounded run, so a failed attempt costs O(alternatives) per position.
const MARKERS = [
  // lowercase forms summaries lose, plus their capitalised / shouted spellings
  String.raw`\b(?:[Ff]ail(?:ed|ure|ing)|FAIL(?:ED|URE)?|[Ff]atal|FATAL)\b`,
  String.raw`npm ERR!`,
  String.raw`Segmentation fault`,
  String.raw`Permission denied`,
  String.raw`core dumped`,
  String.raw`[✗✘✖]`,
  // tracebacks: Python, Java, Rust panics, Go panics, Node uncaught errors
  String.raw`Traceback \(most recent call last\)`,
  String.raw`Exception in thread`,
  String.raw`\bCaused by:`,
  String.raw`panicked at`,
  String.raw`\bpanic:`,
  String.raw`\bUncaught\b`,
  String.raw`\bUnhandled(?:PromiseRejection| promise rejection| exception)`,
  // error-class markers
  // lowercase "error" only where a tool prints it (line start), not "catch (error: unknown)" in code;
  // "\n…" rather than a multiline "^" (which V8 tries at every position); plain "^" is offset 0 only
  String.raw`\berror(?:\[E[0-9]{1,6}\]| TS[0-9]{1,6}\b)`,
  String.raw`\n[ \t]{0,8}(?:error|npm error|ERR!)\b`,
  String.raw`^[ \t]{0,8}(?:error|npm error|ERR!)\b`,
  String.raw`\bERROR\b`,
  // TypeError:, Error:, java.lang.NullPointerException: — the word must start uppercase (not "isError:"),
  // checked in code after the match (group 1) so the regex never scans back over a word.
  String.raw`((?:Error|Exception)(?::|\s\[))`,
  String.raw`\bERR_[A-Z0-9_]{1,64}`,
  String.raw`\bE(?:NOENT|ACCES|ADDRINUSE|CONNREFUSED|CONNRESET|EXIST|ISDIR|NOTDIR|NOTEMPTY|LIFECYCLE|PERM|TIMEDOUT|MFILE)\b`,
  String.raw`command not found`,
  String.raw`No such file or directory`,
  String.raw`[Cc]annot find (?:module|name|package)`,
  String.raw`exited with (?:exit )?code [1-9]`,
  String.raw`exit (?:code|status) [1-9]`,
];

const SOURCE = MARKERS.join("|");

// `errorLines` finds the line-start markers apart: as alternatives of the one regex, a marker led by "\n"
// (the commonest character) or "^" costs a try at every position; apart, their words ("error", "ERR!")
// are found with `indexOf` and each hit is confirmed at its line start by TEXT_START (`LineStartStream`).
const LINE_START_MARKERS = new Set([String.raw`\n[ \t]{0,8}(?:error|npm error|ERR!)\b`, String.raw`^[ \t]{0,8}(?:error|npm error|ERR!)\b`]);
const INLINE_SOURCE = MARKERS.filter((m) => !LINE_START_MARKERS.has(m)).join("|");
const TEXT_START = /[ \t]{0,8}(?:error|npm error|ERR!)\b/y;

// ---- marker words: where a caller's own walk over the text may point errorLines ----
//
// Every match of an inline marker holds a word (a maximal run of [0-9A-Za-z_$]) that is one of
// MARKER_WORDS, begins with one of MARKER_WORD_PREFIXES or ends with one of MARKER_WORD_SUFFIXES (markers
// without a leading "\b" may follow letters: "subcommand not found", "TypeError:"), or holds a "$" (not a
// regex word character, so "\b" can fall inside the run), or the match is one of MARKER_CHARS. A caller
// that already reads every word (the seed scan) reports those positions, and `errorLines` runs the regex
// on their lines only instead of over the whole text. The lists are checked against MARKERS in the tests.
export const MARKER_WORDS: readonly string[] = [
  "failed", "failure", "failing", "Failed", "Failure", "Failing", "FAIL", "FAILED", "FAILURE", "fatal", "Fatal", "FATAL",
  "ERR", "ERROR", "error", "Caused", "panic", "Uncaught",
  "ENOENT", "EACCES", "EADDRINUSE", "ECONNREFUSED", "ECONNRESET", "EEXIST", "EISDIR", "ENOTDIR", "ENOTEMPTY", "ELIFECYCLE", "EPERM", "ETIMEDOUT", "EMFILE",
];
export const MARKER_WORD_PREFIXES: readonly string[] = ["ERR_", "Unhandled"];
export const MARKER_WORD_SUFFIXES: readonly string[] = [
  "Segmentation", "Permission", "core", "Traceback", "Exception", "Error", "panicked", "command", "No", "annot", "exited", "exit",
];
/** Marker characters outside words: ✗ ✘ ✖. */
export const MARKER_CHARS: readonly number[] = [0x2717, 0x2718, 0x2716];

// A word is compared with the lists only after two filters: its first two (ASCII) characters match some
// exact word's or prefix's (a table lookup), then a hash of its first three does (a bitmap); likewise its
// last two, then last four, for the suffixes. Most words cost four character reads and two loads;
// collisions only cost a comparison.
const HASH_SIZE = 1 << 16;
function hashOf(text: string, from: number, count: number): number {
  let h = 0;
  for (let i = from; i < from + count; i++) h = (Math.imul(h, 31) + text.charCodeAt(i)) | 0;
  return h & (HASH_SIZE - 1);
}
const pairOf = (text: string, at: number): number => ((text.charCodeAt(at) & 127) << 7) | (text.charCodeAt(at + 1) & 127);
const unitPairOf = (units: Uint16Array, at: number): number => (((units[at] as number) & 127) << 7) | ((units[at + 1] as number) & 127);
function unitHashOf(units: Uint16Array, from: number, count: number): number {
  let h = 0;
  for (let i = from; i < from + count; i++) h = (Math.imul(h, 31) + (units[i] as number)) | 0;
  return h & (HASH_SIZE - 1);
}
// The filters are bit sets (2 KB per pair table, 8 KB per hash table): asked of every word of every
// output, they stay in the first-level cache where byte tables (16 KB, 64 KB) were evicted.
const HEAD_PAIR = new Int32Array((128 * 128) >> 5);
const TAIL_PAIR = new Int32Array((128 * 128) >> 5);
const HEAD_HIT = new Int32Array(HASH_SIZE >> 5);
const TAIL_HIT = new Int32Array(HASH_SIZE >> 5);
const setBit = (set: Int32Array, at: number): void => {
  set[at >> 5] = (set[at >> 5] as number) | (1 << (at & 31));
};
const hasBit = (set: Int32Array, at: number): boolean => (((set[at >> 5] as number) >>> (at & 31)) & 1) !== 0;
for (const w of [...MARKER_WORDS, ...MARKER_WORD_PREFIXES]) {
  setBit(HEAD_PAIR, pairOf(w, 0));
  setBit(HEAD_HIT, hashOf(w, 0, 3));
}
for (const w of MARKER_WORD_SUFFIXES) {
  setBit(TAIL_PAIR, pairOf(w, w.length - 2));
  if (w.length >= 4) setBit(TAIL_HIT, hashOf(w, w.length - 4, 4));
}
/** Suffixes under four characters ("No"): compared whenever the last two characters match. */
const SHORT_SUFFIXES = MARKER_WORD_SUFFIXES.filter((w) => w.length < 4);
/** Their last two characters: most words passing TAIL_PAIR ("…ed", "…on") end otherwise and skip the comparisons. */
const SHORT_PAIR = new Int32Array((128 * 128) >> 5);
for (const w of SHORT_SUFFIXES) setBit(SHORT_PAIR, pairOf(w, w.length - 2));

/** Does the word text[start, end) equal a listed word, start with a listed prefix or end with a listed suffix? */
function matchesLists(text: string, start: number, end: number): boolean {
  const length = end - start;
  for (const w of MARKER_WORDS) if (w.length === length && text.startsWith(w, start)) return true;
  for (const w of MARKER_WORD_PREFIXES) if (w.length <= length && text.startsWith(w, start)) return true;
  for (const w of MARKER_WORD_SUFFIXES) if (w.length <= length && text.startsWith(w, end - w.length)) return true;
  return false;
}

/**
 * Can the word text[start, end) (a maximal run of [0-9A-Za-z_$], at least 2 characters; `dollar`: it
 * holds a "$") be part of an inline marker? A superset test: `errorLines` confirms with the regex.
 * `units` hold text's UTF-16 units (`TextUnits`): the filters read them, the rare confirmation `text`.
 */
export function isMarkerWord(units: Uint16Array, text: string, start: number, end: number, dollar: boolean): boolean {
  if (dollar) return true;
  const length = end - start;
  if (hasBit(HEAD_PAIR, unitPairOf(units, start)) && length >= 3 && hasBit(HEAD_HIT, unitHashOf(units, start, 3)) && matchesLists(text, start, end)) return true;
  if (!hasBit(TAIL_PAIR, unitPairOf(units, end - 2))) return false;
  if (length >= 4 && hasBit(TAIL_HIT, unitHashOf(units, end - 4, 4)) && matchesLists(text, start, end)) return true;
  if (!hasBit(SHORT_PAIR, unitPairOf(units, end - 2))) return false;
  for (const w of SHORT_SUFFIXES) if (w.length <= length && text.startsWith(w, end - w.length)) return true;
  return false;
}

/** The "…Error:" alternative matched at `index`: does its word start with an uppercase letter? */
function classMarkerOk(text: string, index: number): boolean {
  let start = index;
  while (start > 0) {
    const c = text.charCodeAt(start - 1);
    const word = (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 36;
    if (!word) break;
    start -= 1;
  }
  const first = text.charCodeAt(start);
  return first >= 65 && first <= 90;
}

// One instance of each global regex, its lastIndex set before every use (nothing runs between a set and
// the exec that reads it): a `new RegExp` per call cost as much as a third of the search itself.
const ANY_MARKER = new RegExp(SOURCE, "g");
const INLINE_MARKER = new RegExp(INLINE_SOURCE, "g");

/** The markers a single line carries (matched texts), in order. */
function markersOf(line: string): string[] {
  const re = ANY_MARKER;
  re.lastIndex = 0;
  const out: string[] = [];
  let m: RegExpExecArray | null;
  while ((m = re.exec(line)) !== null) {
    if (m[1] === undefined || classMarkerOk(line, m.index)) out.push(m[0]);
    re.lastIndex = m.index + 1;
  }
  return out;
}

// ---- false-positive control: lines that carry a marker but report no failure ----

/** "0 failed", "0 errors", "failures: 0", "errors=0": a count of nothing. */
const ZERO_COUNT = /\b0 (?:tests? )?(?:failed|failures?|errors?|failing)\b|\b(?:failed|failures?|errors?|failing)[:=] ?0\b(?![.,]?\d)/gi;
/** A marker word a sentence can hold ("the failure happens when …", "Failed attempts are retried"). */
const WEAK_MARKER = /^(?:[Ff]ail(?:ed|ure|ing)|[Ff]atal)$/;
/** A compiler diagnostic keeps its place whatever the rest of its line looks like. */
const DIAGNOSTIC = /\berror(?:\[E[0-9]{1,6}\]| TS[0-9]{1,6}\b)/;
const PROSE_WORDS = 10;

/** Source code rather than output: comments, throw/log/catch calls, assignments, statement ends. */
function looksLikeCode(line: string): boolean {
  const t = line.trim();
  if (t.startsWith("//") || t.startsWith("/*") || t.startsWith("* ") || t.startsWith("#!")) return true;
  const last = t.charCodeAt(t.length - 1);
  if (last === 59 /* ; */ || last === 123 /* { */ || last === 44 /* , */) return true;
  return (
    t.includes("throw new ") ||
    t.includes("console.") ||
    t.includes("catch (") ||
    t.includes(" => ") ||
    t.includes(" = ") ||
    t.includes("?: ") ||
    t.startsWith("raise ") ||
    t.startsWith("return ") ||
    t.startsWith("if ")
  );
}

function wordCount(line: string): number {
  let n = 0;
  let inWord = false;
  for (let i = 0; i < line.length; i++) {
    const space = line.charCodeAt(i) <= 32;
    if (!space && !inWord) n += 1;
    inWord = !space;
  }
  return n;
}

/**
 * A line with an error marker that reports no failure: a zero-count summary ("15 passed; 0 failed"),
 * a line of source code (`throw new Error(…)`, `console.error(…)`, `// … failed to load`), or a
 * sentence that merely uses a failure word. Bounded by the line (≤ ERROR_LINE_MAX chars).
 */
export function isFalseAlarm(line: string): boolean {
  if (DIAGNOSTIC.test(line)) return false;
  const markers = markersOf(line);
  if (markers.length === 0) return false;
  ZERO_COUNT.lastIndex = 0;
  if (ZERO_COUNT.test(line)) {
    ZERO_COUNT.lastIndex = 0;
    if (markersOf(line.replace(ZERO_COUNT, " ")).length === 0) return true;
  }
  if (looksLikeCode(line)) return true;
  // Only sentence words ("failure", "failed") in a long line without a count or a colon before them: prose.
  if (markers.every((m) => WEAK_MARKER.test(m)) && wordCount(line) >= PROSE_WORDS) {
    const at = line.search(/[Ff]ail|[Ff]atal/);
    const before = line.slice(Math.max(0, at - 12), at);
    if (!/[1-9]\d{0,6} $/.test(before) && !line.slice(0, at).includes(":")) return true;
  }
  return false;
}

/** Does this single line carry an error marker (and report a failure: see `isFalseAlarm`)? */
export function isErrorLine(line: string): boolean {
  return markersOf(line).length > 0 && !isFalseAlarm(line);
}

/** Clip to ERROR_LINE_MAX UTF-16 units without leaving half a surrogate pair. */
export function clipLine(line: string, max: number = ERROR_LINE_MAX): string {
  if (line.length <= max) return line;
  let cut = max;
  const last = line.charCodeAt(cut - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut -= 1;
  return line.slice(0, cut);
}

/** Where the next line with an inline marker starts (at or after `from`), or -1. */
function nextInlineLine(text: string, re: RegExp, from: number): number {
  re.lastIndex = from;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text)) !== null) {
    if (m[1] === undefined || classMarkerOk(text, m.index)) return text.lastIndexOf("\n", m.index) + 1;
    re.lastIndex = m.index + 1;
  }
  return -1;
}

/** Does the line text[start, end) hold an inline marker (a match starting in it, confirmed as `nextInlineLine` does)? */
function lineHasInlineMarker(text: string, start: number, end: number): boolean {
  // The line and the two characters after it: "TypeError\n[" matches across its newline, nothing reaches further.
  const line = text.slice(start, Math.min(end + 2, text.length));
  const re = INLINE_MARKER;
  re.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(line)) !== null) {
    if (m.index >= end - start) break;
    if (m[1] === undefined || classMarkerOk(line, m.index)) return true;
    re.lastIndex = m.index + 1;
  }
  re.lastIndex = 0;
  return false;
}

/**
 * `nextInlineLine` from a caller's marker positions (see MARKER_WORDS): only their lines are searched,
 * each once, so the cost is the length of those lines, not of the text.
 */
class MarkedLines {
  private k = 0;
  constructor(
    private readonly text: string,
    private readonly at: readonly number[],
  ) {}

  /** The first line start at or after `from` (a line start) whose line holds an inline marker, or -1. */
  next(from: number): number {
    const { text, at } = this;
    while (this.k < at.length) {
      const p = at[this.k] ?? 0;
      if (p < from) {
        this.k += 1;
        continue;
      }
      const start = text.lastIndexOf("\n", p) + 1;
      let end = text.indexOf("\n", p);
      if (end === -1) end = text.length;
      if (lineHasInlineMarker(text, start, end)) return start;
      while (this.k < at.length && (at[this.k] ?? 0) < end) this.k += 1;
    }
    return -1;
  }
}

/**
 * The lines opening with a line-start marker (`[ \t]{0,8}(?:error|npm error|ERR!)\b`), found from the
 * marker words rather than from every "\n" (a regex led by "\n" tries each line; `indexOf` of the word
 * skips ahead natively). Each occurrence of `word` is traced back over "npm " and blanks (at most 13
 * chars) to its line start, which the sticky line-start regex then confirms, so the lines found are
 * exactly those the regex accepts. `from` only grows, so each occurrence is looked at once: linear.
 */
class LineStartStream {
  private at = 0;
  private found = -2;
  /** Next index into `words` (when given) to look at. */
  private k = 0;
  constructor(
    private readonly text: string,
    private readonly word: string,
    private readonly words?: readonly number[],
  ) {}

  /**
   * The next occurrence of `word` at or after `from`: by `indexOf`, or, with the caller's marker word
   * positions, the next of them that starts with it. A marker opens a line only at a word start (blanks
   * or "npm " before it), where the caller's walk reports "error", "ERR" and any word holding "$"; so
   * the two give the same confirmed lines, the second without a pass over the text.
   */
  private occurrence(from: number): number {
    const words = this.words;
    if (words === undefined) return this.text.indexOf(this.word, from);
    while (this.k < words.length) {
      const p = words[this.k] as number;
      this.k += 1;
      if (p >= from && this.text.startsWith(this.word, p)) return p;
    }
    return -1;
  }

  /** The first line start at or after `from` (a line start) that opens with a marker, or -1. */
  next(from: number): number {
    if (this.found === -1 || this.found >= from) return this.found;
    const text = this.text;
    let q = this.occurrence(Math.max(this.at, from));
    while (q !== -1) {
      let start = q;
      if (start >= 4 && text.startsWith("npm ", start - 4)) start -= 4;
      const floor = start - 8;
      while (start > 0 && start > floor && (text.charCodeAt(start - 1) === 32 || text.charCodeAt(start - 1) === 9)) start -= 1;
      if (start === 0 || text.charCodeAt(start - 1) === 10) {
        TEXT_START.lastIndex = start;
        if (TEXT_START.test(text)) {
          this.at = q + 1;
          this.found = start;
          return start;
        }
      }
      q = this.occurrence(q + 1);
    }
    this.found = -1;
    return -1;
  }
}

/** Where the next line opening with a line-start marker starts (at or after `from`, a line start), or -1. */
function nextLineStartLine(lower: LineStartStream, upper: LineStartStream, from: number): number {
  const a = lower.next(from);
  const b = upper.next(from);
  return a === -1 ? b : b === -1 ? a : Math.min(a, b);
}

/**
 * Every error line of `text`, verbatim (trailing whitespace and `\r` dropped), clipped to 240 chars,
 * deduplicated, in order of appearance. Two linear scans (inline markers; line-start markers), each
 * jumping to the next line after a hit, merged in line order, so the cost is linear in the text.
 * `markerAt`, from a caller that walks the text anyway: the ascending positions of its marker words
 * (`isMarkerWord`) and MARKER_CHARS; the inline markers are then looked for on those lines only. The
 * result is the same.
 */
export function errorLines(text: string, markerAt?: readonly number[]): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const inline = INLINE_MARKER;
  const marked = markerAt === undefined ? undefined : new MarkedLines(text, markerAt);
  const nextInlineFrom = (from: number): number => (marked === undefined ? nextInlineLine(text, inline, from) : marked.next(from));
  let nextInline = nextInlineFrom(0);
  const lower = new LineStartStream(text, "error", markerAt);
  const upper = new LineStartStream(text, "ERR!", markerAt);
  let nextLineStart = nextLineStartLine(lower, upper, 0);
  while (nextInline !== -1 || nextLineStart !== -1) {
    const start = nextInline === -1 ? nextLineStart : nextLineStart === -1 ? nextInline : Math.min(nextInline, nextLineStart);
    let end = text.indexOf("\n", start);
    if (end === -1) end = text.length;
    // Slice only what survives the clip: a 1 MB line costs 240 chars, not 1 MB.
    const line = clipLine(text.slice(start, Math.min(end, start + ERROR_LINE_MAX + 1))).trimEnd();
    if (line.length > 0 && !seen.has(line)) {
      seen.add(line);
      if (!isFalseAlarm(line)) out.push(line);
    }
    if (end >= text.length) break;
    // Both scans resume at the next line (an inline marker may sit anywhere in it).
    if (nextInline !== -1 && nextInline <= end) nextInline = nextInlineFrom(end + 1);
    if (nextLineStart !== -1 && nextLineStart <= end) nextLineStart = nextLineStartLine(lower, upper, end + 1);
  }
  return out;
}
