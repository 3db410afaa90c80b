// Byte-level tests of a session file's lines, made before any JSON parse: a blank line, and whether a
// byte range looks like one whole entry. A torn write can glue two entries on one line (`}{"type"`): these
// find the seams so each piece is parsed alone. Kept apart from the builder that decides what to do with them.

/** `}{"type"` cannot occur outside a string in valid JSON, nor unescaped inside one: a torn-write seam. */
export const GLUE = Buffer.from('}{"type"', "utf8");

export function isBlank(buf: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = buf[i];
    if (c !== 0x20 && c !== 0x09 && c !== 0x0d) return false;
  }
  return true;
}

/** `{"type"` then optional whitespace and `:` at the start, `}` (before trailing whitespace) at the end. */
export function looksLikeEntry(buf: Buffer, from: number, to: number): boolean {
  let end = to;
  while (end > from && (buf[end - 1] === 0x20 || buf[end - 1] === 0x0d || buf[end - 1] === 0x09)) end -= 1;
  if (buf[end - 1] !== 0x7d || buf[from] !== 0x7b) return false;
  if (!buf.subarray(from, from + GLUE.length - 1).equals(GLUE.subarray(1))) return true;
  let at = from + GLUE.length - 1;
  while (at < end && (buf[at] === 0x20 || buf[at] === 0x09)) at += 1;
  return buf[at] === 0x3a;
}
