import { posix } from "node:path";
import fc from "fast-check";
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

  it("gives what resolving against the cwd gives, for plain and dotted paths alike (its no-resolve fast path)", () => {
    // The rule as first written: resolve against the cwd, then repo-relative when under it.
    const reference = (path: string, cwd: string): string => {
      const absolute = posix.resolve(cwd, path);
      const root = posix.resolve(cwd);
      if (absolute === root) return ".";
      const prefix = root.endsWith("/") ? root : `${root}/`;
      return absolute.startsWith(prefix) ? absolute.slice(prefix.length) : absolute;
    };
    const segment = fc.constantFrom("a", "src", "b.ts", ".", "..", "", "...", ".x", "x.", "repo", "w");
    const path = fc.tuple(fc.boolean(), fc.array(segment, { minLength: 1, maxLength: 6 })).map(([abs, parts]) => `${abs ? "/" : ""}${parts.join("/")}`);
    const cwd = fc.constantFrom("/", "/w", "/w/repo", "/w/repo/", "/w//repo", "/w/./repo/..");
    fc.assert(
      fc.property(path, cwd, (p, c) => {
        if (p.length === 0) return;
        expect(normalizePath(p, c)).toBe(reference(p, c));
      }),
      { numRuns: 3000, seed: 23 },
    );
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
