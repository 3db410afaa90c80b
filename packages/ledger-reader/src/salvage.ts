// What can still be read from a line that does not parse (a masking script's broken escape, a write cut
// short): a tolerant scan over its string literals. Pi drops such a line; we keep its readable fields so
// recall can find the text and `inspect` can say which entry the break orphaned. Never an entry: the
// line gets no `#N`.
import type { Salvage } from "./types.js";

/** Keys whose string values are session text (message content, tool output, summaries, commands). */
const TEXT_KEYS = new Set(["text", "content", "thinking", "output", "summary", "command", "errorMessage"]);
/** Keys read once, from the first occurrence (the entry's own fields come before nested ones). */
const ID_KEYS = ["type", "id", "parentId", "role", "toolName", "toolCallId"] as const;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;

const ESCAPES: Record<string, string> = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };

function isSpace(c: number | undefined): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a;
}

/**
 * Decode the string literal whose opening quote is at `start`. A broken escape (`\*`) keeps the
 * character after the backslash; an unterminated literal runs to `end`. Returns the text and the
 * index after the closing quote. Linear: one pass, no backtracking.
 */
function readString(text: string, start: number, end: number): { value: string; next: number } {
  let out = "";
  let i = start + 1;
  let run = i;
  while (i < end) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      out += text.slice(run, i);
      return { value: out, next: i + 1 };
    }
    if (c === BACKSLASH) {
      out += text.slice(run, i);
      const e = text[i + 1];
      if (e === "u" && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) {
        out += String.fromCharCode(Number.parseInt(text.slice(i + 2, i + 6), 16));
        i += 6;
      } else if (e !== undefined && ESCAPES[e] !== undefined) {
        out += ESCAPES[e];
        i += 2;
      } else {
        // The damage itself: a lone backslash. Keep what follows as written.
        i += 1;
      }
      run = i;
      continue;
    }
    i += 1;
  }
  out += text.slice(run, end);
  return { value: out, next: end };
}

/**
 * The readable fields of a damaged line's text: the first `type`, `id`, `parentId`, `role`, … and every
 * text-bearing string value, joined by "\n". undefined when nothing readable is there.
 */
export function salvageText(text: string, withText: boolean): Salvage | undefined {
  const fields: Record<string, string> = {};
  const texts: string[] = [];
  const end = text.length;
  let i = 0;
  let key: string | undefined;
  while (i < end) {
    const at = text.indexOf('"', i);
    if (at === -1) break;
    const { value, next } = readString(text, at, end);
    let j = next;
    while (j < end && isSpace(text.charCodeAt(j))) j += 1;
    if (text.charCodeAt(j) === COLON) {
      key = value;
      i = j + 1;
      continue;
    }
    // A string value: the key it belongs to is the last key seen directly before it, if any.
    const before = text.slice(Math.max(i, at - 8), at).trim();
    const direct = key !== undefined && (before === "" || before.endsWith(":") || before === "[");
    if (direct && key !== undefined) {
      if ((ID_KEYS as readonly string[]).includes(key) && fields[key] === undefined) fields[key] = value;
      else if (TEXT_KEYS.has(key) && value.length > 0) texts.push(value);
    }
    key = undefined;
    i = next;
  }
  if (fields["id"] === undefined && texts.length === 0) return undefined;
  const salvage: { -readonly [K in keyof Salvage]: Salvage[K] } = { text: withText ? texts.join("\n") : "" };
  for (const k of ID_KEYS) {
    const v = fields[k];
    if (v !== undefined) salvage[k] = v;
  }
  return salvage;
}
