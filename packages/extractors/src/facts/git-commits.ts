// Commits read from real git output only (`[branch abc1234] subject`, fast-forward `Updating a..b`),
// never from a bare hex string: a hash counts only inside git's own output shapes.

import type { CommitKind } from "./types.js";

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

/**
 * Commits git printed in `output`. When the command is unknown (a `!cmd` is always known; a
 * hand-fed block may not be), a bracket line must be followed by git's "N files changed" line.
 */
export function parseGitCommits(output: string, command: string | undefined): ParsedCommit[] {
  const out: ParsedCommit[] = [];
  if (command !== undefined && !GIT_WORD.test(command)) return out;
  if (output.indexOf("[") < 0 && output.indexOf("Updating ") < 0) return out;
  const kind = commitKindOf(command);
  let pos = 0;
  const n = output.length;
  while (pos < n) {
    let nl = output.indexOf("\n", pos);
    if (nl < 0) nl = n;
    const line = output.slice(pos, Math.min(nl, pos + 900));
    const next = nl < n ? output.slice(nl + 1, Math.min(n, nl + 80)) : "";
    pos = nl + 1;
    const first = line.charCodeAt(0);
    if (first === 91 /* [ */) {
      const m = BRACKET_LINE.exec(line);
      if (m === null) continue;
      const body = m[1] ?? "";
      const space = body.lastIndexOf(" ");
      if (space <= 0) continue;
      const hash = body.slice(space + 1);
      if (!HEX_HASH.test(hash)) continue;
      if (command === undefined && !FILES_CHANGED.test(next)) continue;
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
