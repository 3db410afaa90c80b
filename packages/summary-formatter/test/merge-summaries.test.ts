// mergeSummaries rule by rule: sticky, union, replace (or carry, for window-only facts), rolling.
import { emptyDoc, mergeSummaries, type OutstandingDoc, type SummaryDoc, windowActivity } from "@context-fold/summary-formatter";
import { describe, expect, it } from "vitest";
import { LINEAR_TIME_MS } from "@context-fold/test-support";

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
    // next's own "goal" (its window's first request) is not dropped: it becomes a scope change.
    expect(m.scopeChanges.map((s) => [s.index, s.text])).toEqual([
      [12, "also export CSV"],
      [36, "later"],
      [50, "now add JSON"],
    ]);
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

  it("unions commits exactly as comparing each with every kept one: prefixes either way, short hashes, repeats", () => {
    // Hashes built to meet every case of the bucketed lookup: shorter than its head (7), a prefix of a
    // longer one and the other way, equal heads that differ later, and the same hash in both lists.
    const hashes = ["abc", "abcdef0", "abcdef01", "abcdef0123", "abcdef9", "ab", "a", "1234567", "12345678", "1234", "9999999aa", "9999999ab", "9999999", "", "fedcba9876"];
    let seed = 7;
    const pick = (): string => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return hashes[seed % hashes.length] ?? "";
    };
    for (let round = 0; round < 40; round++) {
      const a = Array.from({ length: round % 9 }, (_, i) => ({ hash: pick(), subject: `a${String(i)}`, index: (i * 7 + round) % 23 }));
      const b = Array.from({ length: (round * 5) % 11 }, (_, i) => ({ hash: pick(), subject: `b${String(i)}`, index: (i * 5 + round) % 19 }));
      const plain: typeof a = [];
      for (const c of [...a, ...b]) if (!plain.some((o) => o.hash.startsWith(c.hash) || c.hash.startsWith(o.hash))) plain.push(c);
      plain.sort((x, y) => x.index - y.index);
      const merged = mergeSummaries({ ...previous, commits: a }, { ...next, commits: b });
      expect(merged.commits).toEqual(plain);
    }
  });

  it("demotes a later window's first request that reads as a correction to a correction, listed once", () => {
    const correcting: SummaryDoc = {
      ...next,
      goal: { text: "No, actually revert the change to src/b.ts; don't touch it again.", index: 36 },
      preferences: [{ text: "don't touch it again.", index: 36 }, { text: "always run tsc", index: 52 }],
    };
    const c = mergeSummaries(previous, correcting);
    expect(c.goal).toEqual(previous.goal);
    expect(c.corrections).toEqual([{ text: "No, actually revert the change to src/b.ts; don't touch it again.", index: 36 }, ...previous.corrections].sort((a, b) => a.index - b.index));
    expect(c.scopeChanges.map((s) => s.index)).toEqual([12, 50]);
    expect(c.preferences.map((p) => p.index)).toEqual([5, 52]);
    // The same message is never both: lineage-wide facts name the founding request as next's goal too.
    const same = mergeSummaries(previous, { ...next, goal: previous.goal }, { nextCoversPrevious: true });
    expect(same.scopeChanges.map((s) => s.index)).toEqual([12, 50]);
  });

  it("replaces status, anchors and type catalog; outstanding too when next covers previous", () => {
    expect(m.status).toEqual(next.status);
    expect(m.anchors).toEqual(next.anchors);
    expect(mergeSummaries(previous, next, { nextCoversPrevious: true }).outstanding).toEqual(next.outstanding);
  });

  it("carries older open items next does not name; next is authoritative for the ones it names; the window settles some", () => {
    const old: OutstandingDoc[] = [
      { tag: "ERROR", label: "bash:exit 1", text: "pnpm test → 2 failed", index: 9 },
      { tag: "ERROR", label: "bash:exit 2", text: "cargo build → error[E0308]", index: 10 },
      { tag: "ERROR", label: "tsc", text: "src/b.ts(3,1): error TS2304: Cannot find name 'x'.", index: 11 },
      { tag: "ERROR", label: "tsc", text: "../tui/src/x.ts(1,1): error TS1005: ';' expected.", index: 11 },
      { tag: "ERROR", label: "tsc", text: "src/never.ts(1,1): error TS1005: ';' expected.", index: 11 },
      { tag: "ERROR", label: "bash:exit 1", text: "make lint → 1 problem", index: 12 },
      { tag: "WARN", label: "user", text: "the importer still fails on empty files", index: 13 },
      { tag: "RESOLVED", label: "tsc", text: "src/c.ts(1,1): error TS1005", index: 14, resolvedIndex: 15 },
    ];
    const prev: SummaryDoc = { ...previous, outstanding: old, outstandingOmitted: { count: 3, what: "more outstanding items", recall: "errors" } };
    const nxt: SummaryDoc = {
      ...next,
      outstanding: [
        { tag: "WARN", label: "tests", text: "new warning", index: 66 },
        { tag: "RESOLVED", label: "bash:exit 2", text: "cargo build → error[E0599]", index: 62, resolvedIndex: 64 },
      ],
    };
    const window = windowActivity(
      [
        { index: 70, kind: "toolCall", toolName: "bash", toolCallId: "t1", args: { command: "make lint" }, text: "" },
        { index: 71, kind: "toolResult", toolName: "bash", toolCallId: "t1", text: "ok" },
        { index: 72, kind: "toolCall", toolName: "bash", toolCallId: "t2", args: { command: "pnpm test" }, text: "" },
        { index: 73, kind: "toolResult", toolName: "bash", toolCallId: "t2", isError: true, text: "1 failed\n\nCommand exited with code 1" },
      ],
      [{ path: "src/b.ts", lastModifiedIndex: 60 }, { path: "src/a.ts" }, { path: "packages/tui/src/x.ts", lastModifiedIndex: 61 }],
    );
    const c = mergeSummaries(prev, nxt, { window });
    expect(c.outstanding.map((o) => [o.tag, o.text, o.resolvedIndex ?? null])).toEqual([
      ["ERROR", "pnpm test → 2 failed", null], // its command never succeeded in the window: still open
      ["ERROR", "src/never.ts(1,1): error TS1005: ';' expected.", null],
      ["WARN", "new warning", null],
      ["RESOLVED", "src/b.ts(3,1): error TS2304: Cannot find name 'x'.", 60], // its file was edited
      ["RESOLVED", "../tui/src/x.ts(1,1): error TS1005: ';' expected.", 61], // printed relative to a `cd`
      ["RESOLVED", "make lint → 1 problem", 71], // the same command succeeded
      ["RESOLVED", "the importer still fails on empty files", 61], // files changed after the report
      ["RESOLVED", "src/c.ts(1,1): error TS1005", 15],
      ["RESOLVED", "cargo build → error[E0599]", 64], // next names cargo build: its version wins
    ]);
    expect(c.outstandingOmitted?.count).toBe(3);
    // Without window activity, older open items are carried as they were.
    expect(mergeSummaries(prev, nxt).outstanding.filter((o) => o.tag === "ERROR").map((o) => o.index)).toEqual([9, 11, 11, 11, 12]);
  });

  it("settles carried items in linear time on adversarial text (1 MB of one character)", { timeout: LINEAR_TIME_MS }, () => {
    const huge = "/".repeat(1 << 20);
    const dots = ".".repeat(1 << 20);
    const prev: SummaryDoc = {
      ...previous,
      outstanding: [
        { tag: "ERROR", label: "tsc", text: huge, index: 1 },
        { tag: "ERROR", label: "tsc", text: dots, index: 2 },
        { tag: "ERROR", label: `bash:exit ${"9".repeat(1 << 20)}`, text: `${huge} → x`, index: 3 },
        { tag: "ERROR", label: "tsc", text: "../".repeat(350_000), index: 4 },
      ],
    };
    const window = windowActivity(
      [
        { index: 70, kind: "toolCall", toolName: "bash", toolCallId: "t", args: { command: `${" ".repeat(1 << 20)}x` }, text: "" },
        { index: 71, kind: "toolResult", toolName: "bash", toolCallId: "t", text: "\n".repeat(1 << 20) },
      ],
      [{ path: huge, lastModifiedIndex: 60 }],
    );
    const c = mergeSummaries(prev, next, { window });
    // 1 and 3 name the (absurd) path the window modified; 2 and 4 name no file.
    expect(c.outstanding.filter((o) => o.tag === "ERROR").map((o) => o.index)).toEqual([2, 4]);
    expect(c.outstanding.filter((o) => o.tag === "RESOLVED").map((o) => o.index)).toEqual([1, 3]);
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
