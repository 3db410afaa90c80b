// Path and identifier tokens of one text in a single pass: both live only inside runs of
// [0-9A-Za-z_$./\-@+~], so the text is walked once and each run is handed to both scanners.
// Same tokens, same order per kind, as `pathTokens` (less its per-text dedup) and `scanIdentifierRanges`.
import { identifierRangesIn } from "./identifiers.js";
import { runPathToken } from "./paths.js";

// Non-zero for every ASCII code a path run or an identifier run can hold: PLAIN for lowercase letters and
// path punctuation, MARKED for what an identifier needs (upper case, digit, "_", "$"). A run of PLAIN
// characters with fewer than 4 "."/"-" holds no identifier (a uuid needs 4 connectors; everything else
// a digit, an upper-case letter or "_"), so the identifier scan skips it: most words are such runs.
const PLAIN = 1;
const MARKED = 2;
const RUN = new Uint8Array(128);
for (let c = 48; c <= 57; c++) RUN[c] = MARKED;
for (let c = 65; c <= 90; c++) RUN[c] = MARKED;
for (let c = 97; c <= 122; c++) RUN[c] = PLAIN;
for (const ch of "./-@+~") RUN[ch.charCodeAt(0)] = PLAIN;
for (const ch of "_$") RUN[ch.charCodeAt(0)] = MARKED;

const DOLLAR = 36;
const DASH = 45;
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
    let slash = false;
    let dots = 0;
    let dashes = 0;
    let dollar = false;
    let kinds = 0;
    while (i < n) {
      const d = text.charCodeAt(i);
      const kind = d < 128 ? (RUN[d] ?? 0) : 0;
      if (kind === 0) break;
      kinds |= kind;
      if (d === SLASH) slash = true;
      else if (d === DOT) dots += 1;
      else if (d === DASH) dashes += 1;
      else if (d === DOLLAR) dollar = true;
      i += 1;
    }
    if ((kinds & MARKED) !== 0 || dots + dashes >= 4) identifierRangesIn(text, start, i, visitIdentifier);
    if (!paths || (dots === 0 && !slash)) continue;
    if (dollar) pathsAroundDollars(text, start, i, visitPath);
    else {
      const token = runPathToken(text, start, i, slash, dots);
      if (token !== undefined) visitPath(token);
    }
  }
}
