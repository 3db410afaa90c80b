// Seed accumulators sharing a scan cache (the live extension's fold stretch and compaction gate are fed
// the same block objects): the second feed of a block applies the first's scan, its span hashes are
// reused, and every record is byte-identical to one made without a cache.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type Block, readSession } from "@context-fold/ledger-reader";
import { generateSession } from "@context-fold/session-gen";
import { CodeAssigner } from "@context-fold/seed-index-format";
import { tempDir } from "@context-fold/test-support";
import { createSeedAccumulator, createSeedScanCache, recordBlocks, type SeedAccumulator, type SeedScanCache } from "@context-fold/extractors";
import { BlockList } from "./hand-blocks.js";

const CWD = "/home/dev/repo";
const AT = "2026-03-01T12:00:00.000Z";

function record(acc: SeedAccumulator, trigger: "compact" | "threshold"): string {
  return JSON.stringify(acc.record({ sessionId: "s1", seq: 0, at: AT, trigger, codes: new CodeAssigner() }));
}

/** Blocks fed the way the extension feeds them: in turns, each turn to one accumulator and then the other. */
function feedBoth(blocks: readonly Block[], cwd: string | undefined, cache: SeedScanCache, turn = 5): [SeedAccumulator, SeedAccumulator] {
  const first = createSeedAccumulator({ cwd, scans: cache });
  const second = createSeedAccumulator({ cwd, scans: cache });
  for (let i = 0; i < blocks.length; i += turn) {
    first.add(blocks.slice(i, i + turn));
    second.add(blocks.slice(i, i + turn));
  }
  return [first, second];
}

function sample(): Block[] {
  const s = new BlockList();
  s.user("fix the failing ladder test, keep RECALL_SLICE_TOKEN_CAP");
  s.text("I'll look at src/ladder.ts first");
  s.tool("read", { path: "src/ladder.ts" }, 'import { x } from "./other.js";\nexport const stepAdvance = 1;');
  s.tool("bash", { command: "cat docs/notes.md" }, "details in docs/ladder.md");
  s.tool("bash", { command: "npx vitest run tests/ladder.test.ts" }, "FAIL tests/ladder.test.ts > step advance\nError: expected 0x811c9dc5\ncat: lib/gone.ts: No such file or directory", { isError: true });
  s.tool("edit", { path: "src/ladder.ts", oldText: "a", newText: "computeFoldLadder()" }, "Successfully replaced text in src/ladder.ts.");
  s.bang("git diff --stat", "fatal: bad revision\n src/ladder.ts | 2 +-\n", 128);
  s.user("thanks");
  return s.blocks;
}

describe("seed scan cache", () => {
  it("scans each block once for two accumulators, and both records equal an uncached one", () => {
    const blocks = sample();
    const plain = createSeedAccumulator({ cwd: CWD }).add(blocks);
    const cache = createSeedScanCache();
    const first = createSeedAccumulator({ cwd: CWD, scans: cache }).add(blocks);
    const scanned = cache.scans;
    // Every block of a scanned kind was scanned once.
    expect(scanned).toBe(blocks.length);
    expect(cache.hits).toBe(0);
    const second = createSeedAccumulator({ cwd: CWD, scans: cache }).add(blocks);
    expect(cache.scans).toBe(scanned);
    expect(cache.hits).toBe(blocks.length);
    for (const trigger of ["compact", "threshold"] as const) {
      expect(record(first, trigger)).toBe(record(plain, trigger));
      expect(record(second, trigger)).toBe(record(plain, trigger));
    }
    // The spans' sha256 and log were computed once per block, whichever accumulator asked first.
    expect(cache.hashes).toBe(blocks.filter((b) => b.anchor !== undefined && b.kind !== "user").length);
  });

  it("scans again only a block whose earlier scan skipped the path candidates now asked for", () => {
    const blocks = sample();
    const printed = blocks.find((b) => b.kind === "toolResult" && b.text.includes("docs/ladder.md")) as Block;
    const cache = createSeedScanCache();
    // After its call (`cat docs/notes.md`), the output is a file's content: scanned without path candidates.
    createSeedAccumulator({ cwd: CWD, scans: cache }).add(blocks);
    const scanned = cache.scans;
    // Fed alone it is no file content (no call says what printed it): its paths count, so it is scanned again.
    const alone = createSeedAccumulator({ cwd: CWD, scans: cache }).add([printed]);
    expect(cache.scans).toBe(scanned + 1);
    expect(alone.fields().files).toEqual(createSeedAccumulator({ cwd: CWD }).add([printed]).fields().files);
    expect(alone.fields().files).toContain("docs/ladder.md");
    // That scan holds the candidates, so a content feed of the same block takes it as it is.
    createSeedAccumulator({ cwd: CWD, scans: cache }).add(blocks);
    expect(cache.scans).toBe(scanned + 1);
  });

  it("gives byte-identical records on a generated session fed turn by turn to two accumulators", async () => {
    const file = join(tempDir("scan-cache-"), "session.jsonl");
    await generateSession(file, { seed: 11, turns: 60 });
    const session = await readSession(file);
    const blocks = recordBlocks(session, { scope: "lineage" });
    const plain = createSeedAccumulator({ cwd: session.header.cwd }).add(blocks);
    const cache = createSeedScanCache();
    const [first, second] = feedBoth(blocks, session.header.cwd, cache);
    expect(cache.scans).toBeGreaterThan(0);
    expect(cache.hits).toBe(cache.scans);
    for (const trigger of ["compact", "threshold"] as const) {
      const want = JSON.stringify(plain.record({ sessionId: "s1", seq: 0, at: AT, trigger, codes: new CodeAssigner() }));
      expect(JSON.stringify(first.record({ sessionId: "s1", seq: 0, at: AT, trigger, codes: new CodeAssigner() }))).toBe(want);
      expect(JSON.stringify(second.record({ sessionId: "s1", seq: 0, at: AT, trigger, codes: new CodeAssigner() }))).toBe(want);
    }
  });

  it("keeps a scan only until a second feed takes it: a third feed scans again, and its record is the same", () => {
    const blocks = sample();
    const plain = createSeedAccumulator({ cwd: CWD }).add(blocks);
    const cache = createSeedScanCache();
    createSeedAccumulator({ cwd: CWD, scans: cache }).add(blocks);
    const scanned = cache.scans;
    createSeedAccumulator({ cwd: CWD, scans: cache }).add(blocks);
    expect(cache.scans).toBe(scanned);
    // The second feed took every scan: none is held for the session's lifetime.
    const third = createSeedAccumulator({ cwd: CWD, scans: cache }).add(blocks);
    expect(cache.scans).toBe(2 * scanned);
    for (const trigger of ["compact", "threshold"] as const) expect(record(third, trigger)).toBe(record(plain, trigger));
  });

  it("refuses a cache it did not make", () => {
    expect(() => createSeedAccumulator({ scans: { scans: 0, hits: 0, hashes: 0 } })).toThrow(/createSeedScanCache/);
  });
});
