import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { historyDirFor } from "../src/history-folders.js";
import { shownTextHash, textHash } from "../src/history-table.js";
import { sha256Hex } from "../src/sha256-text.js";

describe("sha256Hex", () => {
  it("gives node:crypto's SHA-256 of a text's UTF-8 (block edges, multi-block, non-ASCII)", () => {
    const texts = ["", "abc", "a".repeat(55), "a".repeat(56), "a".repeat(63), "a".repeat(64), "a".repeat(119), "x".repeat(1000), "/home/dev/.pi/agent/sessions", "/tmp/séances/日本語/🙂"];
    for (const t of texts) expect(sha256Hex(t), JSON.stringify(t.slice(0, 20))).toBe(createHash("sha256").update(t).digest("hex"));
  });

  it("names a history's folder as before (the same folder for the same sessions folder)", () => {
    expect(historyDirFor("/home/dev/.pi/agent/sessions", "/state")).toBe(`/state/${createHash("sha256").update("/home/dev/.pi/agent/sessions").digest("hex").slice(0, 16)}`);
  });

  it("checks a shown block's text against the hash its table recorded (plain code up to 64 K characters, node:crypto past them)", () => {
    const texts = ["", "abc", "line one\nline two", "/tmp/séances/日本語/🙂", "x".repeat(65_536), "x".repeat(65_537), "é".repeat(40_000)];
    for (const t of texts) {
      expect(shownTextHash(t), JSON.stringify(t.slice(0, 20))).toBe(textHash(t));
      expect(textHash(t)).toBe(createHash("sha256").update(t).digest("hex").slice(0, 16));
    }
  });
});
