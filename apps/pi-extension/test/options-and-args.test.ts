// Option resolution (defaults, CONTEXT_FOLD_* overrides, bad values reported) and /recall arguments.
import { describe, expect, test } from "vitest";
import { LINEAR_TIME_MS } from "@context-fold/test-support";
import { parseRecallArgs } from "../src/commands.js";
import { DEFAULT_FOLD_OPTIONS, resolveFoldOptions } from "../src/options.js";

describe("options", () => {
  test("defaults without environment", () => {
    expect(resolveFoldOptions({}, {})).toEqual({ options: DEFAULT_FOLD_OPTIONS, warnings: [] });
  });

  test("environment overrides; bad values are reported and ignored; cap never below threshold", () => {
    const { options, warnings } = resolveFoldOptions(
      {},
      { CONTEXT_FOLD_THRESHOLD: "0.6", CONTEXT_FOLD_CAP: "0.5", CONTEXT_FOLD_KEEP_RESULTS: "2.5", CONTEXT_FOLD_THINKING: "off", CONTEXT_FOLD_TAIL: "lots" },
    );
    expect(options.threshold).toBe(0.6);
    expect(options.cap).toBe(0.6);
    expect(options.foldThinking).toBe(false);
    expect(options.keepRecentResults).toBe(DEFAULT_FOLD_OPTIONS.keepRecentResults);
    expect(options.tailFraction).toBe(DEFAULT_FOLD_OPTIONS.tailFraction);
    expect(warnings.map((w) => w.variable).sort()).toEqual(["CONTEXT_FOLD_KEEP_RESULTS", "CONTEXT_FOLD_TAIL"]);
  });
});

describe("/recall arguments", () => {
  test("query words, scope and page in any order", () => {
    expect(parseRecallArgs("scope:all  refreshToken rotation page:2")).toEqual({ query: "refreshToken rotation", scope: "all", page: 2 });
    expect(parseRecallArgs("page:0 x")).toEqual({ query: "page:0 x" });
    expect(parseRecallArgs("")).toEqual({ query: "" });
  });

  test("a 1 MB argument of one character or of blanks parses in linear time", { timeout: LINEAR_TIME_MS }, () => {
    expect(parseRecallArgs("a".repeat(1 << 20)).query).toHaveLength(1 << 20);
    expect(parseRecallArgs(" ".repeat(1 << 20))).toEqual({ query: "" });
    expect(parseRecallArgs(`page:${"9".repeat(1 << 20)}`).page).toBeUndefined();
  });
});
