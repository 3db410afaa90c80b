// Hex constants the user or agent wrote (0xDEADBEEF, #b5bd68, cc6666, sha-like ids) — never commits:
// the caller drops any value that is a prefix of a known commit hash, or that a commit hash starts with.

// `0x…`, `#rgb(a)` colours and bare hex words with at least one digit and one letter (so "added",
// "facade" and "123456" are not constants). Bounded runs, one pass.
const HEX_TOKEN = /(?:\b0[xX][0-9a-fA-F]{2,64}\b|#[0-9a-fA-F]{3,8}\b|\b[0-9a-fA-F]{6,64}\b)/g;
const HAS_DIGIT = /[0-9]/;
const HAS_HEX_LETTER = /[a-fA-F]/;

/** Hex-looking constants in `text`, in order, as written (deduplicated case-insensitively). */
export function hexTokens(text: string): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const src = text.length > 64 * 1024 ? text.slice(0, 64 * 1024) : text;
  HEX_TOKEN.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = HEX_TOKEN.exec(src)) !== null) {
    const value = m[0];
    const first = value.charCodeAt(0);
    if (first !== 35 /* # */ && !(value.length > 2 && (value[1] === "x" || value[1] === "X") && value[0] === "0")) {
      if (!HAS_DIGIT.test(value) || !HAS_HEX_LETTER.test(value)) continue;
    }
    if (first === 35 && value.length !== 4 && value.length !== 5 && value.length !== 7 && value.length !== 9) continue;
    const key = value.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(value);
  }
  return out;
}

/** Is `value` (bare hex) one of the commit hashes, either way round as a prefix? */
export function isCommitHash(value: string, commitHashes: readonly string[]): boolean {
  const v = value.toLowerCase();
  if (v.length < 7) return false;
  for (const h of commitHashes) {
    if (h.startsWith(v) || v.startsWith(h)) return true;
  }
  return false;
}

// In tool output only long `0x` literals count (magic numbers, masks): bare hex there is mostly hashes and ids.
const HEX_LITERAL = /\b0x[0-9a-fA-F]{8,64}\b/g;

/** Lower-case `0x` literals of at least 8 hex digits in tool output, in order, deduplicated case-insensitively. */
export function hexLiterals(text: string): string[] {
  const out: string[] = [];
  if (text.indexOf("0x") < 0) return out;
  const seen = new Set<string>();
  HEX_LITERAL.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = HEX_LITERAL.exec(text)) !== null) {
    const key = m[0].toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(m[0]);
  }
  return out;
}
