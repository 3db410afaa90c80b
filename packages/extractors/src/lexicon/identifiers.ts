// Identifier-shaped tokens recovery grep must match exactly: symbols (camelCase, snake_case,
// SCREAMING_CASE, letter+digit codes), hex and uuid-like tokens, dotted versions, sizeable numbers (5+ digits).
// A one-pass character scanner: linear in the text and it slices only the tokens it keeps.

/** Longest token kept; longer runs are minified code or encoded data, not identifiers. */
export const IDENTIFIER_MAX = 128;

// Bits per ASCII code.
// The table and bits are shared with the one-walk scan of output-tokens.ts, which runs the same word logic.
const LOWER_HEX = 1; // a-f
const LOWER = 2; // g-z
const UPPER_HEX = 4; // A-F
const UPPER = 8; // G-Z
const DIGIT = 16;
const UNDER = 32;
export const ID_DOLLAR = 64;
const DOLLAR = ID_DOLLAR;
export const ID_CONNECT = 128; // "." and "-" join the parts of a uuid or a version
const CONNECT = ID_CONNECT;
export const ID_WORDISH = LOWER_HEX | LOWER | UPPER_HEX | UPPER | DIGIT | UNDER | DOLLAR;
const WORDISH = ID_WORDISH;
export const ID_ANY_LOWER = LOWER_HEX | LOWER;
const ANY_LOWER = ID_ANY_LOWER;
export const ID_ANY_UPPER = UPPER_HEX | UPPER;
const ANY_UPPER = ID_ANY_UPPER;
const LETTER = ANY_LOWER | ANY_UPPER;

/** Identifier bits per ASCII code (0 for everything else). */
export const ID_CHAR_BITS = new Uint8Array(128);
const TABLE = ID_CHAR_BITS;
for (let c = 97; c <= 122; c++) TABLE[c] = c <= 102 ? LOWER_HEX : LOWER;
for (let c = 65; c <= 90; c++) TABLE[c] = c <= 70 ? UPPER_HEX : UPPER;
for (let c = 48; c <= 57; c++) TABLE[c] = DIGIT;
TABLE[95] = UNDER;
TABLE[36] = DOLLAR;
TABLE[46] = CONNECT;
TABLE[45] = CONNECT;

const UUID = /[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}/;
const VERSION = /^v?[0-9]{1,9}(?:\.[0-9]{1,9}){2,3}(?:-[0-9A-Za-z]{1,20}(?:\.[0-9A-Za-z]{1,20}){0,3})?/;
const HEX_0X = /^0[xX][0-9A-Fa-f]{4,}$/;

/** Is a word (no connectors) with these bits worth keeping? Decided without slicing. */
export function keepWord(bits: number, length: number, camel: boolean, text: string, start: number): boolean {
  if (length > IDENTIFIER_MAX) return false;
  if (bits === DIGIT) return length >= 5; // 48211, 91000; not line numbers and years
  const letters = bits & LETTER;
  if (letters === 0) return false;
  // 0x811c9dc5
  if (length >= 6 && text.charCodeAt(start) === 48 && (text.charCodeAt(start + 1) | 32) === 120) {
    return HEX_0X.test(text.slice(start, start + length));
  }
  // git shas, hashes: only hex letters of one case plus digits
  if ((bits & DIGIT) !== 0 && length >= 7 && (bits === (LOWER_HEX | DIGIT) || bits === (UPPER_HEX | DIGIT))) return true;
  // `camel` is read only past this line: scanUnitRanges (output-tokens.ts) skips its search for shorter words.
  if (length < 4) return false;
  if ((bits & UNDER) !== 0) return true;
  if (camel) return true;
  const firstBits = TABLE[text.charCodeAt(start)] ?? 0;
  if ((bits & DIGIT) !== 0 && (firstBits & LETTER) !== 0) return length >= 5; // TS2304, E0308x, sha256
  if ((bits & ANY_LOWER) === 0 && (bits & DIGIT) === 0) return length >= 5; // ENOENT, SIGSEGV
  return false;
}

/**
 * Call `visit` for every identifier-shaped token of `text`, in order (repeats included). The second
 * argument is the token's offset in `text`.
 */
export function scanIdentifiers(text: string, visit: (token: string, offset: number) => void): void {
  scanIdentifierRanges(text, (start, end) => {
    visit(text.slice(start, end), start);
  });
}

/**
 * `scanIdentifiers` without substrings: `visit(start, end)` for every token text[start, end), in the
 * same order. A caller that counts repeats looks them up by range and slices only new tokens.
 */
export function scanIdentifierRanges(text: string, visit: (start: number, end: number) => void): void {
  identifierRangesIn(text, 0, text.length, visit);
}

/**
 * `scanIdentifierRanges` over text[from, to) only, where neither text[from - 1] nor text[to] can be part
 * of a token (both are outside [0-9A-Za-z_$.-]); tokens are judged on the whole text as usual.
 */
export function identifierRangesIn(text: string, from: number, to: number, visit: (start: number, end: number) => void): void {
  const n = text.length;
  let i = from;
  while (i < to) {
    const c0 = text.charCodeAt(i);
    const b0 = c0 < 128 ? (TABLE[c0] ?? 0) : 0;
    if ((b0 & WORDISH) === 0 || (i > 0 && isWordAt(text, i - 1))) {
      i += 1;
      continue;
    }
    // A run of words joined by "." / "-": each word is judged alone, the whole run as uuid/version.
    const runStart = i;
    let connectors = 0;
    let wordStart = i;
    let bits = 0;
    let camel = false;
    let prev = 0;
    let run = true;
    while (run) {
      const c = i < n ? text.charCodeAt(i) : 0;
      const b = i < n && c < 128 ? (TABLE[c] ?? 0) : 0;
      if ((b & WORDISH) !== 0) {
        if ((b & ANY_UPPER) !== 0 && (prev & ANY_LOWER) !== 0) camel = true;
        bits |= b;
        prev = b;
        i += 1;
        continue;
      }
      if (i > wordStart && keepWord(bits, i - wordStart, camel, text, wordStart)) visit(wordStart, i);
      const nextBits = i + 1 < n ? (TABLE[text.charCodeAt(i + 1)] ?? 0) : 0;
      if ((b & CONNECT) !== 0 && (nextBits & WORDISH) !== 0 && i > wordStart) {
        connectors += 1;
        i += 1;
        wordStart = i;
        bits = 0;
        camel = false;
        prev = 0;
        continue;
      }
      run = false;
    }
    if (connectors >= 2) visitJoinedRun(text, runStart, i, connectors, visit);
    if (connectors >= 1) visitDashedId(text, runStart, i, connectors, visit);
    if (i === runStart) i += 1;
  }
}

/** The version / uuid tokens of a run of words text[runStart, end) joined by `connectors` (>= 2) "."/"-". */
export function visitJoinedRun(text: string, runStart: number, end: number, connectors: number, visit: (start: number, end: number) => void): void {
  const runLength = end - runStart;
  if (runLength > 64) return;
  const first = text.charCodeAt(runStart);
  const lead = first === 118 /* v */ ? text.charCodeAt(runStart + 1) : first;
  if (lead >= 48 && lead <= 57) {
    const version = VERSION.exec(text.slice(runStart, end));
    if (version !== null) visit(runStart, runStart + version[0].length);
  }
  if (connectors >= 4 && runLength >= 36) {
    const uuid = UUID.exec(text.slice(runStart, end));
    if (uuid !== null) visit(runStart + uuid.index, runStart + uuid.index + uuid[0].length);
  }
}

/** Longest dashed id kept whole: past it a run is a slug or a sentence in kebab case. */
const DASHED_MAX = 64;

/**
 * A ticket, job or run id written with dashes (`PROJ-4821`, `job-4b1e9d07`, `NEEDLE-3-5f49cd`) is one
 * identifier: outside tools grep for it whole, so it is kept whole (its words are judged alone as
 * usual). text[runStart, end) is a run of words joined by `connectors` "."/"-": kept when every
 * connector is "-", it has 2–4 words, begins with a letter, its last word holds a digit, and it is
 * 6–64 characters (dates start with a digit; `utf-8` is too short; a uuid is found as a uuid).
 */
export function visitDashedId(text: string, runStart: number, end: number, connectors: number, visit: (start: number, end: number) => void): void {
  const length = end - runStart;
  if (connectors > 3 || length < 6 || length > DASHED_MAX) return;
  if (((TABLE[text.charCodeAt(runStart)] ?? 0) & LETTER) === 0) return;
  let lastDigit = false;
  for (let i = runStart; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === 46) return;
    if (c === 45) lastDigit = false;
    else if (c >= 48 && c <= 57) lastDigit = true;
  }
  if (lastDigit) visit(runStart, end);
}

function isWordAt(text: string, index: number): boolean {
  const c = text.charCodeAt(index);
  return c < 128 && ((TABLE[c] ?? 0) & WORDISH) !== 0;
}

/** Identifier-shaped tokens of `text`, deduplicated, in order of first appearance. */
export function identifierTokens(text: string): string[] {
  const seen = new Set<string>();
  scanIdentifiers(text, (token) => {
    seen.add(token);
  });
  return [...seen];
}
