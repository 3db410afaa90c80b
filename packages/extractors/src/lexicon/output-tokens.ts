// Path and identifier tokens of one text in a single pass: both live only inside runs of
// [0-9A-Za-z_$./\-@+~], so the text is walked once, judging identifier words as it reads them.
// Same tokens, same order per kind, as `pathTokens` (less its per-text dedup) and `scanIdentifierRanges`.
import { ID_ANY_LOWER, ID_ANY_UPPER, ID_CHAR_BITS, ID_CONNECT, ID_DOLLAR, ID_WORDISH, keepWord, visitDashedId, visitJoinedRun } from "./identifiers.js";
import { isMarkerWord, MARKER_CHARS } from "./errors.js";
import { runPathEnd } from "./paths.js";
import { TextUnits } from "./text-units.js";

// Per ASCII code: the identifier bits of identifiers.ts (low byte) and the path-run bits above them. Every
// identifier character ([0-9A-Za-z_$.-]) is also a path-run character, so identifier runs never cross a
// path run: the walk runs the identifier word logic on each character as it reads it, no second pass.
const IN_RUN = 256;
const SLASH_BIT = 512;
const DOT_BIT = 1024;
// Indexed by any UTF-16 unit (non-ASCII units hold 0): a lookup needs no "is it ASCII" branch, and the
// index, a charCodeAt, is always in bounds.
const CHAR = new Uint16Array(65536);
for (let c = 0; c < 128; c++) CHAR[c] = ID_CHAR_BITS[c] ?? 0;
for (const ch of "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_$./-@+~") CHAR[ch.charCodeAt(0)] = (CHAR[ch.charCodeAt(0)] ?? 0) | IN_RUN;
CHAR[47] = (CHAR[47] ?? 0) | SLASH_BIT; // /
CHAR[46] = (CHAR[46] ?? 0) | DOT_BIT; // .
// Error marker characters (outside runs), reported to a caller collecting marker positions.
const MARK_BIT = 2048;
for (const c of MARKER_CHARS) CHAR[c] = MARK_BIT;
// Word bits other than lower-case letters: a word without any (and so without camelCase) is never kept.
const NOT_LOWER = ID_WORDISH & ~ID_ANY_LOWER;

/** Does units[start, end) (one word) hold an upper-case letter right after a lower-case one? */
function hasCamel(units: Uint16Array, start: number, end: number): boolean {
  let prevLower = false;
  for (let i = start; i < end; i++) {
    const b = CHAR[units[i] as number] as number;
    if (prevLower && (b & ID_ANY_UPPER) !== 0) return true;
    prevLower = (b & ID_ANY_LOWER) !== 0;
  }
  return false;
}

const DOLLAR = 36;
const DOT = 46;
const SLASH = 47;

/** Path candidates of text[start, end), a run holding "$" (not a path character): each "$"-free piece alone. */
function pathsAroundDollars(text: string, start: number, end: number, visitPath: (start: number, end: number) => void): void {
  let from = start;
  while (from < end) {
    let slash = false;
    let dots = 0;
    let i = from;
    for (; i < end; i++) {
      const c = text.charCodeAt(i);
      if (c === DOLLAR) break;
      if (c === SLASH) slash = true;
      else if (c === DOT) dots += 1;
    }
    if (i > from) {
      const to = runPathEnd(text, from, i, slash, dots);
      if (to >= 0) visitPath(from, to);
    }
    from = i + 1;
  }
}

/**
 * Walk `text` once: `visitIdentifier(start, end)` for every identifier token (as `scanIdentifierRanges`)
 * and, when `paths` is set, `visitPath(candidate)` for every path candidate run (as `pathTokens` sees
 * them, before its `isPathToken` check and dedup, which the caller applies).
 */
export function scanOutputTokens(
  text: string,
  paths: boolean,
  visitPath: (candidate: string) => void,
  visitIdentifier: (start: number, end: number) => void,
): void {
  scanOutputRanges(text, paths, (start, end) => visitPath(text.slice(start, end)), visitIdentifier);
}

/**
 * `scanOutputTokens` with each path candidate given as its range text[start, end) (no substring: a
 * caller that has seen the candidate before skips it without one), and, with `visitMarker`, the position
 * of every error marker word and character (`isMarkerWord`, MARKER_CHARS), in order: what `errorLines`
 * takes to search only the lines that can hold a marker.
 */
export function scanOutputRanges(
  text: string,
  paths: boolean,
  visitPath: (start: number, end: number) => void,
  visitIdentifier: (start: number, end: number) => void,
  visitMarker?: (at: number) => void,
): void {
  scanUnitRanges(text, ownUnits.load(text), paths, visitPath, visitIdentifier, visitMarker);
}

/** The units `scanOutputRanges` walks (a caller holding its own, e.g. the seed block scan, passes them). */
const ownUnits = new TextUnits();

/**
 * `scanOutputRanges` over `units`, which hold text's UTF-16 units at [0, text.length) (`TextUnits`):
 * the character walk reads the array; the rare per-word checks (regexes, slices) read `text`.
 */
export function scanUnitRanges(
  text: string,
  units: Uint16Array,
  paths: boolean,
  visitPath: (start: number, end: number) => void,
  visitIdentifier: (start: number, end: number) => void,
  visitMarker?: (at: number) => void,
): void {
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = CHAR[units[i] as number] as number;
    if ((c & IN_RUN) === 0) {
      if (c !== 0 && visitMarker !== undefined) visitMarker(i);
      i += 1;
      continue;
    }
    const start = i;
    let dots = 0;
    let kinds = 0;
    // The identifier run being read (words joined by single "."/"-"), as identifierRangesIn reads it: it
    // starts at `idStart`; its current word at `wordStart` (no word yet while i === wordStart).
    let idStart = i;
    let connectors = 0;
    let wordStart = i;
    let bits = 0;
    // The class of the character that ended the current word (0 at the end of the text).
    let t = 0;
    for (;;) {
      // The word's characters in a tight loop; `t` is then the class of the character that ended it.
      t = 0;
      while (i < n) {
        t = CHAR[units[i] as number] as number;
        if ((t & ID_WORDISH) === 0) break;
        bits |= t;
        i += 1;
      }
      if (i >= n) t = 0;
      let joined = false;
      if (i > wordStart) {
        kinds |= bits;
        if (visitMarker !== undefined && i - wordStart >= 2 && isMarkerWord(units, text, wordStart, i, (bits & ID_DOLLAR) !== 0)) visitMarker(wordStart);
        if ((bits & NOT_LOWER) !== 0) {
          // camelCase is looked for only in words holding both cases (few), not tracked per character,
          // and of 4 or more characters (`keepWord` drops shorter ones before asking: "The", "It")
          const camel = i - wordStart >= 4 && (bits & ID_ANY_UPPER) !== 0 && (bits & ID_ANY_LOWER) !== 0 && hasCamel(units, wordStart, i);
          if (keepWord(bits & 255, i - wordStart, camel, text, wordStart)) visitIdentifier(wordStart, i);
        }
        if ((t & ID_CONNECT) !== 0 && i + 1 < n) joined = ((CHAR[units[i + 1] as number] as number) & ID_WORDISH) !== 0;
        if (joined) connectors += 1;
        else if (connectors >= 1) {
          if (connectors >= 2) visitJoinedRun(text, idStart, i, connectors, visitIdentifier);
          visitDashedId(text, idStart, i, connectors, visitIdentifier);
        }
      }
      if ((t & IN_RUN) === 0) break;
      kinds |= t;
      if ((t & DOT_BIT) !== 0) dots += 1;
      i += 1;
      wordStart = i;
      bits = 0;
      if (!joined) {
        idStart = i;
        connectors = 0;
      }
    }
    const end = i;
    // The character that ended the run is outside every run and already classified (`t`): step past
    // it here rather than load its class again at the top of the loop.
    if (i < n) {
      if (t !== 0 && visitMarker !== undefined) visitMarker(i);
      i += 1;
    }
    const slash = (kinds & SLASH_BIT) !== 0;
    const dollar = (kinds & ID_DOLLAR) !== 0;
    if (!paths || (dots === 0 && !slash)) continue;
    if (dollar) pathsAroundDollars(text, start, end, visitPath);
    else {
      const to = runPathEnd(text, start, end, slash, dots);
      if (to >= 0) visitPath(start, to);
    }
  }
}
