// Path and identifier tokens of one text in a single pass: both live only inside runs of
// [0-9A-Za-z_$./\-@+~], so the text is walked once and each run is handed to both scanners.
// Same tokens, same order per kind, as `pathTokens` (less its per-text dedup) and `scanIdentifierRanges`.
import { identifierRangesIn } from "./identifiers.js";
import { runPathToken } from "./paths.js";

// Non-zero for every ASCII code a path run or an identifier run can hold: PLAIN for lowercase letters and
// path punctuation, MARKED for what an identifier needs (upper case, digit, "_", "$"). A run of PLAIN
// characters with fewer than 4 "."/"-" holds no identifier (a uuid needs 4 connectors; everything else
// a digit, an upper-case letter or "_"), so the identifier scan skips it: most words are such runs.
// The characters the run walk counts carry one more bit each, so a letter costs a single test.
const PLAIN = 1;
const MARKED = 2;
const SLASH_BIT = 4;
const DOT_BIT = 8;
const DASH_BIT = 16;
const DOLLAR_BIT = 32;
const RUN = new Uint8Array(128);
for (let c = 48; c <= 57; c++) RUN[c] = MARKED;
for (let c = 65; c <= 90; c++) RUN[c] = MARKED;
for (let c = 97; c <= 122; c++) RUN[c] = PLAIN;
for (const ch of "@+~") RUN[ch.charCodeAt(0)] = PLAIN;
RUN[95] = MARKED; // _
RUN[36] = MARKED | DOLLAR_BIT; // $
RUN[47] = PLAIN | SLASH_BIT; // /
RUN[46] = PLAIN | DOT_BIT; // .
RUN[45] = PLAIN | DASH_BIT; // -

const DOLLAR = 36;
const DOT = 46;
const SLASH = 47;

/** Path candidates of text[start, end), a run holding "$" (not a path character): each "$"-free piece alone. */
function pathsAroundDollars(text: string, start: number, end: number, visitPath: (token: string) => void): void {
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
      const token = runPathToken(text, from, i, slash, dots);
      if (token !== undefined) visitPath(token);
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
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c >= 128 || RUN[c] === 0) {
      i += 1;
      continue;
    }
    const start = i;
    let dots = 0;
    let connectors = 0;
    let kinds = 0;
    while (i < n) {
      const d = text.charCodeAt(i);
      const kind = d < 128 ? (RUN[d] ?? 0) : 0;
      if (kind === 0) break;
      kinds |= kind;
      if ((kind & (DOT_BIT | DASH_BIT)) !== 0) {
        connectors += 1;
        if ((kind & DOT_BIT) !== 0) dots += 1;
      }
      i += 1;
    }
    const slash = (kinds & SLASH_BIT) !== 0;
    const dollar = (kinds & DOLLAR_BIT) !== 0;
    if ((kinds & MARKED) !== 0 || connectors >= 4) identifierRangesIn(text, start, i, visitIdentifier);
    if (!paths || (dots === 0 && !slash)) continue;
    if (dollar) pathsAroundDollars(text, start, i, visitPath);
    else {
      const token = runPathToken(text, start, i, slash, dots);
      if (token !== undefined) visitPath(token);
    }
  }
}
