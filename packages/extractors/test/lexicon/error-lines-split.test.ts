// errorLines scans inline and line-start markers apart; this pins it to the one-regex scan it replaced
// (a frozen copy, the oracle below) on real fixture texts, generated sessions, random text over the
// markers' building blocks, and adversarial inputs.
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { lineageBlocks, readSession } from "@context-fold/ledger-reader";
import { generateSession } from "@context-fold/session-gen";
import { describeShared, LINEAR_TIME_MS, sessionFixtures, tempDir } from "@context-fold/test-support";
import { clipLine, ERROR_LINE_MAX, errorLines, isFalseAlarm } from "@context-fold/extractors";

const ORACLE_MARKERS = [
  // lowercase forms summaries lose, plus their capitalised / shouted spellings
  String.raw`\b(?:[Ff]ail(?:ed|ure|ing)|FAIL(?:ED|URE)?|[Ff]atal|FATAL)\b`,
  String.raw`npm ERR!`,
  String.raw`Segmentation fault`,
  String.raw`Permission denied`,
  String.raw`core dumped`,
  String.raw`[✗✘✖]`,
  // tracebacks: Python, Java, Rust panics, Go panics, Node uncaught errors
  String.raw`Traceback \(most recent call last\)`,
  String.raw`Exception in thread`,
  String.raw`\bCaused by:`,
  String.raw`panicked at`,
  String.raw`\bpanic:`,
  String.raw`\bUncaught\b`,
  String.raw`\bUnhandled(?:PromiseRejection| promise rejection| exception)`,
  // error-class markers
  // lowercase "error" only where a tool prints it (line start), not "catch (error: unknown)" in code;
  // "\n…" rather than a multiline "^" (which V8 tries at every position); plain "^" is offset 0 only
  String.raw`\berror(?:\[E[0-9]{1,6}\]| TS[0-9]{1,6}\b)`,
  String.raw`\n[ \t]{0,8}(?:error|npm error|ERR!)\b`,
  String.raw`^[ \t]{0,8}(?:error|npm error|ERR!)\b`,
  String.raw`\bERROR\b`,
  // TypeError:, Error:, java.lang.NullPointerException: — the word must start uppercase (not "isError:"),
  // checked in code after the match (group 1) so the regex never scans back over a word.
  String.raw`((?:Error|Exception)(?::|\s\[))`,
  String.raw`\bERR_[A-Z0-9_]{1,64}`,
  String.raw`\bE(?:NOENT|ACCES|ADDRINUSE|CONNREFUSED|CONNRESET|EXIST|ISDIR|NOTDIR|NOTEMPTY|LIFECYCLE|PERM|TIMEDOUT|MFILE)\b`,
  String.raw`command not found`,
  String.raw`No such file or directory`,
  String.raw`[Cc]annot find (?:module|name|package)`,
  String.raw`exited with (?:exit )?code [1-9]`,
  String.raw`exit (?:code|status) [1-9]`,
];

const ORACLE = new RegExp(ORACLE_MARKERS.join("|"), "g");

function classMarkerOk(text: string, index: number): boolean {
  let start = index;
  while (start > 0 && /[0-9A-Za-z_$]/.test(text.charAt(start - 1))) start -= 1;
  return /[A-Z]/.test(text.charAt(start));
}

/** The single-regex errorLines as it was before the split. */
function oracleErrorLines(text: string): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const re = new RegExp(ORACLE.source, "g");
  let m: RegExpExecArray | null;
  while ((m = re.exec(text)) !== null) {
    if (m[1] !== undefined && !classMarkerOk(text, m.index)) {
      re.lastIndex = m.index + 1;
      continue;
    }
    const at = text.charCodeAt(m.index) === 10 ? m.index + 1 : m.index;
    const start = text.lastIndexOf("\n", at) + 1;
    let end = text.indexOf("\n", at);
    if (end === -1) end = text.length;
    const line = clipLine(text.slice(start, Math.min(end, start + ERROR_LINE_MAX + 1))).trimEnd();
    if (line.length > 0 && !seen.has(line)) {
      seen.add(line);
      // The false-alarm filter is a rule of its own (false-alarms.test.ts); the scan is what is compared.
      if (!isFalseAlarm(line)) out.push(line);
    }
    if (end >= text.length) break;
    re.lastIndex = end;
  }
  return out;
}

describe("errorLines equals the single-regex scan it replaced", () => {
  it("on hand-picked line starts and line ends", () => {
    for (const text of [
      "error: first\nerror: second",
      "  error: indented\n\t\terror: tabs\n         error: nine spaces",
      "ok\nnpm error code 1\nERR! x\nfine error: not at start\n",
      "Error\n[ERR_X] crossing lines\nTypeError\n[",
      "\n\nerror\n\nerror\n",
      "failed error: both on one line\nerror: failed",
      "isError: no\nxError: no\nError: yes",
      "",
      "error",
      "\n",
    ]) expect(errorLines(text), JSON.stringify(text)).toEqual(oracleErrorLines(text));
  });

  it("on random text over the markers' building blocks", () => {
    const piece = fc.constantFrom("error", "Error", "ERR!", "npm error", "npm ERR!", "failed", "Fail", "FATAL", "Exception", ":", "[", " [", "\n", " ", "\t", "x", "is", "TS2304", "error[E0308]", "ENOENT", "ERR_X", "panic:", "✗", "exit code 1", "\r", "npm ", "        ", "\t\t\t\t\t", "ERR!x");
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), (pieces) => {
        const text = pieces.join("");
        expect(errorLines(text)).toEqual(oracleErrorLines(text));
      }),
      { numRuns: 3000, seed: 5 },
    );
  });

  it("on generated session texts", async () => {
    const file = join(tempDir("error-lines-"), "session.jsonl");
    await generateSession(file, { seed: 13, turns: 40 });
    for (const block of lineageBlocks(await readSession(file))) expect(errorLines(block.text)).toEqual(oracleErrorLines(block.text));
  });

  it("on adversarial inputs", { timeout: LINEAR_TIME_MS }, () => {
    for (const text of ["\n".repeat(1_000_000), "\nerror".repeat(150_000), "\n        x".repeat(100_000), " ".repeat(1_000_000), `${"[".repeat(100_000)}${"]".repeat(100_000)}`, " error".repeat(200_000), "npm ".repeat(250_000) + "error", "ERR!".repeat(250_000), "\n\t npm error".repeat(80_000)]) {
      expect(errorLines(text)).toEqual(oracleErrorLines(text));
    }
  });
});

describeShared("errorLines on the real session fixtures", () => {
  it("equals the single-regex scan on every block text", async () => {
    for (const file of sessionFixtures()) for (const block of lineageBlocks(await readSession(file))) expect(errorLines(block.text)).toEqual(oracleErrorLines(block.text));
  });
});
