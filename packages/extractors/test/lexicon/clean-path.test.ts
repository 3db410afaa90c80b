// The one path normaliser of file lists, on the junk real sessions put where a file is expected.
import { describe, expect, it } from "vitest";
import { LINEAR_TIME_MS } from "@context-fold/test-support";
import { cleanPath, filePathsOfList } from "@context-fold/extractors";

const CWD = "/home/user/raddit";

describe("cleanPath", () => {
  it("takes a line or range suffix as the file it names", () => {
    expect(cleanPath("/home/user/raddit/raddit-astro/src/components/Dashboard.tsx:175-360", CWD)).toBe("raddit-astro/src/components/Dashboard.tsx");
    expect(cleanPath("/home/user/raddit/raddit-astro/src/components/Dashboard.tsx:364-520", CWD)).toBe("raddit-astro/src/components/Dashboard.tsx");
    expect(cleanPath("/home/user/raddit/raddit-astro/package.json:raw", CWD)).toBe("raddit-astro/package.json");
    expect(cleanPath("/tmp/s.jsonl:1-5:raw", CWD)).toBe("/tmp/s.jsonl");
    expect(cleanPath("services.ts:103")).toBe("services.ts");
    expect(cleanPath("src/a.ts:12:3")).toBe("src/a.ts");
  });

  it("drops git's diff prefixes and markup around a path", () => {
    expect(cleanPath("a/src/models.ts")).toBe("src/models.ts");
    expect(cleanPath("b/src/extensions/web-fetch/page-fetcher.ts")).toBe("src/extensions/web-fetch/page-fetcher.ts");
    expect(cleanPath("§/home/user/raddit/x.tsx", CWD)).toBe("x.tsx");
    expect(cleanPath("`src/a.ts`),")).toBe("src/a.ts");
  });

  it("is not a file: URLs and schemes, '.', truncated paths, tags, escaped newlines", () => {
    for (const s of [
      "https://github.com/qkrehgus714/raddit/pull/47",
      "file:///tmp/ai-model-comparison.html",
      "http://localhost:8765/chart-repro.html",
      "agent://0-ReviewPR47",
      "artifact://8",
      "artifact:/8",
      "https:/example.com/a",
      "op://vault/item/secret",
      "socks5://1.2.3.4:9050",
      ".",
      "..",
      "./",
      "…/components/Dashboard.tsx",
      ".../lib/cache.ts",
      "src/…/cache.ts",
      "</read-files><modified-files>",
      "/home/user/raddit\\n/home/user/raddit/AGENTS.md",
      "a.ts:not a range",
      "",
    ])
      expect(cleanPath(s, CWD), s).toBeUndefined();
  });

  it("keeps ordinary paths as normalizePath gives them", () => {
    expect(cleanPath("/home/user/raddit/src/a.ts", CWD)).toBe("src/a.ts");
    expect(cleanPath("./src/b.ts", CWD)).toBe("src/b.ts");
    expect(cleanPath("~/notes.md", CWD)).toBe("~/notes.md");
    expect(cleanPath("C:/work/a.ts")).toBe("C:/work/a.ts");
    expect(cleanPath("src/한글.md")).toBe("src/한글.md");
  });

  it("is linear on adversarial input", { timeout: LINEAR_TIME_MS }, () => {
    const t0 = Date.now();
    cleanPath(`${"!".repeat(1000)}a${"!".repeat(1000)}`);
    cleanPath(`a${":1".repeat(500)}x`);
    filePathsOfList(`${"<".repeat(100_000)}${"\\n".repeat(100_000)}`);
    expect(Date.now() - t0).toBeLessThan(2000);
  });
});

describe("cleanPath's leading junk", () => {
  // The rule as one regex (what cleanPath applied before it scanned; "<" and ">" are refused before it):
  // every leading character but letters, numbers (any script) and `_./~@+-` goes. The scan strips exactly that.
  const LEADING_JUNK = /^[^\p{L}\p{N}_./~@+-]+/u;
  const asRegex = (raw: string): string | undefined => {
    const stripped = raw.trim().replace(LEADING_JUNK, "");
    return stripped.length === 0 ? undefined : cleanPath(stripped);
  };

  it("strips what the regex strips, on every leading character class and script", () => {
    const leads = ["", "§", "`", "(", "[\"", "→ ", "「", "★", "\u00a0", "✓ ", "💡", "\ud83d", "\udca1", "＊", "•", "–", "'", "\"", "é", "ß", "한", "٣", "Ⅻ", "_", ".", "/", "~", "@", "+", "-", "0"];
    const rests = ["src/a.ts", "é/a.ts", "한글/b.md", "٣/c.ts", "a", "/abs/x.ts", "", "💡/d.ts"];
    for (const lead of leads)
      for (const second of leads)
        for (const rest of rests) {
          const raw = `${lead}${second}${rest}`;
          expect(cleanPath(raw), JSON.stringify(raw)).toBe(asRegex(raw));
        }
  });
});

describe("filePathsOfList", () => {
  it("splits a list an earlier summary glued with escaped newlines and tags, without its notes", () => {
    const text = "/home/user/raddit\\n/home/user/raddit/AGENTS.md\\n/home/user/raddit/raddit-astro/chart-smoke.html:5\\n… (34 more files omitted)";
    expect(filePathsOfList(text, "/home/user/tmp")).toEqual(["/home/user/raddit", "/home/user/raddit/AGENTS.md", "/home/user/raddit/raddit-astro/chart-smoke.html"]);
    expect(filePathsOfList("a.ts</read-files><modified-files>b.ts")).toEqual(["a.ts", "b.ts"]);
  });
});
