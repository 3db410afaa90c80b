// The fold stretch and the compaction's facts are fed the same block objects (one ledger tracker per
// session); with the session's shared seed scans, the second side to be fed scans nothing again and
// still gives the records it gives alone.
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { createSeedScanCache, recordBlocksAmong } from "@context-fold/extractors";
import { lineageBlocks, readSession } from "@context-fold/ledger-reader";
import { CodeAssigner } from "@context-fold/seed-index-format";
import { generateSession } from "@context-fold/session-gen";
import { tempDir } from "@context-fold/test-support";
import { CompactionFacts } from "../../src/compaction/compaction-facts.js";
import { FoldState } from "../../src/fold/fold-state.js";
import { FoldStretch } from "../../src/fold/fold-stretch.js";

describe("the session's seed scans are shared by the fold side and the compaction side", () => {
  test("the compaction's feed of blocks the fold stretch scanned scans none again, and its record is unchanged", async () => {
    const file = join(tempDir("shared-scans-"), "session.jsonl");
    await generateSession(file, { seed: 5, size: 120_000, compactions: 1 });
    const session = await readSession(file);
    const last = session.blocks.length - 1;
    const params = { sessionId: session.header.id, seq: 3, at: "2026-12-02T00:00:00.000Z", trigger: "compact" as const, favourRecent: true };

    const scans = createSeedScanCache();
    new FoldStretch(session.header.cwd, scans).feed(session, new FoldState(), last);
    const scannedByFold = scans.scans;
    expect(scannedByFold).toBeGreaterThan(10);
    const shared = new CompactionFacts(session.header.cwd, new CodeAssigner(), scans);
    shared.feed(session);
    // Every block the compaction side was fed had been scanned by the fold side, except those a context
    // edit replaced (the record describes the replacement text, a block object of its own).
    const described = recordBlocksAmong(session, lineageBlocks(session), { scope: "lineage" });
    const edited = described.filter((block) => block !== session.blocks[block.index]).length;
    expect(edited).toBeGreaterThan(0);
    expect(scans.scans).toBe(scannedByFold + edited);
    // Served from the fold side's scans (blocks with nothing to scan count as neither).
    expect(scans.hits).toBeGreaterThan((described.length - edited) * 0.9);

    const alone = new CompactionFacts(session.header.cwd, new CodeAssigner());
    alone.feed(session);
    expect(shared.record({ ...params, codes: new CodeAssigner() })).toEqual(alone.record({ ...params, codes: new CodeAssigner() }));
  });
});
