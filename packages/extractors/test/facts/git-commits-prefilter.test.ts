// parseGitCommits skips lines that cannot be a commit line without taking them out of the output; this
// compares it with the regexes applied to every line (the function as it was before that check), on
// lines built around the edges of git's bracket shape: body lengths near 300, hex runs near 7 and 40,
// spaces and brackets in odd places, upper-case hex, "Updating" lines, long lines.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { commitKindOf, parseGitCommits, type ParsedCommit } from "@context-fold/extractors";

const BRACKET_LINE = /^\[([^\]\n]{1,300})\] ([^\n]{0,500})/;
const HEX_HASH = /^[0-9a-f]{7,40}$/;
const FILES_CHANGED = /^ ?\d{1,9} files? changed/;
const FAST_FORWARD = /^Updating ([0-9a-f]{7,40})\.\.([0-9a-f]{7,40})$/;
const GIT_WORD = /(?:^|[\s;&|(])git(?:\s|$)/;

/** Every line through the regexes, as parseGitCommits did before it looked at a line in place. */
function everyLine(output: string, command: string | undefined): ParsedCommit[] {
  const out: ParsedCommit[] = [];
  if (output.indexOf("[") < 0 && output.indexOf("Updating ") < 0) return out;
  const direct = command !== undefined && GIT_WORD.test(command);
  const kind = commitKindOf(direct ? command : undefined);
  let pos = 0;
  const n = output.length;
  while (pos < n) {
    let nl = output.indexOf("\n", pos);
    if (nl < 0) nl = n;
    const line = output.slice(pos, Math.min(nl, pos + 900));
    const next = nl < n ? output.slice(nl + 1, Math.min(n, nl + 80)) : "";
    pos = nl + 1;
    const first = line.charCodeAt(0);
    if (first === 91) {
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
    } else if (first === 85) {
      const m = FAST_FORWARD.exec(line);
      if (m === null || !next.startsWith("Fast-forward")) continue;
      out.push({ hash: m[2] ?? "", subject: `fast-forward from ${m[1] ?? ""}`, kind: "merge" });
    }
  }
  return out;
}

const piece = fc.oneof(
  fc.constantFrom("[", "]", " ", "\n", "] ", " 1 file changed", " 3 files changed", "Updating ", "..", "Fast-forward", "(root-commit)", "main", "detached HEAD", "U", "\t", "é"),
  fc.stringMatching(/^[0-9a-f]{1,45}$/),
  fc.stringMatching(/^[0-9A-Fa-g]{5,12}$/),
  fc.integer({ min: 0, max: 320 }).map((n) => "x".repeat(n)),
  fc.integer({ min: 0, max: 320 }).map((n) => " ".repeat(n)),
);
const bracketLine = fc
  .tuple(fc.string({ maxLength: 8 }), fc.integer({ min: 0, max: 310 }), fc.constantFrom(" ", "  ", "", "x"), fc.stringMatching(/^[0-9a-fA-F]{0,44}$/), fc.constantFrom("] ", "]", "]x", " ] "), fc.string({ maxLength: 20 }))
  .map(([branch, pad, gap, hex, close, subject]) => `[${branch}${"b".repeat(pad)}${gap}${hex}${close}${subject}`);
const output = fc.array(fc.oneof(bracketLine, fc.array(piece, { maxLength: 6 }).map((p) => p.join(""))), { maxLength: 12 }).map((lines) => lines.join("\n"));
const command = fc.constantFrom(undefined, "git commit -m x", "./release.sh", "git pull", "git commit --amend");

describe("parseGitCommits looks at a line in place before taking it out", () => {
  it("finds what the regexes on every line find", () => {
    fc.assert(
      fc.property(output, command, (text, cmd) => {
        expect(parseGitCommits(text, cmd)).toEqual(everyLine(text, cmd));
      }),
      { numRuns: 3000 },
    );
  });

  it("the shapes at the edges: body of 1 and 300 characters, hashes of 7 and 40, a space first", () => {
    const lines = [
      `[m ${"a".repeat(7)}] s`,
      `[m ${"a".repeat(40)}] s`,
      `[m ${"a".repeat(41)}] s`,
      `[m ${"a".repeat(6)}] s`,
      `[${"b".repeat(290)} ${"c".repeat(9)}] s`,
      `[${"b".repeat(291)} ${"c".repeat(9)}] s`,
      `[ abcdef12] s`,
      `[m  abcdef12] s`,
      `[m abcdef12]s`,
      `[m abcdef12]`,
      `[m ABCDEF12] s`,
      "Updating 1234567..89abcde",
      "Fast-forward",
    ];
    for (const cmd of ["git commit", undefined]) {
      const text = lines.map((line) => `${line}\n 1 file changed`).join("\n");
      expect(parseGitCommits(text, cmd)).toEqual(everyLine(text, cmd));
    }
    expect(parseGitCommits(`[m ${"a".repeat(7)}] s`, "git commit")).toHaveLength(1);
    expect(parseGitCommits(`[${"b".repeat(290)} ${"c".repeat(9)}] s`, "git commit")).toHaveLength(1);
  });
});
