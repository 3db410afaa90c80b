// mergeSummaries rule by rule: sticky, union, replace, rolling.
import { emptyDoc, mergeSummaries, type SummaryDoc } from "@context-fold/summary-formatter";
import { describe, expect, it } from "vitest";

const footer = (from: number, to: number): SummaryDoc["footer"] => ({ at: "2026-03-01T09:00:00.000Z", messages: 1, windowTokens: 1, summaryTokens: 1, tailMessages: 1, tailTokens: 1, range: { from, to } });

describe("mergeSummaries", () => {
  const previous: SummaryDoc = {
    ...emptyDoc(footer(0, 40)),
    goal: { text: "Build the importer.", index: 0 },
    scopeChanges: [{ text: "also export CSV", index: 12 }],
    preferences: [{ text: "never touch gen/", index: 5 }],
    corrections: [{ text: "No, keep the old API.", index: 20 }],
    files: [
      { status: "read", path: "src/a.ts", symbols: ["a"], index: 3 },
      { status: "modified", path: "src/b.ts", symbols: [], index: 8 },
    ],
    commits: [{ hash: "1a2b3c4", subject: "first", index: 30 }],
    outstanding: [{ tag: "ERROR", label: "tsc", text: "old error", index: 9 }],
    status: { focus: { text: "old focus", index: 20 }, lastAction: null, next: ["old next"] },
    earlierTurns: [
      { text: "Build the importer. → read a.ts", index: 0 },
      { text: "No, keep the old API. → edited b", index: 20 },
    ],
    brief: ["[user] Build the importer. (#0)", "* Read \"src/a.ts\" (#2)", "[user] later (#36)"],
    previous: [{ label: "compaction 1", index: 15, lines: ["## Goal", "Import."] }],
  };
  const next: SummaryDoc = {
    ...emptyDoc(footer(36, 80)),
    goal: { text: "later", index: 36 },
    scopeChanges: [{ text: "now add JSON", index: 50 }],
    files: [
      { status: "modified", path: "src/a.ts", symbols: ["b"], index: 60 },
      { status: "read", path: "src/b.ts", symbols: ["c"], index: 61 },
    ],
    commits: [{ hash: "1a2b3c4d5e", subject: "first", index: 30 }, { hash: "9f9f9f9", subject: "second", index: 70 }],
    outstanding: [{ tag: "WARN", label: "tests", text: "new warning", index: 66 }],
    status: { focus: { text: "new focus", index: 50 }, lastAction: { text: "Edit a", index: 60 }, next: [] },
    earlierTurns: [
      { text: "No, keep the old API. → edited b, ran tests", index: 20 },
      { text: "now add JSON → edited a", index: 50 },
    ],
    brief: ["[user] later (#36)", "[user] now add JSON (#50)"],
  };
  const m = mergeSummaries(previous, next);

  it("keeps the founding goal, accumulates scope changes, preferences and corrections", () => {
    expect(m.goal).toEqual({ text: "Build the importer.", index: 0 });
    expect(m.scopeChanges.map((s) => s.index)).toEqual([12, 50]);
    expect(m.preferences).toEqual(previous.preferences);
    expect(m.corrections).toEqual(previous.corrections);
    expect(m.previous).toEqual(previous.previous);
  });

  it("unions files (modified outranks read, symbols merged) and commits (by hash prefix)", () => {
    expect(m.files).toEqual([
      { status: "modified", path: "src/a.ts", symbols: ["a", "b"], index: 60 },
      { status: "modified", path: "src/b.ts", symbols: ["c"], index: 61 },
    ]);
    expect(m.commits.map((c) => c.hash)).toEqual(["1a2b3c4", "9f9f9f9"]);
  });

  it("replaces outstanding context, status, anchors and type catalog", () => {
    expect(m.outstanding).toEqual(next.outstanding);
    expect(m.status).toEqual(next.status);
    expect(m.anchors).toEqual(next.anchors);
  });

  it("rolls earlier turns (newer one-liner wins) and the brief (older lines first, no duplicates)", () => {
    expect(m.earlierTurns.map((t) => [t.index, t.text])).toEqual([
      [0, "Build the importer. → read a.ts"],
      [20, "No, keep the old API. → edited b, ran tests"],
      [50, "now add JSON → edited a"],
    ]);
    expect(m.brief).toEqual(["[user] Build the importer. (#0)", "* Read \"src/a.ts\" (#2)", "[user] later (#36)", "[user] now add JSON (#50)"]);
    expect(m.footer.range).toEqual({ from: 0, to: 80 });
  });
});
