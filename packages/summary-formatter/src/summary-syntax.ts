// The line grammar shared by the bracket renderer and the parser, so the two cannot drift apart.
// Items are `- …` lines at column 0; verbatim continuation lines start with two spaces; refs end a line.

export const SUMMARY_MARKER = "[context-fold summary v1]";
export const FOOTER_RULE = "---";
export const RECALL_HINT =
  "Recall: every (#N) above is a block of the session file; `context-fold recall --expand N` (or the recall tool) returns it in full, and a search finds anything not listed. Do not redo work already completed.";

export const SECTION = {
  goal: "Session Goal",
  preferences: "User Preferences",
  statements: "User Statements",
  files: "Files And Changes",
  commits: "Commits",
  anchors: "Anchors",
  previous: "Previous Summary",
  typeCatalog: "Type Catalog",
  outstanding: "Outstanding Context",
  earlierTurns: "Earlier Turns",
  status: "Current Status",
  brief: "Brief Transcript",
} as const;

export type SectionKey = keyof typeof SECTION;

export const STATUS_LABEL = { modified: "Modified", created: "Created", read: "Read" } as const;
export const TAG_FOUNDING = "[Founding request] ";
export const TAG_SCOPE = "[Scope change] ";
export const TAG_PREFERENCE = "[Preference] ";
export const TAG_CORRECTION = "[Correction] ";
/** A user statement said once: `- [User] text (#N)`; said n times: `- [User ×n] text (#N)`. */
export const TAG_USER = "[User] ";
export const TAG_USER_COUNTED = "[User ×";

export function statementTag(count: number): string {
  return count > 1 ? `${TAG_USER_COUNTED}${String(count)}] ` : TAG_USER;
}
export const OMISSION_PREFIX = "- … and ";
export const CONTINUATION = "  ";

export function refText(index: number): string {
  return `(#${String(index)})`;
}

/** A verbatim text as one `- ` item: first line after the prefix, later lines indented, the ref last. */
export function verbatimLines(prefix: string, text: string, index: number): string[] {
  const parts = text.split("\n");
  // A loop, not a callback made per call (compiled again after every full GC; this runs in the hook).
  const out: string[] = [];
  for (let i = 0; i < parts.length; i++) out.push(i === 0 ? `- ${prefix}${parts[i] ?? ""}` : `${CONTINUATION}${parts[i] ?? ""}`);
  out[out.length - 1] = `${out[out.length - 1] ?? ""} ${refText(index)}`;
  return out;
}

export function omissionLine(o: { count: number; what: string; recall: string }): string {
  return `${OMISSION_PREFIX}${String(o.count)} ${o.what} (recall: ${o.recall})`;
}

/** One-line text: whitespace runs (newlines included) become one space; trimmed. */
export function flat(text: string): string {
  return isFlat(text) ? text : text.replace(/\s+/g, " ").trim();
}

/**
 * Whether `flat` would leave `text` as it is, decided without a copy for the common case: characters
 * that are never whitespace (printable ASCII, and every other one but those `mayBeSpace` names) with
 * single inner spaces and none at either end. Any other character (tab, newline, a Unicode space) answers
 * false, and the regex decides.
 */
function isFlat(text: string): boolean {
  const last = text.length - 1;
  for (let i = 0; i <= last; i++) {
    const c = text.charCodeAt(i);
    if (c === 32) {
      if (i === 0 || i === last || text.charCodeAt(i + 1) === 32) return false;
    } else if (c < 33 || (c > 126 && mayBeSpace(c))) return false;
  }
  return true;
}

/**
 * Whether a character above U+007E may be whitespace to `\s` (and `trim`): U+007F–U+00A0, U+1680, U+180E,
 * U+2000–U+200A, U+2028, U+2029, U+202F, U+205F, U+3000, U+FEFF, a superset of the spaces and line
 * terminators JavaScript knows (a few non-spaces among them, which the regex then decides). Every other
 * one (an arrow, an ellipsis, a letter, half of an emoji) is never whitespace: a summary line holding
 * "→" or "…" takes the shortcut too.
 */
function mayBeSpace(c: number): boolean {
  return c <= 0xa0 || c === 0x1680 || c === 0x180e || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

/**
 * `flat` then `clip`, reading only the head of a long text (a 1 MB tool output costs what its first
 * few hundred characters cost).
 */
export function oneLine(text: string, max: number): string {
  return clip(flat(text.length > max * 2 + 64 ? text.slice(0, max * 2 + 64) : text), max);
}

/** Clip a one-line text to `max` characters (code points kept whole), with an ellipsis. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return `${text.slice(0, end)}…`;
}

/** Appends `items` to `out` (a loop: spreading a huge array into push() overflows the stack). */
export function pushAll(out: string[], items: readonly string[]): void {
  for (const item of items) out.push(item);
}
