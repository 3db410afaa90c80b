import { readFileSync } from "node:fs";
import { expect, it } from "vitest";
import { readSession } from "@context-fold/ledger-reader";
import { CodeAssigner, validateRecord } from "@context-fold/seed-index-format";
import { describeShared, rawSessionTruth, sessionFixtures } from "@context-fold/test-support";
import { buildCompactRecord, verifySpans } from "@context-fold/extractors";

describeShared("seed records over the real session fixtures", () => {
  for (const file of sessionFixtures()) {
    it(`indexes and verifies ${file.split("/").pop() ?? file}`, async () => {
      const session = await readSession(file);
      const record = buildCompactRecord(session, { seq: 0, scope: "lineage", codes: new CodeAssigner() });
      expect(validateRecord(record)).toEqual({ ok: true, kind: "record" });
      const again = buildCompactRecord(await readSession(file), { seq: 0, scope: "lineage" });
      expect(JSON.stringify(again)).toBe(JSON.stringify(record));
      const result = verifySpans(session, [record]);
      expect(result.mismatched).toEqual([]);
      expect(result.missing).toEqual([]);
      expect(result.verified).toBe(record.spans.length);
      const truth = rawSessionTruth(readFileSync(file, "utf8"));
      for (const f of truth.files) expect(record.files).toContain(f);
      for (const c of truth.commands) expect(record.commands).toContain(c);
      expect(record.identifiers.length).toBeLessThanOrEqual(64);
    });
  }
});
