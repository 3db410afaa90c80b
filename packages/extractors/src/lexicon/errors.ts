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
  constructor(
    private readonly text: string,
    private readonly word: string,
  ) {}

  /** The first line start at or after `from` (a line start) that opens with a marker, or -1. */
  next(from: number): number {
    if (this.found === -1 || this.found >= from) return this.found;
    const text = this.text;
    let q = text.indexOf(this.word, Math.max(this.at, from));
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
      q = text.indexOf(this.word, q + 1);
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
 */
export function errorLines(text: string): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const inline = INLINE_MARKER;
  let nextInline = nextInlineLine(text, inline, 0);
  const lower = new LineStartStream(text, "error");
  const upper = new LineStartStream(text, "ERR!");
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
    if (nextInline !== -1 && nextInline <= end) nextInline = nextInlineLine(text, inline, end + 1);
    if (nextLineStart !== -1 && nextLineStart <= end) nextLineStart = nextLineStartLine(lower, upper, end + 1);
  }
  return out;
}
