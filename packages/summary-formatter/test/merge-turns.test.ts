// Earlier turns merged by the #N that opened them, the newer summary's line winning: two lists in #N
// order are merged in one walk, any other pair through a map sorted by #N. Either way the turns are the
// map's, sorted: checked on generated lists in order, with a #N twice, out of order, empty.
import { emptyDoc, mergeSummaries, type SummaryDoc } from "@context-fold/summary-formatter";
import fc from "fast-check";
import { describe, expect, it } from "vitest";

const footer = (from: number, to: number): SummaryDoc["footer"] => ({ at: "2026-03-01T09:00:00.000Z", messages: 1, windowTokens: 1, summaryTokens: 1, tailMessages: 1, tailTokens: 1, range: { from, to } });

type Turn = SummaryDoc["earlierTurns"][number];

/** The rule: a map by #N (the later list's line replacing the earlier's), its turns sorted by #N. */
function byMap(a: readonly Turn[], b: readonly Turn[]): Turn[] {
  const byIndex = new Map<number, Turn>();
  for (const t of [...a, ...b]) byIndex.set(t.index, t);
  return [...byIndex.values()].sort((x, y) => x.index - y.index);
}

const turnsArb = (tag: string) =>
  fc
    .tuple(fc.array(fc.nat({ max: 60 }), { maxLength: 25 }), fc.constantFrom("sorted", "as drawn"))
    .map(([indexes, order]) => (order === "sorted" ? [...new Set(indexes)].sort((x, y) => x - y) : indexes).map((index, k) => ({ text: `${tag} turn ${String(k)} at #${String(index)}`, index })));

describe("earlier turns merged", () => {
  it("are the map's turns sorted by #N, the newer line winning", () => {
    fc.assert(
      fc.property(turnsArb("old"), turnsArb("new"), (a, b) => {
        const merged = mergeSummaries({ ...emptyDoc(footer(0, 40)), earlierTurns: a }, { ...emptyDoc(footer(36, 80)), earlierTurns: b });
        expect(merged.earlierTurns).toEqual(byMap(a, b));
      }),
      { numRuns: 400 },
    );
  });
});
