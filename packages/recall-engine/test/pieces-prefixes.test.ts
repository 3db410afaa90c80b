// Parts of ids and paths, long tokens and unspaced scripts: what a model types when it half-remembers.
import { describe, expect, it } from "vitest";
import { LINEAR_TIME_MS } from "@context-fold/test-support";
import { RecallIndex, tokenize } from "@context-fold/recall-engine";
import { fakeSession, type FakeBlock } from "./fake-session.js";

function terms(text: string): string[] {
  const out: string[] = [];
  tokenize(text, (t) => out.push(t));
  return out;
}

const filler: FakeBlock[] = Array.from({ length: 12 }, (_, k) => ({ kind: "text", text: `routine step ${String(k)}: looked at the logs and moved on` }));

function indexOf(blocks: readonly FakeBlock[]): RecallIndex {
  return RecallIndex.build(fakeSession([{ kind: "user", text: "start" }, ...filler, ...blocks]));
}

/** `#N` of the hits of a search, best first. */
function hits(index: RecallIndex, query: string): number[] {
  return index.search(query, { pageSize: 50 }).hits.map((h) => h.index);
}

const base = 1 + filler.length;

describe("prefixes and pieces", () => {
  it("a token begins a longer id: NEEDLE-3 finds NEEDLE-3-5f49cd, below a whole match", () => {
    const index = indexOf([
      { kind: "toolResult", toolName: "bash", text: "planted NEEDLE-3-5f49cd in the fixture" },
      { kind: "toolResult", toolName: "bash", text: "unrelated NEEDLE-4-aa11bb" },
      { kind: "toolResult", toolName: "bash", text: "the plain NEEDLE-3 marker" },
    ]);
    expect(hits(index, "NEEDLE-3")).toEqual([base + 2, base]);
  });
  it("deadbeef finds a longer hex id", () => {
    const index = indexOf([{ kind: "toolResult", toolName: "bash", text: "commit deadbeef0c1d2e3f4a5b6c7d8e9f00112233445566 merged" }]);
    expect(hits(index, "deadbeef")).toEqual([base]);
    expect(hits(index, "deadbead")).toEqual([]);
  });
  it("a trailing piece of an underscore compound finds it", () => {
    const index = indexOf([
      { kind: "toolResult", toolName: "bash", text: "wrote extracted_tables_final_v2.xlsx" },
      { kind: "toolResult", toolName: "bash", text: "tables and a final word elsewhere" },
    ]);
    expect(hits(index, "final_v2")[0]).toBe(base);
    expect(hits(index, "tables_final")[0]).toBe(base);
    expect(hits(index, "v2")).toEqual([base]);
  });
  it("path prefixes and middles find the right entry", () => {
    const index = indexOf([
      { kind: "toolResult", toolName: "read", text: "opened /home/u/app/src/auth/session.ts (412 lines)" },
      { kind: "toolResult", toolName: "read", text: "src/billing/auth.md mentions docs/session-notes.md" },
      { kind: "toolResult", toolName: "bash", text: "PASS tests/auth/auth-refresh.test.ts (3 tests)" },
    ]);
    expect(hits(index, "src/auth")[0]).toBe(base);
    expect(hits(index, "auth/session")[0]).toBe(base);
    expect(hits(index, "auth-refresh.test")[0]).toBe(base + 2);
  });
  it("an id inside a URL longer than 128 characters is a word", () => {
    const url = `https://example.com/${"segment/".repeat(16)}item/ab12cd34ef-5678/details`;
    expect(url.length).toBeGreaterThan(128);
    const index = indexOf([{ kind: "toolResult", toolName: "web_search", text: `[1] Result ${url}` }]);
    expect(hits(index, "ab12cd34ef-5678")).toEqual([base]);
    expect(hits(index, "ab12cd34")).toEqual([base]);
  });
  it("Hangul, Kana and Han runs are matched by bigrams: 호가잔량 finds 호가잔량비율", () => {
    const index = indexOf([
      { kind: "user", text: "호가잔량비율 필터를 추가해줘" },
      { kind: "user", text: "東京都庁の場所を調べて" },
    ]);
    expect(hits(index, "호가잔량")).toEqual([base]);
    expect(hits(index, "잔량비율")).toEqual([base]);
    expect(hits(index, "都庁")).toEqual([base + 1]);
    expect(hits(index, "잔량 없음")).toEqual([base]);
  });
  it("indexes pieces of long runs, bigrams of CJK and name/number parts", () => {
    const long = `${"a".repeat(130)}/tail-piece`;
    expect(terms(long)).toEqual(expect.arrayContaining(["tail-piece", "tail", "piece"]));
    expect(terms("호가잔량비율")).toEqual(["호가잔량비율", "호가", "가잔", "잔량", "량비", "비율"]);
    expect(terms("sha256")).toEqual(["sha256", "sha", "256"]);
    // An opaque id is not cut at each letter/digit boundary.
    expect(terms("4b1e9d07")).toEqual(["4b1e9d07"]);
  });
  it("classes non-ASCII characters the same on every sighting (memoised per code unit)", () => {
    // Twice each: the second pass reads the memo the first filled. A lone surrogate is no letter;
    // a letter after a dash keeps the run's split rules (the run's classes are known from the scan).
    for (let k = 0; k < 2; k++) {
      expect(terms("café 잔량 \ud800x ×y")).toEqual(["café", "잔량", "x", "y"]);
      expect(terms("my-pkg.config.ts")).toEqual(["my-pkg.config.ts", "my-pkg", "config", "ts", "my", "pkg"]);
      expect(terms("a.b-c/d")).toEqual(["a.b-c/d", "a.b-c", "d", "a", "b-c", "b", "c"]);
    }
  });
  it("stays linear on a long unspaced CJK paragraph and a blob of slashes", { timeout: LINEAR_TIME_MS }, () => {
    const started = Date.now();
    terms("漢".repeat(200_000));
    terms("ab/".repeat(200_000));
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
