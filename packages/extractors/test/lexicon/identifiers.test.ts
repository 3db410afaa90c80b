import { describe, expect, it } from "vitest";
import { LINEAR_TIME_MS } from "@context-fold/test-support";
import { identifierTokens } from "@context-fold/extractors";

describe("identifier tokens", () => {
  it("keeps symbols, hex, uuids, versions and sizeable numbers", () => {
    const text =
      "RECALL_SLICE_TOKEN_CAP readSession CodeAssigner 0x811c9dc5 e2c70f2e v1.6.0 2.10.3-beta.1 48211 TS2304 ENOENT d703a1a9-1b7b-4fb1-b512-c9738b1fe617";
    const tokens = identifierTokens(text);
    for (const t of ["RECALL_SLICE_TOKEN_CAP", "readSession", "CodeAssigner", "0x811c9dc5", "e2c70f2e", "v1.6.0", "2.10.3-beta.1", "48211", "TS2304", "ENOENT", "d703a1a9-1b7b-4fb1-b512-c9738b1fe617"]) {
      expect(tokens).toContain(t);
    }
  });

  it("skips plain words, short numbers and two-part decimals", () => {
    expect(identifierTokens("the quick Brown fox ran 12 laps in 3.5 minutes, deadbeef is a word")).toEqual([]);
  });

  it("is deduplicated in order of first appearance", () => {
    expect(identifierTokens("fooBar baz_qux fooBar 123456 baz_qux")).toEqual(["fooBar", "baz_qux", "123456"]);
  });

  describe("adversarial inputs stay linear", { timeout: LINEAR_TIME_MS }, () => {
    it("1 MB line of one character", () => {
      for (const ch of ["a", "1", "_", ".", "-", "f"]) expect(identifierTokens(ch.repeat(1_000_000))).toEqual([]);
    });
    it("100k nested brackets and connector chains", () => {
      expect(identifierTokens(`${"[".repeat(100_000)}fooBar${"]".repeat(100_000)}`)).toEqual(["fooBar"]);
      expect(identifierTokens("1.".repeat(500_000)).length).toBeLessThanOrEqual(1);
      expect(identifierTokens("ab-".repeat(300_000))).toEqual([]);
    });
    it("long camelCase identifiers repeated", () => {
      const word = "someVeryLongCamelCaseIdentifierName";
      expect(identifierTokens(`${word} `.repeat(100_000))).toEqual([word]);
      expect(identifierTokens(word.repeat(30_000))).toEqual([]);
    });
  });
});
