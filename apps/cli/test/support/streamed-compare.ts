// The one comparison loop every streamed-command test runs: a command's streamed path (the session's
// shape, then its lineage streamed) must answer byte for byte what the whole read answers, on every shared
// fixture and on sessions Pi's own SessionManager writes with branches, compactions, context edits and
// damage. Each test file says only what it compares; which sessions, and how they are made, live here.
import { join } from "node:path";
import { readSession, readSessionShape, type Session, type SessionShape } from "@context-fold/ledger-reader";
import { type GenerateOptions, generateSession } from "@context-fold/session-gen";
import { describeShared, sessionFixtures, sharedFixture, tempDir } from "@context-fold/test-support";
import { describe, expect, it } from "vitest";

/** Generated sessions with compactions and branches, one of them damaged (torn, malformed, torn tail). */
export const GENERATED_RUNS: readonly GenerateOptions[] = [
  { seed: 3, turns: 60, compactions: 3 },
  { seed: 4, turns: 60, compactions: 2, damage: { tornLines: 3, malformedLines: 3, truncatedTail: true } },
];

/** The shared fixtures every comparison covers: the session fixtures and two long real sessions. */
export function comparedFixtures(): string[] {
  return [...sessionFixtures(), sharedFixture("real", "castai-kimchi-dev-910d402__session.jsonl"), sharedFixture("real", "pinion05-act-3ae80f5__03-raddit-dashboard-pr.jsonl")];
}

/** Both reads of one file: the whole session (text held) and its shape (what the streamed path starts from). */
export async function readBoth(file: string, options: { fragment?: true; blockBytes?: true } = {}): Promise<{ whole: Session; shape: SessionShape }> {
  const fragment = options.fragment === true ? { fragment: true } : {};
  const whole = await readSession(file, fragment);
  const shape = await readSessionShape(file, options.blockBytes === true ? { ...fragment, blockBytes: true } : fragment);
  return { whole, shape };
}

export interface StreamedComparison<T> {
  /** What is compared, for the test titles ("compact's streamed result"). */
  what: string;
  /** Compares the two paths on one session file (expect inside); its result goes to `onGenerated`. */
  compare: (file: string) => Promise<T>;
  /** The generated sessions (default GENERATED_RUNS). */
  runs?: readonly GenerateOptions[];
  /** Which of comparedFixtures() to cover (default all). */
  fixtures?: (files: string[]) => string[];
  /**
   * Checked on each generated session, so the comparison is not of two empty answers: what the session
   * carries (the whole read) and what `compare` returned.
   */
  onGenerated?: (whole: Session, compared: T) => void;
}

/** Declares the comparison's tests: one per shared fixture (skipped with a notice without ../shared), one over the generated sessions. */
export function describeStreamedComparison<T>(spec: StreamedComparison<T>): void {
  describeShared(`${spec.what} equals the whole read's`, () => {
    const files = spec.fixtures === undefined ? comparedFixtures() : spec.fixtures(comparedFixtures());
    for (const file of files) {
      it(file.split("/").pop() ?? file, async () => {
        await spec.compare(file);
      });
    }
  });

  describe(`${spec.what} on Pi-written sessions`, () => {
    it("branches, compactions, context edits and damage (torn, malformed, torn tail)", async () => {
      const dir = tempDir();
      for (const options of spec.runs ?? GENERATED_RUNS) {
        const file = join(dir, `s${String(options.seed)}.jsonl`);
        await generateSession(file, options);
        const whole = await readSession(file);
        // What the comparison is for: a lineage with context edits, and more than one branch.
        expect(whole.entries.some((e) => e.type === "context_edit")).toBe(true);
        expect(whole.branchPoints.length).toBeGreaterThan(0);
        const compared = await spec.compare(file);
        spec.onGenerated?.(whole, compared);
      }
    });
  });
}
