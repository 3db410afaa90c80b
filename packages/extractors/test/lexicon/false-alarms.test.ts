// False-positive control of the error lexicon: zero-count summaries, source code and prose carry a
// marker word but report no failure; real failure lines beside them are still found.
import { describe, expect, it } from "vitest";
import { LINEAR_TIME_MS } from "@context-fold/test-support";
import { errorLines, isErrorLine, isFalseAlarm } from "@context-fold/extractors";

describe("isFalseAlarm", () => {
  it.each([
    ["test result: ok. 15 passed; 0 failed; 0 ignored; 0 measured"],
    ["Tests: 12 passed, 0 failed"],
    ["Failed: 0, Passed: 12"],
    ["\t\tthrow new Error(`Failed to fetch models: ${response.status}`)"],
    ["\t\t\tconsole.error(`[telemetry] send failed: ${res.status}`)"],
    ["            // Keep built-in models even if custom models failed to load"],
    ["        error?: string;"],
    ["  const result = failed ? retry() : done;"],
    ["The migration guide explains what happens after a failure of the primary and how to recover"],
  ])("does not take %s for a failure", (line) => {
    expect(isFalseAlarm(line)).toBe(true);
    expect(isErrorLine(line)).toBe(false);
  });

  it.each([
    ["Tests  1 failed | 5 passed (6)"],
    ["test result: FAILED. 14 passed; 1 failed; 0 ignored"],
    ["src/a.ts(3,1): error TS2304: Cannot find name 'Foo'."],
    ["FATAL: database system is shutting down"],
    ["2026-07-13 12:00:01 fatal: could not bind to port 5432, another server running"],
    ["Error: migration 0007_add_index failed to apply: relation already exists"],
    ["build failed"],
    ["\u2009ELIFECYCLE\u2009 Command failed with exit code 2."],
  ])("keeps %s", (line) => {
    expect(isFalseAlarm(line)).toBe(false);
    expect(isErrorLine(line)).toBe(true);
  });

  it("leaves them out of errorLines, keeping the real ones", () => {
    const out = ["running 15 tests", "test result: ok. 15 passed; 0 failed", "FATAL: password authentication failed for user app"].join("\n");
    expect(errorLines(out)).toEqual(["FATAL: password authentication failed for user app"]);
  });

  it("is fast on long adversarial lines", { timeout: LINEAR_TIME_MS }, () => {
    const t0 = Date.now();
    for (let i = 0; i < 200; i++) isFalseAlarm(`${"0 failed ".repeat(25)}x`);
    errorLines(`${"0 failed; ".repeat(100_000)}\n`.repeat(3));
    expect(Date.now() - t0).toBeLessThan(3000);
  });
});
