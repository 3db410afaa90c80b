// A list a turn's end remakes from inputs that changed keeps its identity while its items did not change
// (`keepSame`: the preferences left after the statements, which change with every user message), so the
// parts made of it are reused; and a list whose items did change is never taken for the kept one, at the
// turn's end or in the hook (issue 25).
import { createFactsAccumulator, type SessionFacts } from "@context-fold/extractors";
import { lineageBlocks, readSession } from "@context-fold/ledger-reader";
import { SummaryParts } from "@context-fold/summary-formatter";
import { tempDir } from "@context-fold/test-support";
import { describe, expect, it } from "vitest";
import { docFromFacts } from "../src/build-doc.js";
import { withBranchSummaries } from "../src/foreign-summary.js";
import { mergeSummaries } from "../src/merge-summaries.js";
import type { SummaryDoc } from "../src/summary-doc.js";
import { enterParts, leaveParts } from "../src/summary-parts.js";
import { authSession } from "./pi-session.js";

const FOOTER = { at: "", messages: 0, windowTokens: 0, summaryTokens: 0, tailMessages: 0, tailTokens: 0, range: null };

async function baseFacts(): Promise<{ facts: SessionFacts; artifacts: ReturnType<ReturnType<typeof createFactsAccumulator>["artifacts"]> }> {
  const w = authSession(tempDir());
  const session = await readSession(w.file);
  const acc = createFactsAccumulator({ cwd: session.header.cwd });
  acc.add(lineageBlocks(session));
  return { facts: acc.facts(), artifacts: acc.artifacts() };
}

/** `docFromFacts` with `parts` in use: kept (a turn's end) or read only (the hook). */
function docWith(parts: SummaryParts | undefined, keepMade: boolean, facts: SessionFacts, artifacts: Awaited<ReturnType<typeof baseFacts>>["artifacts"]): SummaryDoc {
  const scope = enterParts(parts, keepMade);
  try {
    return docFromFacts(facts, artifacts, [], FOOTER);
  } finally {
    leaveParts(scope);
  }
}

describe("a list remade with the same items", () => {
  it("is the kept list while its items are the same, and a new one as soon as one of them differs", async () => {
    const { facts, artifacts } = await baseFacts();
    const preferences = [
      { text: "never touch gen/", index: 91 },
      { text: "always run tsc", index: 92 },
    ];
    const said = (n: number): SessionFacts["statements"] =>
      Array.from({ length: n }, (_, k) => ({ text: `Make batch ${String(k)} stream its rows.`, index: 100 + k, count: 1 }));
    const at = (statements: SessionFacts["statements"]): SessionFacts => ({ ...facts, preferences, statements });
    const parts = new SummaryParts();

    const first = docWith(parts, true, at(said(2)), artifacts);
    expect(first.preferences.map((p) => p.index)).toEqual([91, 92]);
    // A user message more: the statements changed, the preferences left after them did not.
    const second = docWith(parts, true, at(said(3)), artifacts);
    expect(second.statements).not.toBe(first.statements);
    expect(second.preferences).toBe(first.preferences);
    // In the hook (nothing kept), the same: the prepared list is read.
    expect(docWith(parts, false, at(said(4)), artifacts).preferences).toBe(first.preferences);

    // The same length, one item replaced (a preference said again at another message): not the kept list.
    const moved = [preferences[0], { text: "always run tsc", index: 93 }] as SessionFacts["preferences"];
    expect(docWith(parts, false, { ...at(said(4)), preferences: moved }, artifacts).preferences.map((p) => p.index)).toEqual([91, 93]);

    // A statement of message #92 now quotes its preference: the list changed, in the hook and at a turn's end.
    const echoed = [...said(4), { text: "Always run tsc before a commit.", index: 92, count: 1 }];
    const scratch = docWith(undefined, false, at(echoed), artifacts);
    expect(scratch.preferences.map((p) => p.index)).toEqual([91]);
    const hook = docWith(parts, false, at(echoed), artifacts);
    expect(hook.preferences).toEqual(scratch.preferences);
    expect(hook.preferences).not.toBe(first.preferences);
    const kept = docWith(parts, true, at(echoed), artifacts);
    expect(kept.preferences).toEqual(scratch.preferences);

    // Kept again after a change: the kept list follows the last prepare.
    const other = docWith(parts, true, { ...at(echoed), preferences: moved }, artifacts);
    expect(other.preferences.map((p) => p.index)).toEqual([91, 93]);
    expect(docWith(parts, true, { ...at(said(2)), preferences: moved }, artifacts).preferences).toEqual(other.preferences);
  });

  it("keeps the merged preferences' identity too, so the sections made of them are reused", async () => {
    const { facts, artifacts } = await baseFacts();
    const previous = docWith(undefined, false, { ...facts, preferences: [{ text: "never touch gen/", index: 3 }] }, artifacts);
    const preferences = [{ text: "always run tsc", index: 92 }];
    const said = (n: number): SessionFacts["statements"] =>
      Array.from({ length: n }, (_, k) => ({ text: `Make batch ${String(k)} stream its rows.`, index: 100 + k, count: 1 }));
    const parts = new SummaryParts();
    const merged = (n: number, keepMade: boolean, extra: SessionFacts["statements"] = []): SummaryDoc => {
      const scope = enterParts(parts, keepMade);
      try {
        return mergeSummaries(previous, docFromFacts({ ...facts, preferences, statements: [...said(n), ...extra] }, artifacts, [], FOOTER), { nextCoversPrevious: true });
      } finally {
        leaveParts(scope);
      }
    };
    const first = merged(2, true);
    expect(merged(3, true).preferences).toBe(first.preferences);
    const echoed = merged(3, false, [{ text: "Never touch gen/ again.", index: 3, count: 1 }]);
    expect(echoed.preferences.map((p) => p.index)).toEqual([92]);
    expect(echoed.preferences).not.toBe(first.preferences);
  });

  it("keeps the previous summaries with the branch summaries while both lists are the same, and never for another list", async () => {
    const { facts, artifacts } = await baseFacts();
    const doc = docWith(undefined, false, facts, artifacts);
    const one = [{ text: "## Goal\nTry the streaming parser on the other branch.", index: 4 }];
    const two = [...one, { text: "## Goal\nTry the CSV sniffer.", index: 9 }];
    const parts = new SummaryParts();
    const branch = (summaries: typeof one, keepMade: boolean): SummaryDoc => {
      const scope = enterParts(parts, keepMade);
      try {
        return withBranchSummaries(doc, summaries);
      } finally {
        leaveParts(scope);
      }
    };
    const first = branch(one, true);
    expect(first.previous.map((p) => p.index)).toEqual([4]);
    expect(branch(one, false).previous).toBe(first.previous);
    // A branch summary more (a new list): made for it, in the hook and at a turn's end.
    expect(branch(two, false).previous.map((p) => p.index)).toEqual([4, 9]);
    expect(branch(two, true).previous).toEqual(withBranchSummaries(doc, two).previous);
    // Another doc's previous list: made for it.
    const other = { ...doc, previous: [{ label: "compaction 1", index: 2, lines: ["- kept"] }] };
    expect(branch(two, false).previous).not.toBe(first.previous);
    const scope = enterParts(parts, false);
    try {
      expect(withBranchSummaries(other, two).previous.map((p) => p.index)).toEqual([2, 4, 9]);
    } finally {
      leaveParts(scope);
    }
  });
});
