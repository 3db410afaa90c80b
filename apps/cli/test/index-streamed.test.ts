// `index` builds its record from the session's shape and a streamed second read (no text held). The
// record must be byte-identical to the whole-read record (buildCompactRecord on readSession), on every
// shared fixture and on generated sessions with branches, compactions, context edits and damage.
import { join } from "node:path";
import { buildCompactRecord, buildCompactRecordStreamed } from "@context-fold/extractors";
import { readSession, readSessionShape } from "@context-fold/ledger-reader";
import { CodeAssigner } from "@context-fold/seed-index-format";
import { generateSession } from "@context-fold/session-gen";
import { describeShared, sessionFixtures, sharedFixture, tempDir } from "@context-fold/test-support";
import { describe, expect, it } from "vitest";

const AT = "2026-03-01T10:00:00.000Z";

async function expectSameRecord(file: string): Promise<void> {
  for (const scope of ["lineage", "compacted"] as const) {
    const whole = buildCompactRecord(await readSession(file), { seq: 3, at: AT, trigger: "compact", codes: new CodeAssigner(), scope });
    const streamed = await buildCompactRecordStreamed(await readSessionShape(file), { seq: 3, at: AT, trigger: "compact", codes: new CodeAssigner(), scope });
    expect(JSON.stringify(streamed)).toBe(JSON.stringify(whole));
  }
  // Without `at`, both take the last entry's time.
  const whole = buildCompactRecord(await readSession(file), { seq: 0, scope: "lineage" });
  const streamed = await buildCompactRecordStreamed(await readSessionShape(file), { seq: 0, scope: "lineage" });
  expect(streamed.at).toBe(whole.at);
}

describeShared("index's streamed record equals the whole read's", () => {
  const files = [...sessionFixtures(), sharedFixture("real", "castai-kimchi-dev-910d402__session.jsonl"), sharedFixture("real", "pinion05-act-3ae80f5__03-raddit-dashboard-pr.jsonl")];
  for (const file of files) {
    it(file.split("/").pop() ?? file, async () => {
      await expectSameRecord(file);
    });
  }
});

describe("index's streamed record on generated sessions", () => {
  it("branches, compactions, context edits and damage (torn, malformed, torn tail)", async () => {
    const dir = tempDir();
    const runs: Parameters<typeof generateSession>[1][] = [
      { seed: 3, turns: 60, compactions: 3 },
      { seed: 4, turns: 60, compactions: 2, damage: { tornLines: 3, malformedLines: 3, truncatedTail: true } },
    ];
    for (const options of runs) {
      const file = join(dir, `s${String(options.seed)}.jsonl`);
      await generateSession(file, options);
      const session = await readSession(file);
      // The generated sessions carry what the record applies: edits, and more than one branch.
      expect(session.entries.some((e) => e.type === "context_edit")).toBe(true);
      expect(session.branchPoints.length).toBeGreaterThan(0);
      await expectSameRecord(file);
    }
  });
});
