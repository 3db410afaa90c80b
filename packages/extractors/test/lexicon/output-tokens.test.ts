// The one-pass path + identifier scan must see exactly what the two separate scanners see: checked on
// every real fixture text, generated session texts, random text over the boundary characters, and
// adversarial inputs (which must also stay linear).
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { lineageBlocks, readSession } from "@context-fold/ledger-reader";
import { generateSession } from "@context-fold/session-gen";
import { describeShared, LINEAR_TIME_MS, sessionFixtures, tempDir } from "@context-fold/test-support";
import { isPathToken, pathTokens, scanIdentifierRanges, scanOutputTokens } from "@context-fold/extractors";

/** What the fused scan reports, reduced to the two separate scanners' outputs. */
function fused(text: string): { paths: string[]; identifiers: string[] } {
  const paths: string[] = [];
  const seen = new Set<string>();
  const identifiers: string[] = [];
  scanOutputTokens(
    text,
    true,
    (candidate) => {
      if (seen.has(candidate)) return;
      seen.add(candidate);
      if (isPathToken(candidate)) paths.push(candidate);
    },
    (start, end) => identifiers.push(`${String(start)}:${text.slice(start, end)}`),
  );
  return { paths, identifiers };
}

function separate(text: string): { paths: string[]; identifiers: string[] } {
  const identifiers: string[] = [];
  scanIdentifierRanges(text, (start, end) => identifiers.push(`${String(start)}:${text.slice(start, end)}`));
  return { paths: pathTokens(text), identifiers };
}

function expectSame(text: string): void {
  const a = fused(text);
  const b = separate(text);
  expect(a.paths).toEqual(b.paths);
  expect(a.identifiers).toEqual(b.identifiers);
}

describe("scanOutputTokens equals pathTokens + scanIdentifierRanges", () => {
  it("on hand-picked boundaries", () => {
    for (const text of [
      "see src/a$b/c.ts and $x.json, foo$bar/baz.ts",
      "a$b$c.ts $$ $ $/x.md x/$y.ts",
      "http://h.io/a.ts git@h:o/r.git s:/a/b.ts",
      "v1.2.3-rc.1/x.ts d703a1a9-1b7b-4fb1-b512-c9738b1fe617.json 0x811c9dc5/a.ts",
      "emitFold_6g7Xw@scope/pkg.ts ~/n.md ~x/y.md ./a.ts ../b.ts",
      "é/src/x.tsé TS2304:src/a.ts(1,2)",
      // lower-case only runs: no identifier, except a uuid of hex letters (4 connectors, no digit)
      "abcdefab-abcd-abcd-abcd-abcdefabcdef abcdefab-abcd-abcd-abcdefabcdef plain.words-and.more a.b.c.d.e",
      // identifier words judged inside the walk: case mixes, joined runs cut by "/", "@", "+", "~" and double connectors
      "Error aB Ab abC ABC ABCDE AbcDef x/fooBar@Baz_q+ENOENT~TS2304 a.-b a-.b 1.2.3/v4.5.6+7.8.9 deadbeef1/DEADBEEF1",
      "a..b.c.d.e.f -x. .y- 12345/123456 0x1F2E/0XABCDEF ABCD-0123-4567-89ab-CDEF ABCDEF01-2345-6789-ABCD-EF0123456789",
      `${"aB".repeat(70)} ${"x".repeat(200)}_1 v1.2.3.4.5.6.7.8.9.10.11.12.13.14.15.16.17.18.19.20.21.22.23`,
      "",
      "$",
      "a",
    ]) {
      expectSame(text);
      expect(() => scanOutputTokens(text, false, () => expect.unreachable(), () => undefined)).not.toThrow();
    }
  });

  it("still finds a uuid made of hex letters only (a run with no digit, upper case or underscore)", () => {
    expect(fused("see abcdefab-abcd-abcd-abcd-abcdefabcdef.").identifiers).toEqual(["4:abcdefab-abcd-abcd-abcd-abcdefabcdef"]);
  });

  it("on random words of mixed case and digits joined by run characters", () => {
    const piece = fc.constantFrom("a", "B", "F", "e", "3", "_", "$", ".", "-", "/", "@", "+", "~", " ", "Error", "aB", "ab12", "DEAD", "1.2", "0x", "12345");
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 80 }), (pieces) => {
        expectSame(pieces.join(""));
      }),
      { numRuns: 2000, seed: 9 },
    );
  });

  it("on random text over the characters both scanners care about", () => {
    const piece = fc.constantFrom("a", "Z", "f", "0", "9", "_", "$", ".", "-", "/", "@", "+", "~", ":", " ", "\n", "é", "x.ts", "src/", "0x1f2e3d4c", "v1.2.3", "fooBar", "ERR_X", "..", "//");
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 60 }), (pieces) => {
        expectSame(pieces.join(""));
      }),
      { numRuns: 2000, seed: 5 },
    );
  });

  it("on generated session texts", async () => {
    const file = join(tempDir("output-tokens-"), "session.jsonl");
    await generateSession(file, { seed: 11, turns: 40 });
    for (const block of lineageBlocks(await readSession(file))) expectSame(block.text);
  });

  describe("adversarial inputs stay linear", { timeout: LINEAR_TIME_MS }, () => {
    it("1 MB line of one character", () => {
      for (const ch of ["a", "$", "/", ".", "-", "_", "~", "1"]) expectSame(ch.repeat(1_000_000));
    });
    it("100k nested brackets and long mixed runs", () => {
      expectSame(`${"[".repeat(100_000)}src/x.ts fooBar${"]".repeat(100_000)}`);
      expectSame("a$b/".repeat(250_000));
      expectSame("x.ts$".repeat(200_000));
    });
    it("long camelCase identifiers repeated", () => {
      expectSame(`${"someVeryLongCamelCaseIdentifier$x.ts".repeat(1000)} `.repeat(30));
    });
  });
});

describeShared("scanOutputTokens on the real session fixtures", () => {
  it("equals the separate scanners on every block text", async () => {
    for (const file of sessionFixtures()) for (const block of lineageBlocks(await readSession(file))) expectSame(block.text);
  });
});
