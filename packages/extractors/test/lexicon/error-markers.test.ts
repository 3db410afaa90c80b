// errorLines given the marker positions of the seed scan must equal errorLines searching the whole text:
// checked on every real fixture text, generated session texts, random text built from marker fragments
// (with prefixes, "$", case changes and line breaks around them) and adversarial inputs.
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { lineageBlocks, readSession } from "@context-fold/ledger-reader";
import { generateSession } from "@context-fold/session-gen";
import { describeShared, LINEAR_TIME_MS, sessionFixtures, tempDir } from "@context-fold/test-support";
import { errorLines, isErrorLine } from "@context-fold/extractors";
import { scanOutputRanges } from "../../src/lexicon/output-tokens.js";

/** The positions the seed scan reports for `text`. */
function markerPositions(text: string): number[] {
  const at: number[] = [];
  scanOutputRanges(
    text,
    true,
    () => undefined,
    () => undefined,
    (p) => at.push(p),
  );
  return at;
}

function expectSame(text: string): void {
  expect(errorLines(text, markerPositions(text))).toEqual(errorLines(text));
}

// One example of every inline marker alternative of errors.ts, as a tool would print it.
const EXAMPLES = [
  "failed", "failure", "failing", "Failed", "FAIL", "FAILED", "FAILURE", "fatal", "Fatal", "FATAL",
  "npm ERR! code E404", "Segmentation fault", "Permission denied", "core dumped", "✗ 2 tests", "✘", "✖ lint",
  "Traceback (most recent call last):", "Exception in thread \"main\"", "Caused by: x", "thread 'main' panicked at src/a.rs",
  "panic: runtime error", "Uncaught TypeError", "UnhandledPromiseRejection", "Unhandled promise rejection", "Unhandled exception",
  "error[E0308]: mismatched types", "error TS2304: Cannot find name", "ERROR in ./src", "TypeError: x is undefined",
  "java.lang.NullPointerException: boom", "Error [ERR_X]", "ERR_MODULE_NOT_FOUND", "ENOENT", "EACCES", "EADDRINUSE",
  "ECONNREFUSED", "ECONNRESET", "EEXIST", "EISDIR", "ENOTDIR", "ENOTEMPTY", "ELIFECYCLE", "EPERM", "ETIMEDOUT", "EMFILE",
  "sh: foo: command not found", "No such file or directory", "Cannot find module 'x'", "cannot find package",
  "Process exited with code 2", "exited with exit code 1", "exit code 3", "exit status 1",
];

describe("errorLines from the seed scan's marker positions", () => {
  it("finds every inline marker alternative, alone and glued to other words", () => {
    for (const example of EXAMPLES) {
      expect(isErrorLine(example), example).toBe(true);
      for (const text of [example, `x ${example} y`, `a\n  ${example}\nb`, `sub${example}`, `$${example}$`, `é${example}é`, `${example}\n[x]`]) expectSame(text);
    }
  });

  it("reads a class marker across its line break ('TypeError\\n[') as the whole-text search does", () => {
    expectSame("at TypeError\n[stack] more\nok");
    expect(errorLines("TypeError\n[x]", markerPositions("TypeError\n[x]"))).toEqual(errorLines("TypeError\n[x]"));
  });

  it("on random text built from marker fragments", () => {
    const piece = fc.constantFrom(
      ...EXAMPLES,
      "fail", "ail", "ed", "Err", "ERR", "or", "Exce", "ption", ":", " [", "\n", "\n[", " ", "  ", "\t", "$", "_", "-", ".", "/",
      "sub", "Type", "0 failed", "passed", "npm ", "error", "No", "exit", "code ", "1", "0", "é", "✗", "x.ts", "isError:",
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), (pieces) => {
        expectSame(pieces.join(""));
      }),
      { numRuns: 3000, seed: 17 },
    );
  });

  it("on generated session texts", async () => {
    const file = join(tempDir("error-markers-"), "session.jsonl");
    await generateSession(file, { seed: 13, turns: 40 });
    for (const block of lineageBlocks(await readSession(file))) expectSame(block.text);
  });

  describe("adversarial inputs stay linear", { timeout: LINEAR_TIME_MS }, () => {
    it("a 1 MB line of marker words that are no markers, and many short marked lines", () => {
      expectSame(`${"Errorx exitcode Nope coreX ".repeat(40_000)}`);
      expectSame("TypeError x\n".repeat(80_000));
      expectSame(`${"subcommand ".repeat(90_000)}not found`);
    });
  });
});

describeShared("errorLines from marker positions on the real session fixtures", () => {
  it("equals the whole-text search on every block text", async () => {
    for (const file of sessionFixtures()) for (const block of lineageBlocks(await readSession(file))) expectSame(block.text);
  });
});
