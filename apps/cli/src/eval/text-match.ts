// How the evaluation decides that a summary "holds" an item: verbatim modulo whitespace runs (the
// renderers indent continuation lines), whole tokens for paths and hashes, and "… and N more X" lines.

/** Whitespace runs (newlines included) become one space; trimmed. Linear: one pass, no regex. */
export function collapseWhitespace(text: string): string {
  let out = "";
  let pending = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 32 || c === 9 || c === 10 || c === 13 || c === 12 || c === 11) {
      pending = out.length > 0;
      continue;
    }
    if (pending) out += " ";
    pending = false;
    out += text[i];
  }
  return out;
}

/** A text prepared once for many look-ups. */
export interface Haystack {
  readonly raw: string;
  readonly collapsed: string;
}

export function haystackOf(...texts: readonly string[]): Haystack {
  const raw = texts.join("\n");
  return { raw, collapsed: collapseWhitespace(raw) };
}

/** `item` occurs in the haystack with the same words in the same order (whitespace runs ignored). */
export function holdsVerbatim(hay: Haystack, item: string): boolean {
  const needle = collapseWhitespace(item);
  return needle.length > 0 && hay.collapsed.includes(needle);
}

function isTokenChar(code: number): boolean {
  return (
    (code >= 48 && code <= 57) || // 0-9
    (code >= 65 && code <= 90) || // A-Z
    (code >= 97 && code <= 122) || // a-z
    code === 95 || // _
    code === 45 || // -
    code === 46 || // .
    code === 47 || // /
    code === 92 || // backslash
    code === 126 // ~
  );
}

/**
 * `token` occurs with no path/identifier character glued on either side, so "main.ts" is not found
 * inside "src/cli/main.ts" and "abc1234" not inside "abc1234ff". A trailing "." after the token is
 * allowed (end of a sentence). Linear in the haystack: indexOf steps forward past every occurrence.
 */
export function holdsToken(text: string, token: string): boolean {
  if (token.length === 0) return false;
  let from = 0;
  for (;;) {
    const at = text.indexOf(token, from);
    if (at < 0) return false;
    const before = at === 0 ? -1 : text.charCodeAt(at - 1);
    const endAt = at + token.length;
    const after = endAt >= text.length ? -1 : text.charCodeAt(endAt);
    const afterNext = endAt + 1 >= text.length ? -1 : text.charCodeAt(endAt + 1);
    const beforeOk = before < 0 || !isTokenChar(before);
    const afterOk = after < 0 || !isTokenChar(after) || (after === 46 && (afterNext < 0 || !isTokenChar(afterNext)));
    if (beforeOk && afterOk) return true;
    from = at + 1;
  }
}

/** One "… and 37 more read files (recall: files)" line of a summary or digest. */
export interface OmissionLine {
  readonly count: number;
  readonly what: string;
  readonly recall: string;
}

const OMISSION_MARK = "… and ";
const RECALL_MARK = " (recall: ";

/** Every omission line: "… and <count> <what> (recall: <where>)", wherever it sits on its line. */
export function omissionLines(text: string): OmissionLine[] {
  const out: OmissionLine[] = [];
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf("\n", start);
    if (end < 0) end = text.length;
    const line = text.slice(start, end);
    start = end + 1;
    const mark = line.indexOf(OMISSION_MARK);
    if (mark < 0) continue;
    let i = mark + OMISSION_MARK.length;
    let digits = "";
    while (i < line.length && line.charCodeAt(i) >= 48 && line.charCodeAt(i) <= 57) digits += line[i++];
    if (digits === "" || line[i] !== " ") continue;
    const recallAt = line.indexOf(RECALL_MARK, i);
    const close = line.lastIndexOf(")");
    if (recallAt < 0 || close < recallAt) continue;
    out.push({ count: Number(digits), what: line.slice(i + 1, recallAt), recall: line.slice(recallAt + RECALL_MARK.length, close) });
  }
  return out;
}

/** Items a summary counts for a category: the sum over the omission lines whose `what` it accepts. */
export function countedBy(omissions: readonly OmissionLine[], accepts: (what: string) => boolean): number {
  let n = 0;
  for (const o of omissions) if (accepts(o.what)) n += o.count;
  return n;
}

/**
 * `name` (a file's basename) occurs as the last component of a path or on its own: preceded by the
 * start, a separator or "/", and followed by no identifier character ("x/README.md" and "README.md"
 * hold "README.md"; "myREADME.md" and "README.md5" do not). Linear: indexOf steps forward.
 */
export function holdsPathTail(text: string, name: string): boolean {
  if (name.length === 0) return false;
  let from = 0;
  for (;;) {
    const at = text.indexOf(name, from);
    if (at < 0) return false;
    const before = at === 0 ? -1 : text.charCodeAt(at - 1);
    const endAt = at + name.length;
    const after = endAt >= text.length ? -1 : text.charCodeAt(endAt);
    const afterNext = endAt + 1 >= text.length ? -1 : text.charCodeAt(endAt + 1);
    const beforeOk = before < 0 || before === 47 || !isTokenChar(before);
    const afterOk = after < 0 || !isTokenChar(after) || (after === 46 && (afterNext < 0 || !isTokenChar(afterNext)));
    if (beforeOk && afterOk) return true;
    from = at + 1;
  }
}

function isHexChar(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 97 && code <= 102) || (code >= 65 && code <= 70);
}

/**
 * A commit named by its first seven hex digits: `prefix` occurs with no identifier character before it,
 * followed by the end, a non-identifier character or more hex digits (a longer form of the same hash).
 * Case-insensitive for the hex letters. Linear.
 */
export function holdsHashPrefix(text: string, prefix: string): boolean {
  if (prefix.length === 0) return false;
  const hay = text.toLowerCase();
  const needle = prefix.toLowerCase();
  let from = 0;
  for (;;) {
    const at = hay.indexOf(needle, from);
    if (at < 0) return false;
    const before = at === 0 ? -1 : hay.charCodeAt(at - 1);
    let end = at + needle.length;
    while (end < hay.length && isHexChar(hay.charCodeAt(end))) end++;
    const after = end >= hay.length ? -1 : hay.charCodeAt(end);
    if ((before < 0 || !isTokenChar(before)) && (after < 0 || !isTokenChar(after) || after === 46)) return true;
    from = at + 1;
  }
}
