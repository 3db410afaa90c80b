// `compact` plans its cut on the session's shape and streams the lineage's text once
// (compactSessionStreamed). Its result must be byte-identical to compactSession on the whole read, on
// every shared fixture and on Pi-written sessions with branches, compactions, context edits and damage,
// for each option that changes what is read (budget, format, keep-tail, scope).
import { join } from "node:path";
import { readSession, readSessionShape } from "@context-fold/ledger-reader";
import { generateSession } from "@context-fold/session-gen";
import { type CompactOptions, compactSession, compactSessionStreamed, SummaryError } from "@context-fold/summary-formatter";
import { describeShared, sessionFixtures, sharedFixture, tempDir } from "@context-fold/test-support";
import { describe, expect, it } from "vitest";

const VARIANTS: CompactOptions[] = [
  {},
  { budget: 600, format: "pi" },
  { keepTail: 3, now: "2026-03-01T10:00:00.000Z" },
  { scope: "window", budget: 1500 },
];

/** The outcome as text: the result, or the error's code and message (both paths must refuse alike). */
function outcome(run: () => unknown): string {
  try {
    return JSON.stringify(run());
  } catch (error) {
    if (error instanceof SummaryError) return `${error.code}: ${error.message}`;
    throw error;
  }
}

async function outcomeAsync(run: () => Promise<unknown>): Promise<string> {
  try {
    return JSON.stringify(await run());
  } catch (error) {
    if (error instanceof SummaryError) return `${error.code}: ${error.message}`;
    throw error;
  }
}

async function expectSameCompaction(file: string): Promise<number> {
  const whole = await readSession(file);
  const shape = await readSessionShape(file, { blockBytes: true });
  let compacted = 0;
  for (const options of VARIANTS) {
    const expected = outcome(() => compactSession(whole, options));
    const got = await outcomeAsync(() => compactSessionStreamed(shape, options));
    expect(got).toBe(expected);
    if (expected.startsWith("{")) compacted++;
  }
  return compacted;
}

describeShared("compact's streamed result equals the whole read's", () => {
  const files = [...sessionFixtures(), sharedFixture("real", "castai-kimchi-dev-910d402__session.jsonl"), sharedFixture("real", "pinion05-act-3ae80f5__03-raddit-dashboard-pr.jsonl")];
  for (const file of files) {
    it(file.split("/").pop() ?? file, async () => {
      await expectSameCompaction(file);
    });
  }
});

describe("compact's streamed result on Pi-written sessions", () => {
  it("branches, compactions, context edits and damage (torn, malformed, torn tail)", async () => {
    const dir = tempDir();
    const runs: Parameters<typeof generateSession>[1][] = [
      { seed: 3, turns: 60, compactions: 3 },
      { seed: 4, turns: 60, compactions: 2, damage: { tornLines: 3, malformedLines: 3, truncatedTail: true } },
      { seed: 5, turns: 40, compactions: 0 },
    ];
    for (const options of runs) {
      const file = join(dir, `s${String(options.seed)}.jsonl`);
      await generateSession(file, options);
      const session = await readSession(file);
      expect(session.entries.some((e) => e.type === "context_edit")).toBe(true);
      expect(session.branchPoints.length).toBeGreaterThan(0);
      // Every variant compacts something here: the comparison is of summaries, not of two refusals.
      expect(await expectSameCompaction(file)).toBe(VARIANTS.length);
    }
  });
});
