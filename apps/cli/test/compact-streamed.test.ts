// `compact` plans its cut on the session's shape and streams the lineage's text once
// (compactSessionStreamed). Its result must be byte-identical to compactSession on the whole read, on
// every shared fixture and on Pi-written sessions with branches, compactions, context edits and damage,
// for each option that changes what is read (budget, format, keep-tail, scope).
import { type CompactOptions, compactSession, compactSessionStreamed, SummaryError } from "@context-fold/summary-formatter";
import { expect } from "vitest";
import { describeStreamedComparison, GENERATED_RUNS, readBoth } from "./support/streamed-compare.js";

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
  const { whole, shape } = await readBoth(file, { blockBytes: true });
  let compacted = 0;
  for (const options of VARIANTS) {
    const expected = outcome(() => compactSession(whole, options));
    const got = await outcomeAsync(() => compactSessionStreamed(shape, options));
    expect(got).toBe(expected);
    if (expected.startsWith("{")) compacted++;
  }
  return compacted;
}

describeStreamedComparison({
  what: "compact's streamed result",
  compare: expectSameCompaction,
  runs: [...GENERATED_RUNS, { seed: 5, turns: 40, compactions: 0 }],
  // Every variant compacts something here: the comparison is of summaries, not of two refusals.
  onGenerated: (_whole, compacted) => expect(compacted).toBe(VARIANTS.length),
});
