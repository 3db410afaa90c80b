// The cut a turn's end prepares (`prepareCutParts`: the cut, what was said outside the branch's blocks,
// the brief of the window) is the compaction's while the session read is the same, and never another
// read's: a compaction of the session grown since cuts afresh (issue 25: the hook's allocation per run).
import { readSession, type Session, updateSession } from "@context-fold/ledger-reader";
import { compactSession, compactWithFacts, type CutPlan, prepareCutParts, SummaryParts } from "@context-fold/summary-formatter";
import { tempDir } from "@context-fold/test-support";
import { describe, expect, it } from "vitest";
import { factsBefore, importerSession } from "./pi-session.js";

const NOW = "2026-03-01T10:00:00.000Z";

/** Facts from scratch of the lineage before the cut, as `compactSession` takes them. */
function extracted(session: Session): (plan: CutPlan) => ReturnType<typeof factsBefore> {
  return (plan) => factsBefore(plan, session.header.cwd);
}

describe("a cut prepared at a turn's end", () => {
  it("is the compaction's for the same session read, and not for a read of the session grown since", async () => {
    const w = importerSession(tempDir(), "Build the CSV importer for the billing service — every column kept, rejected rows logged.", 40);
    const before = await readSession(w.file);
    const parts = new SummaryParts();
    prepareCutParts(parts, before);
    expect(parts.made).toBe(3);
    const found = parts.found;
    const first = compactWithFacts(before, extracted(before), { budget: 900, now: NOW, parts });
    expect(first).toEqual(compactSession(before, { budget: 900, now: NOW }));
    // The cut, what was said outside the branch's blocks and the brief: each found, none made again.
    expect(parts.found - found).toBe(3);
    expect(parts.made).toBe(3);

    // A turn later: a new read, its own cut (the prepared one was the earlier read's).
    for (let k = 41; k <= 60; k++) {
      w.assistant([{ type: "text", text: `Batch ${String(k)} streams.` }]);
      w.user(`Now make batch ${String(k)} report its row count.`);
    }
    const after = await updateSession(before);
    expect(after.byteLength).toBeGreaterThan(before.byteLength);
    const still = parts.found;
    const grown = compactWithFacts(after, extracted(after), { budget: 900, now: NOW, parts });
    expect(grown).toEqual(compactSession(after, { budget: 900, now: NOW }));
    expect(grown.firstKeptEntryId).not.toBe(first.firstKeptEntryId);
    expect(parts.found).toBe(still);
  });
});
