// Path-shaped tokens in free text, and the one rule that makes a path repo-relative or absolute.
// A hand-written scanner (one pass, no regex over the text), so cost is linear whatever the input.
import { posix } from "node:path";

/** Longest token considered a path; longer runs (minified code, base64) are not paths. */
export const PATH_MAX = 1024;

// Character classes of the scanner, by ASCII code: 1 = word char, 2 = path punctuation.
const WORD = 1;
const PUNCT = 2;
const CLASS = new Uint8Array(128);
for (let c = 48; c <= 57; c++) CLASS[c] = WORD;
for (let c = 65; c <= 90; c++) CLASS[c] = WORD;
for (let c = 97; c <= 122; c++) CLASS[c] = WORD;
CLASS[95] = WORD; // _
for (const ch of "./-@+~") CLASS[ch.charCodeAt(0)] = PUNCT;

const COLON = 58;
const SLASH = 47;

/** Extensions accepted on a bare file name (no slash); with a slash any letter-led extension counts. */
const BARE_EXTENSIONS = new Set([
  "ts", "tsx", "mts", "cts", "js", "jsx", "mjs", "cjs", "json", "jsonl", "md", "mdx", "py", "rs", "go", "java",
  "kt", "swift", "rb", "php", "c", "h", "cc", "cpp", "hpp", "cs", "yaml", "yml", "toml", "txt", "sh", "bash",
  "zsh", "css", "scss", "html", "vue", "svelte", "sql", "lock", "xml", "ini", "cfg", "env", "csv", "tsv", "proto",
]);

/**
 * An extension text[from, to) as a number (letters case-folded, digits; base 37, so up to 10 characters
 * stay exact), or -1 when it holds another character: a run's extension is looked up without a slice
 * and a lower-cased copy (code is full of dotted runs).
 */
function extensionKey(text: string, from: number, to: number): number {
  let key = 0;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i) | 32;
    let digit: number;
    if (c >= 97 && c <= 122) digit = c - 96;
    else if (c >= 48 && c <= 57) digit = c - 21; // 27..36
    else return -1;
    key = key * 37 + digit;
  }
  return key;
}

const BARE_EXTENSION_KEYS = new Set([...BARE_EXTENSIONS].map((e) => extensionKey(e, 0, e.length)));

const EXTENSION = /\.([A-Za-z][A-Za-z0-9]{0,9})$/;

/** Is this (already trimmed) token shaped like a file path? */
export function isPathToken(token: string): boolean {
  if (token.length < 2 || token.length > PATH_MAX) return false;
  if (token.startsWith("//") || token.startsWith("@")) return false; // URL remainder, npm scope
  const home = token.startsWith("~/");
  if (token.startsWith("~") && !home) return false;
  const dotted = token.startsWith("./") || token.startsWith("../");
  const absolute = token.startsWith("/");
  const body = absolute ? token.slice(1) : home ? token.slice(2) : token;
  const segments = body.split("/");
  if (segments.some((s) => s.length === 0)) return false; // "a//b", "/", "x/"
  const last = segments[segments.length - 1] ?? "";
  if (!/[A-Za-z]/.test(last)) return false; // 1/2, 2025/11/20
  const ext = EXTENSION.exec(last);
  const hasExt = ext !== null && (last.length > (ext[0]?.length ?? 0) || last.startsWith("."));
  if (segments.length === 1) {
    if (absolute || home || dotted) return hasExt; // "/mode" is a slash command, "/tmp.txt" a file
    if (!hasExt || ext === null || last.startsWith(".")) return false; // ".test.ts" from a "*.test.ts" glob
    const extension = (ext[1] ?? "").toLowerCase();
    if (!BARE_EXTENSIONS.has(extension)) return false;
    const stem = last.slice(0, last.length - extension.length - 1);
    if (!/[a-z]/.test(stem)) return false;
    if (extension === "js" && /^[A-Z][a-z]+$/.test(stem)) return false; // "Node.js", "Vue.js" in prose
    return true;
  }
  if (absolute || home || dotted) return true;
  // A relative path needs an extension ("thinking/reasoning", "and/or" have none) and a first segment
  // that is not a host name (github.com/owner/repo).
  if (!hasExt) return false;
  const first = segments[0] ?? "";
  if (first.includes(".") && first !== "." && first !== "..") return false;
  return true;
}

/**
 * The candidate path of one run of path characters text[start, end) (`slash`: it holds a "/", `dots`:
 * how many "."), trimmed, or undefined when the run cannot be a path; `isPathToken` decides the rest.
 */
export function runPathToken(text: string, start: number, end: number, slash: boolean, dots: number): string | undefined {
  const to = runPathEnd(text, start, end, slash, dots);
  return to < 0 ? undefined : text.slice(start, to);
}

/**
 * `runPathToken` as a range: the candidate is text[start, result) (trailing ".", "-", "+" trimmed; it may
 * be empty), or the result is -1. A caller that dedups candidates by range slices only new ones.
 */
export function runPathEnd(text: string, start: number, end: number, slash: boolean, dots: number): number {
  if (dots === 0 && !slash) return -1;
  if (!slash) {
    // A bare name is a path only with a known extension: check it before slicing the whole run
    // (code is full of "this.value" and "a.b" runs).
    let last = end;
    while (last > start && text.charCodeAt(last - 1) === 46) last -= 1; // "see package.json."
    // Search back at most 11 chars for the extension's dot (never past the run: stays linear).
    let dot = last - 1;
    while (dot > start && dot >= last - 11 && text.charCodeAt(dot) !== 46) dot -= 1;
    if (text.charCodeAt(dot) !== 46 || last - dot - 1 < 1 || last - dot - 1 > 10) return -1;
    if (!BARE_EXTENSION_KEYS.has(extensionKey(text, dot + 1, last))) return -1;
  }
  // "scheme://host/…" and "host:path" (git remotes) leave a run right after a colon.
  if (start > 0 && text.charCodeAt(start - 1) === COLON && slash) return -1;
  if (end - start > PATH_MAX) return -1;
  let to = end;
  while (to > start) {
    const c = text.charCodeAt(to - 1);
    if (c === 46 /* . */ || c === 45 /* - */ || c === 43 /* + */) to -= 1;
    else break;
  }
  return to;
}

/**
 * Path-shaped tokens of `text`, verbatim, deduplicated, in order of appearance. URLs, `a/b` prose,
 * numbers and npm scopes are not paths.
 */
export function pathTokens(text: string): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c >= 128 || CLASS[c] === 0) {
      i += 1;
      continue;
    }
    const start = i;
    let slash = false;
    let dots = 0;
    while (i < n) {
      const d = text.charCodeAt(i);
      if (d >= 128 || CLASS[d] === 0) break;
      if (d === SLASH) slash = true;
      else if (d === 46) dots += 1;
      i += 1;
    }
    const token = runPathToken(text, start, i, slash, dots);
    if (token === undefined || seen.has(token) || !isPathToken(token)) continue;
    seen.add(token);
    out.push(token);
  }
  return out;
}

/**
 * Repo-relative when the path lies under `cwd` (a relative path is taken relative to `cwd`), absolute
 * otherwise; `~/…` stays as written. Without a cwd a path is only normalized.
 */
export function normalizePath(path: string, cwd?: string): string {
  if (path.startsWith("~")) return posix.normalize(path);
  if (cwd === undefined || cwd.length === 0 || !cwd.startsWith("/")) {
    const normal = posix.normalize(path);
    return normal.startsWith("./") ? normal.slice(2) : normal;
  }
  const root = resolvedRoot(cwd);
  // A path with nothing to resolve (no "." or ".." segment, no empty one, no trailing "/") is what
  // `posix.resolve` would return, or the root joined to it: most paths are, and resolve allocates.
  const plain = path.length > 0 && !path.endsWith("/") && !path.includes("//") && !DOT_SEGMENT.test(path);
  const absolute = plain ? (path.startsWith("/") ? path : root === "/" ? `/${path}` : `${root}/${path}`) : posix.resolve(cwd, path);
  if (absolute === root) return ".";
  const prefix = root.endsWith("/") ? root : `${root}/`;
  return absolute.startsWith(prefix) ? absolute.slice(prefix.length) : absolute;
}

/** A "." or ".." segment. */
const DOT_SEGMENT = /(?:^|\/)\.{1,2}(?:\/|$)/;

// The last cwd resolved: a session has one cwd, and every path of it is normalized against it.
let lastCwd = "";
let lastRoot = "/";
function resolvedRoot(cwd: string): string {
  if (cwd !== lastCwd) {
    lastRoot = posix.resolve(cwd);
    lastCwd = cwd;
  }
  return lastRoot;
}

// ---- the one path normaliser of file lists (facts, the summary's file section, seed `files`) ----

/** "http://…", "file:///…", "agent://…", "artifact://8" and "artifact:/8" (a scheme of two letters or more). */
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]{1,31}:\//;
/** A location suffix on the last segment: ":12", ":175-360", ":raw", ":1-5:raw", ":12:3". */
const LOCATION_SUFFIX = /^(?::(?:\d{1,9}(?:-\d{1,9})?|[A-Za-z]{1,12}))+$/;
/** A letter or number outside ASCII: the only characters `withoutLeadingJunk` asks a regex about. */
const LETTER_OR_NUMBER = /^[\p{L}\p{N}]/u;

/**
 * `p` without the characters that lead a path token in prose or markup but are not part of it (all but
 * letters, numbers and `_./~@+-`). A scan that reads ASCII by its code and asks the Unicode regex only of
 * a character beyond it: the regex over the whole token (`^[^\p{L}\p{N}_./~@+-]+`, Unicode classes) is
 * compiled again after each full GC flushed its code, which cost more than every path of a turn.
 */
function withoutLeadingJunk(p: string): string {
  let start = 0;
  while (start < p.length) {
    const c = p.charCodeAt(start);
    if (c < 128) {
      const keep = (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 46 || c === 47 || c === 126 || c === 64 || c === 43 || c === 45;
      if (keep) break;
      start += 1;
      continue;
    }
    const code = p.codePointAt(start) ?? c;
    const width = code > 0xffff ? 2 : 1;
    if (LETTER_OR_NUMBER.test(p.slice(start, start + width))) break;
    start += width;
  }
  return start === 0 ? p : p.slice(start);
}

/** `p` without trailing punctuation ("a.ts).", "src/"): a backwards scan, no regex. */
function trimTrailing(p: string): string {
  let end = p.length;
  while (end > 1) {
    const c = p.charCodeAt(end - 1);
    const keep = (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 43 || c === 126 || c === 64 || c === 45 || c >= 128;
    if (keep) break;
    end -= 1;
  }
  return end === p.length ? p : p.slice(0, end);
}

/**
 * One file path as tools, diffs and summaries print it, made a file-list entry, or undefined when it is
 * not a file: a URL or other scheme, `.`/`..`, a path truncated with a leading "…/" or ".../", markup.
 * A line or range suffix (`a.ts:12`, `a.ts:175-360`, `a.ts:raw`) names the file; git's `a/` `b/` diff
 * prefixes are dropped; the result goes through `normalizePath` (cwd-relative when under `cwd`).
 */
export function cleanPath(raw: string, cwd?: string): string | undefined {
  let p = raw.trim();
  if (p.length === 0 || p.length > PATH_MAX || p.includes("\n") || p.includes("\\n") || p.includes("<") || p.includes(">")) return undefined;
  if (p.startsWith("…") || p.startsWith("...") || p.includes("/…") || p.includes("/...")) return undefined;
  p = withoutLeadingJunk(p);
  if (SCHEME.test(p)) return undefined;
  const slash = p.lastIndexOf("/");
  const colon = p.indexOf(":", slash + 1);
  if (colon >= 0) {
    if (!LOCATION_SUFFIX.test(p.slice(colon))) return undefined;
    p = p.slice(0, colon);
  }
  p = trimTrailing(p);
  if ((p.startsWith("a/") || p.startsWith("b/")) && p.length > 2) p = p.slice(2);
  if (p.length === 0 || p === "." || p === ".." || p === "/" || p === "./" || p === "~") return undefined;
  const normal = normalizePath(p, cwd);
  return normal === "." || normal === ".." ? undefined : normal;
}

/**
 * The paths of a file list as an earlier summary wrote it: one per line, or several glued by escaped
 * newlines ("a.ts\\nb.ts"), markup tags and "(34 more files omitted)" notes dropped; each through `cleanPath`.
 */
export function filePathsOfList(text: string, cwd?: string): string[] {
  const out: string[] = [];
  for (const piece of text.replaceAll("\\n", "\n").split(/\n|<[^<>\n]{0,64}>/)) {
    const t = piece.trim();
    if (t.length === 0 || t.startsWith("…") || t.startsWith("(") || t.includes(" ")) continue;
    const p = cleanPath(t, cwd);
    if (p !== undefined && !out.includes(p)) out.push(p);
  }
  return out;
}

/**
 * `files` without the directories among them: a path another listed path lies under (`src` beside
 * `src/a.ts`; a harness's `read` of a directory, an earlier summary listing one) is a directory, never a
 * file. Order kept; the same list back when none is. Linear in the total length of the paths.
 */
export function withoutDirectories<T extends { readonly path: string }>(files: readonly T[]): readonly T[] {
  if (files.length < 2) return files;
  const parents = new Set<string>();
  for (const f of files) {
    for (let at = f.path.indexOf("/", 1); at > 0; at = f.path.indexOf("/", at + 1)) parents.add(f.path.slice(0, at));
  }
  let dirs = 0;
  for (const f of files) if (parents.has(withoutTrailingSlashes(f.path))) dirs++;
  if (dirs === 0) return files;
  const out: T[] = [];
  for (const f of files) if (!parents.has(withoutTrailingSlashes(f.path))) out.push(f);
  return out;
}

function withoutTrailingSlashes(path: string): string {
  let end = path.length;
  while (end > 1 && path.charCodeAt(end - 1) === 47) end--;
  return end === path.length ? path : path.slice(0, end);
}
