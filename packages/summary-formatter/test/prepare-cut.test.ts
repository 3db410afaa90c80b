// `prepareCut`: the cut the extension's gate weighs a compaction by, planned once and kept in the parts,
// so the hook that compacts the same session read finds it instead of planning it again: the same plan
// as `planCut`, and the same compaction as one that plans its own cut.
import { readSession } from "@context-fold/ledger-reader";
import { compactSession, compactWithFacts, type CutPlan, planCut, prepareCut, SummaryParts } from "@context-fold/summary-formatter";
import { tempDir } from "@context-fold/test-support";
import { describe, expect, it } from "vitest";
import { SLOT } from "../src/summary-parts.js";
import { factsBefore, importerSession } from "./pi-session.js";

const NOW = "2026-03-01T10:00:00.000Z";

describe("a cut prepared for a session read", () => {
  it("is planCut's, is kept in the parts, and the compaction of that read reuses it and is the same", async () => {
    const w = importerSession(tempDir(), "Build the CSV importer for the billing service — every column kept, rejected rows logged.", 12);
    const session = await readSession(w.file);
    const parts = new SummaryParts();
    const plan = prepareCut(parts, session);
    expect(plan).toEqual(planCut(session));
    expect(parts.slots[SLOT.cut]?.a).toBe(session);
    expect(parts.slots[SLOT.cut]?.value).toBe(plan);
    const found = parts.found;
    const cwd = session.header.cwd;
    let asked: CutPlan | undefined;
    const result = compactWithFacts(session, (cut) => factsBefore((asked = cut), cwd), { budget: 900, now: NOW, parts });
    // The hook's compaction was handed the very plan prepared (not one planned again), and found it.
    expect(asked).toBe(plan);
    expect(parts.found).toBeGreaterThan(found);
    expect(result).toEqual(compactSession(session, { budget: 900, now: NOW }));
  });
});
