import { describe, expect, it } from "vitest";
import { LINEAR_TIME_MS } from "@context-fold/test-support";
import { ERROR_LINE_MAX, errorLines, isErrorLine } from "@context-fold/extractors";

describe("error lexicon", () => {
  it.each([
    ["build failed"],
    ["1 failure"],
    ["fatal: not a git repository"],
    ["npm ERR! code ELIFECYCLE"],
    ["Segmentation fault (core dumped)"],
    ["bash: ./x: Permission denied"],
    ["  ✗ adds numbers"],
    ["Traceback (most recent call last):"],
    ["thread 'main' panicked at src/main.rs:4:5:"],
    ['Exception in thread "main" java.lang.NullPointerException'],
    ["TypeError: x is not a function"],
    ["src/a.ts(3,1): error TS2304: Cannot find name 'Foo'."],
    ["error[E0308]: mismatched types"],
    ["Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'x'"],
    ["code: 'ERR_INVALID_ARG_TYPE'"],
    ["FAIL tests/ladder.test.ts > step advance"],
    ["Command exited with code 1"],
    ["error: could not compile `demo`"],
    ["npm error code ELIFECYCLE"],
    ["java.lang.IllegalStateException: boom"],
  ])("flags %s", (line) => {
    expect(isErrorLine(line)).toBe(true);
  });

  it.each([["all 12 tests passed"], ["no errors found"], ["Command exited with code 0"], ["const failedCount = 0"], ["throw new Error(message)"], ["} catch (error: unknown) {"], ["  isError: true,"]])(
    "does not flag %s",
    (line) => {
      expect(isErrorLine(line)).toBe(false);
    },
  );

  it("returns verbatim lines, deduplicated, in order, trailing whitespace dropped", () => {
    const text = "ok\nError: one  \r\nfine\nnpm ERR! code E1\nError: one\n  error: could not compile\n";
    expect(errorLines(text)).toEqual(["Error: one", "npm ERR! code E1", "  error: could not compile"]);
    expect(errorLines("error: first line\nerror: second")).toEqual(["error: first line", "error: second"]);
  });

  it("clips to 240 chars without splitting a surrogate pair", () => {
    const long = `Error: ${"x".repeat(232)}😀tail`;
    const [line] = errorLines(long);
    expect(line?.length).toBeLessThanOrEqual(ERROR_LINE_MAX);
    expect(line).toBe(`Error: ${"x".repeat(232)}`);
    const [plain] = errorLines(`failed ${"y".repeat(1000)}`);
    expect(plain?.length).toBe(ERROR_LINE_MAX);
  });

  describe("adversarial inputs stay linear", { timeout: LINEAR_TIME_MS }, () => {
    it("1 MB line of one character", () => {
      for (const ch of ["a", "E", "e", " ", "(", "_", "✗"]) {
        const text = ch.repeat(1_000_000);
        const lines = errorLines(text);
        expect(lines.length).toBeLessThanOrEqual(1);
        if (ch === "✗") expect(lines[0]?.length).toBe(ERROR_LINE_MAX);
      }
    });
    it("100k nested brackets and repeated near-misses", () => {
      expect(errorLines(`${"[".repeat(100_000)}${"]".repeat(100_000)}`)).toEqual([]);
      expect(errorLines("Erro".repeat(250_000))).toEqual([]);
      expect(errorLines("xerror ".repeat(200_000))).toEqual([]);
      expect(errorLines("AbcError".repeat(125_000))).toEqual([]);
      expect(errorLines("ERR_".repeat(250_000))).toHaveLength(1);
    });
    it("long camelCase identifiers repeated", () => {
      const text = `${"someVeryLongCamelCaseIdentifierName".repeat(1000)} `.repeat(30);
      expect(errorLines(text)).toEqual([]);
    });
    it("a million short error lines stay deduplicated", () => {
      expect(errorLines("failed\n".repeat(1_000_000))).toEqual(["failed"]);
    });
  });
});
