// Commits read from real git output only (`[branch abc1234] subject`, fast-forward `Updating a..b`),
// never from a bare hex string: a hash counts only inside git's own output shapes.

import type { CommitKind } from "./types.js";
import { memoizeByOwner } from "../text-memo.js";

export interface ParsedCommit {
  readonly hash: string;
  readonly subject: string;
  readonly branch?: string;
  readonly kind: CommitKind;
}

// `[main 45ffe0a] subject`, `[main (root-commit) 45ffe0a] subject`, `[detached HEAD 45ffe0a] subject`.
// The bracket body is split by hand (last space) so the regex has no backtracking between classes.
const BRACKET_LINE = /^\[([^\]\n]{1,300})\] ([^\n]{0,500})/;
const HEX_HASH = /^[0-9a-f]{7,40}$/;
const FILES_CHANGED = /^ ?\d{1,9} files? changed/;
const FAST_FORWARD = /^Updating ([0-9a-f]{7,40})\.\.([0-9a-f]{7,40})$/;
const GIT_WORD = /(?:^|[\s;&|(])git(?:\s|$)/;

/** What kind of git operation a shell command ran, judged from the command text. */
export function commitKindOf(command: string | undefined): CommitKind {
  if (command === undefined) return "commit";
  if (command.includes("--amend")) return "amend";
  if (command.includes("cherry-pick")) return "cherry-pick";
  if (/\bgit\s+(?:-\S+\s+)?(?:merge|pull)\b/.test(command)) return "merge";
  return "commit";
}

/** Is `code` a lowercase hex digit (what HEX_HASH accepts)? */
function isHexCode(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 97 && code <= 102);
}

/**
 * Can the line at [start, end) of `text` (starting with `[`) pass BRACKET_LINE with a hash HEX_HASH
 * accepts? Checked on the text in place, a necessary condition: `[`, 1–300 characters without `]`, `] `,
 * and the body's last word 7–40 lowercase hex characters after a space that is not the body's first.
 */
function mayBeBracketLine(text: string, start: number, end: number): boolean {
  const close = text.indexOf("]", start + 1);
  if (close < 0 || close >= end || close - start - 1 < 1 || close - start - 1 > 300 || text.charCodeAt(close + 1) !== 32) return false;
  let at = close - 1;
  while (at > start && isHexCode(text.charCodeAt(at))) at--;
  const hexLength = close - 1 - at;
  return text.charCodeAt(at) === 32 && at > start + 1 && hexLength >= 7 && hexLength <= 40;
}

/**
 * Commits git printed in `output`. When the command is unknown or does not run git itself (a script
 * that commits, a custom tool), a bracket line must be followed by git's "N files changed" line.
 */
export function parseGitCommits(output: string, command: string | undefined): ParsedCommit[] {
  const out: ParsedCommit[] = [];
  if (output.indexOf("[") < 0 && output.indexOf("Updating ") < 0) return out;
  const direct = command !== undefined && GIT_WORD.test(command);
  const kind = commitKindOf(direct ? command : undefined);
  let pos = 0;
  const n = output.length;
  while (pos < n) {
    let nl = output.indexOf("\n", pos);
    if (nl < 0) nl = n;
    const first = output.charCodeAt(pos);
    // Most lines cannot be either shape: skipped without taking the line out (no string per line).
    if (first === 91 /* [ */ ? !mayBeBracketLine(output, pos, nl) : first !== 85 /* U */) {
      pos = nl + 1;
      continue;
    }
    const line = output.slice(pos, Math.min(nl, pos + 900));
    const next = nl < n ? output.slice(nl + 1, Math.min(n, nl + 80)) : "";
    pos = nl + 1;
    if (first === 91 /* [ */) {
      const m = BRACKET_LINE.exec(line);
      if (m === null) continue;
      const body = m[1] ?? "";
      const space = body.lastIndexOf(" ");
      if (space <= 0) continue;
      const hash = body.slice(space + 1);
      if (!HEX_HASH.test(hash)) continue;
      if (!direct && !FILES_CHANGED.test(next)) continue;
      let branch = body.slice(0, space).trim();
      if (branch.endsWith("(root-commit)")) branch = branch.slice(0, -"(root-commit)".length).trim();
      const subject = (m[2] ?? "").trim();
      out.push(branch.length > 0 ? { hash, subject, branch, kind } : { hash, subject, kind });
    } else if (first === 85 /* U */) {
      const m = FAST_FORWARD.exec(line);
      if (m === null || !next.startsWith("Fast-forward")) continue;
      out.push({ hash: m[2] ?? "", subject: `fast-forward from ${m[1] ?? ""}`, kind: "merge" });
    }
  }
  return out;
}

const HEX_RUN = /[0-9a-f]{7,40}/g;
const COMMIT_WORD = /commit/i;
/** Lines of a tool's output looked at for commits it reports in its own words. */
const REPORT_LINES = 400;

/**
 * Commits a tool reports in its own words ("Committed 3f2a9c1: fix chart", "commit abc1234 created on
 * main"): a line holding the word "commit" and a hex token of 7–40 characters with a letter and a digit,
 * standing alone. For tools that act (not shell `git log`/`git show`, whose hashes are history).
 */
export function reportedCommits(output: string): ParsedCommit[] {
  const out: ParsedCommit[] = [];
  if (!COMMIT_WORD.test(output.length > 64 * 1024 ? output.slice(0, 64 * 1024) : output)) return out;
  const lines = output.slice(0, 64 * 1024).split("\n", REPORT_LINES);
  for (const raw of lines) {
    if (!COMMIT_WORD.test(raw)) continue;
    const line = raw.length > 500 ? raw.slice(0, 500) : raw;
    HEX_RUN.lastIndex = 0;
    let m: RegExpExecArray | null;
    while ((m = HEX_RUN.exec(line)) !== null) {
      const hash = m[0];
      const before = m.index > 0 ? line.charCodeAt(m.index - 1) : 32;
      const after = m.index + hash.length < line.length ? line.charCodeAt(m.index + hash.length) : 32;
      const alone = !isWordChar(before) && !isWordChar(after);
      if (!alone || !/[a-f]/.test(hash) || !/[0-9]/.test(hash) || out.some((c) => c.hash === hash)) continue;
      const subject = line.slice(m.index + hash.length).replace(/^[\s:)\]-]+/, "").trim() || line.trim();
      out.push({ hash, subject: subject.length > 200 ? subject.slice(0, 199) + "…" : subject, kind: "commit" });
      break;
    }
  }
  return out;
}

function isWordChar(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 47 || c === 46;
}

/** `parseGitCommits` of the last turns' outputs, by block (with its output and command). */
export const recentGitCommits: (block: object, output: string, command: string | undefined) => ParsedCommit[] = memoizeByOwner(parseGitCommits);
