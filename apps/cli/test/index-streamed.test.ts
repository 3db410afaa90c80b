// `index` builds its record from the session's shape and a streamed second read (no text held). The
// record must be byte-identical to the whole-read record (buildCompactRecord on readSession), on every
// shared fixture and on generated sessions with branches, compactions, context edits and damage.
import { buildCompactRecord, buildCompactRecordStreamed } from "@context-fold/extractors";
import { CodeAssigner } from "@context-fold/seed-index-format";
import { expect } from "vitest";
import { describeStreamedComparison, readBoth } from "./support/streamed-compare.js";

const AT = "2026-03-01T10:00:00.000Z";

async function expectSameRecord(file: string): Promise<void> {
  const { whole: session, shape } = await readBoth(file);
  for (const scope of ["lineage", "compacted"] as const) {
    const whole = buildCompactRecord(session, { seq: 3, at: AT, trigger: "compact", codes: new CodeAssigner(), scope });
    const streamed = await buildCompactRecordStreamed(shape, { seq: 3, at: AT, trigger: "compact", codes: new CodeAssigner(), scope });
    expect(JSON.stringify(streamed)).toBe(JSON.stringify(whole));
  }
  // Without `at`, both take the last entry's time.
  const whole = buildCompactRecord(session, { seq: 0, scope: "lineage" });
  const streamed = await buildCompactRecordStreamed(shape, { seq: 0, scope: "lineage" });
  expect(streamed.at).toBe(whole.at);
}

describeStreamedComparison({ what: "index's streamed record", compare: expectSameRecord });
