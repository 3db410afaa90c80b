import { describe, expect, it } from "vitest";
import { LINEAR_TIME_MS } from "@context-fold/test-support";
import { isPathToken, normalizePath, pathTokens } from "@context-fold/extractors";

describe("path tokens", () => {
  it("finds relative, dotted, absolute and bare file paths", () => {
    const text = "edited src/core/seed-index.ts:12:5, then ./scripts/run.sh and /home/u/repo/README.md; see package.json.";
    expect(pathTokens(text)).toEqual(["src/core/seed-index.ts", "./scripts/run.sh", "/home/u/repo/README.md", "package.json"]);
  });

  it("rejects prose, URLs, scopes, numbers and dates", () => {
    const text =
      "thinking/reasoning and/or a/b. https://github.com/owner/repo/blob/main/x.ts github.com/o/r.ts git@github.com:o/r.git *.test.ts @context-fold/extractors 1/2 2025/11/20 Node.js e.g. /mode";
    expect(pathTokens(text)).toEqual([]);
  });

  it("keeps absolute directories with two or more segments and dotfiles", () => {
    expect(isPathToken("/usr/local")).toBe(true);
    expect(isPathToken(".gitignore")).toBe(false);
    expect(isPathToken("./.gitignore")).toBe(true);
    expect(isPathToken("config/.env")).toBe(true);
  });

  it("normalizes against the session cwd", () => {
    expect(normalizePath("/w/repo/src/a.ts", "/w/repo")).toBe("src/a.ts");
    expect(normalizePath("./src/../b.ts", "/w/repo")).toBe("b.ts");
    expect(normalizePath("../other/c.ts", "/w/repo")).toBe("/w/other/c.ts");
    expect(normalizePath("/w/repository/x.ts", "/w/repo")).toBe("/w/repository/x.ts");
    expect(normalizePath("~/notes.md", "/w/repo")).toBe("~/notes.md");
    expect(normalizePath("./a/b.ts")).toBe("a/b.ts");
  });

  describe("adversarial inputs stay linear", { timeout: LINEAR_TIME_MS }, () => {
    it("1 MB line of one character", () => {
      for (const ch of ["a", "/", ".", "-", "~", " "]) expect(pathTokens(ch.repeat(1_000_000))).toEqual([]);
    });
    it("1 MB of path-ish runs and nested brackets", () => {
      expect(pathTokens("a/".repeat(500_000))).toEqual([]);
      expect(pathTokens(`${"(".repeat(100_000)}src/x.ts${")".repeat(100_000)}`)).toEqual(["src/x.ts"]);
      expect(pathTokens("x.ts ".repeat(200_000))).toEqual(["x.ts"]);
    });
    it("long camelCase identifiers repeated", () => {
      expect(pathTokens(`${"someVeryLongCamelCaseIdentifier".repeat(1000)} `.repeat(30))).toEqual([]);
    });
  });
});
