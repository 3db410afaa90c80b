// Needles planted deep inside large tool outputs of a generated Pi session must survive extraction:
// identifiers and hex constants in `identifiers`, error lines in `errors`.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readSession } from "@context-fold/ledger-reader";
import { validateRecord } from "@context-fold/seed-index-format";
import { generateSession } from "@context-fold/session-gen";
import { tempDir } from "@context-fold/test-support";
import { buildCompactRecord, recordBlocks, verifySpans } from "@context-fold/extractors";

describe("needles in a generated session", () => {
  for (const seed of [7, 42, 1001, 31337]) {
    it(`finds every tool-output needle on the lineage (seed ${String(seed)})`, async () => {
      const file = join(tempDir("seed-needles-"), "session.jsonl");
      const manifest = await generateSession(file, { seed, turns: 60 });
      const session = await readSession(file);
      const record = buildCompactRecord(session, { seq: 0, scope: "lineage" });
      expect(validateRecord(record).ok).toBe(true);
      // Needles whose result a context_edit replaced or hid are legitimately gone from the current view.
      const present = new Set(recordBlocks(session, { scope: "lineage" }).flatMap((b) => (b.anchor === undefined ? [] : [b.anchor])));
      const needles = manifest.needles.filter((n) => n.where === "tool-output" && n.onLineage && n.anchor !== undefined && present.has(n.anchor));
      expect(needles.length).toBeGreaterThanOrEqual(10);
      // Spans (including `:edit:` spans from the generator's context_edits) verify against the ledger.
      const verified = verifySpans(session, [record]);
      expect(verified.mismatched).toEqual([]);
      expect(verified.missing).toEqual([]);
      expect(record.spans.some((s) => s.blockId.includes(":edit:"))).toBe(true);
      for (const needle of needles) {
        if (needle.kind === "error-line") expect(record.errors, needle.value).toContain(needle.value);
        else expect(record.identifiers, `${needle.kind} ${needle.value}`).toContain(needle.value);
      }
    });
  }
});
