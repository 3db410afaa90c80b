// `recall --sessions` keeps V8's optimizing compiler for the hottest code (compile-tiers.ts) from before
// any of the history search's code runs: a function's tier-up budget is set by the counts in force when
// it first runs, and the plain sha256 that names the history's folder (HistoryIndex.for), first run under
// V8's defaults, was compiled by TurboFan when the page's texts were checked with it (issue 27: some 20 ms
// of a compiler thread's CPU in a process about to end). Seen through the calls' order, with both mocked.
import { beforeEach, describe, expect, it, vi } from "vitest";

const calls: string[] = [];

vi.mock("../src/compile-tiers.js", () => ({
  keepCompilersLight: () => calls.push("keepCompilersLight"),
  letCompilersWork: () => calls.push("letCompilersWork"),
}));

vi.mock("@context-fold/recall-engine", async (importOriginal) => {
  const actual = await importOriginal<typeof import("@context-fold/recall-engine")>();
  const result = { query: "q", mode: "words", scope: "lineage", total: 0, page: 1, pages: 0, pageSize: 5, hits: [], segments: [], segmentCount: 0, totalExact: true, sessions: 1, skipped: [], searched: 0, named: {}, update: {} };
  return {
    ...actual,
    HistoryIndex: {
      for: () => {
        calls.push("HistoryIndex.for");
        return { search: () => Promise.resolve(result), expand: () => Promise.resolve({ file: "f", entries: [] }) };
      },
    },
  };
});

vi.mock("../src/output.js", async (importOriginal) => ({ ...(await importOriginal<typeof import("../src/output.js")>()), emit: () => calls.push("emit") }));

const { recallSessions } = await import("../src/commands/recall-sessions.js");

describe("recall --sessions and V8's compiler tiers", () => {
  beforeEach(() => {
    calls.length = 0;
  });

  it("a search sets the light tiers before the history index is named (its folder hashed)", async () => {
    await recallSessions("words", [], { sessions: import.meta.dirname, json: true });
    expect(calls).toEqual(["keepCompilersLight", "HistoryIndex.for", "emit"]);
  });

  it("an expand leaves V8's tiers alone (it may read a whole ledger) and names the history once", async () => {
    await recallSessions(undefined, [], { sessions: import.meta.dirname, json: true, expand: "1", in: "s" });
    expect(calls).toEqual(["HistoryIndex.for", "emit"]);
  });
});
