// The record's identifiers ranked among the candidates kept between calls (identifier-rank.ts) equal
// those ranked afresh over every token: an accumulator fed turn by turn and asked at every turn's end,
// in both modes, against a new accumulator fed the same blocks and asked once. Over generated sessions
// with 0, 1 and 3 compactions, the real Pi-written session fixtures, and tokens that turn up in a large
// output only after they were counted elsewhere (the one way a kept-out token can rank higher).
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type Block, readSession } from "@context-fold/ledger-reader";
import { generateSession } from "@context-fold/session-gen";
import { describeShared, sessionFixtures, tempDir } from "@context-fold/test-support";
import { createSeedAccumulator, createSeedScanCache, LARGE_OUTPUT_CHARS, recordBlocks } from "@context-fold/extractors";
import { IdentifierRanker } from "../../src/seed/identifier-rank.js";
import { BlockList } from "./hand-blocks.js";

/** The blocks cut into turns at each user message (how the extension feeds them). */
function turns(blocks: readonly Block[]): Block[][] {
  const out: Block[][] = [];
  for (const block of blocks) {
    if (block.role === "user" || out.length === 0) out.push([]);
    (out[out.length - 1] as Block[]).push(block);
  }
  return out;
}

/**
 * Feeds `blocks` turn by turn (every `every`-th turn's end asked for fields, both modes), each answer
 * checked against a fresh accumulator's; returns how many calls ranked among candidates.
 */
function replayMatches(blocks: readonly Block[], cwd: string | undefined, every = 1): { calls: number; rebuilds: number; checked: number; homesMade: number; homesHeld: number } {
  const scans = createSeedScanCache();
  const live = createSeedAccumulator({ cwd, scans });
  const fed: Block[] = [];
  const calls = IdentifierRanker.calls;
  const rebuilds = IdentifierRanker.rebuilds;
  const made = IdentifierRanker.homesMade;
  const held = IdentifierRanker.homesHeld;
  let checked = 0;
  turns(blocks).forEach((turn, i) => {
    live.add(turn);
    fed.push(...turn);
    if (i % every !== 0) return;
    // Alternate which mode is asked first: each keeps its own candidates.
    const modes = i % 2 === 0 ? [true, false] : [false, true];
    for (const favourRecent of modes) {
      const got = live.fields({ favourRecent });
      const madeHere = IdentifierRanker.homesMade;
      const heldHere = IdentifierRanker.homesHeld;
      const before = IdentifierRanker.calls;
      const want = createSeedAccumulator({ cwd, scans }).add(fed).fields({ favourRecent });
      // The fresh accumulator's first call ranks every token.
      expect(IdentifierRanker.rebuilds - rebuilds).toBeGreaterThan(0);
      expect(IdentifierRanker.calls).toBe(before + 1);
      expect(got).toEqual(want);
      checked += 1;
      // The fresh accumulator's calls are no calls among candidates: they count no homes.
      expect(IdentifierRanker.homesMade).toBe(madeHere);
      expect(IdentifierRanker.homesHeld).toBe(heldHere);
    }
  });
  return {
    calls: IdentifierRanker.calls - calls - checked,
    rebuilds: IdentifierRanker.rebuilds - rebuilds - checked,
    checked,
    homesMade: IdentifierRanker.homesMade - made,
    homesHeld: IdentifierRanker.homesHeld - held,
  };
}

describe("identifiers ranked among kept candidates", () => {
  it.each([0, 1, 3])("equal a ranking of every token at every turn of a generated session with %i compactions", async (compactions) => {
    const file = join(tempDir("identifier-rank-"), "session.jsonl");
    await generateSession(file, { seed: 11 + compactions, size: 400 << 10, compactions });
    const session = await readSession(file);
    expect(session.compactions.length).toBe(compactions);
    const { calls, rebuilds, checked, homesMade, homesHeld } = replayMatches(recordBlocks(session, { scope: "lineage" }), session.header.cwd);
    expect(checked).toBeGreaterThan(40);
    // Most turns' ends ranked among the candidates, not every token.
    expect(calls).toBe(checked);
    expect(rebuilds).toBeLessThan(calls / 4);
    // And among those, most homes' best were kept from the call before, not made again.
    expect(homesMade).toBeLessThan(homesHeld * 0.75);
  });

  it("re-reads a token first counted in a small output once it turns up in a large one", () => {
    const s = new BlockList();
    // Small outputs: hundreds of tokens of rare parts (the candidates), and `alpha_beta_gamma`, whose
    // parts many other tokens share: common parts, so it ranks below them all and is kept out.
    for (let t = 0; t < 12; t++) {
      s.user(`step ${String(t)}`);
      const rare = Array.from({ length: 40 }, (_, k) => `rareName${String(t)}x${String(k)}_z${String(k * 7 + t)}`);
      const common = Array.from({ length: 6 }, (_, k) => `alpha_${String(t * 6 + k)}q beta_${String(t * 6 + k)}q gamma_${String(t * 6 + k)}q`);
      s.tool("bash", { command: `ls dir${String(t)}` }, `${rare.join("\n")}\n${common.join("\n")}\nalpha_beta_gamma`);
    }
    // Then one large output naming it: large outputs' tokens rank first, so it is now among the best.
    s.user("dump the log");
    const filler = Array.from({ length: 400 }, (_, k) => `line ${String(k)} of the dump`).join("\n");
    const text = `alpha_beta_gamma\n${filler}`;
    expect(text.length).toBeGreaterThanOrEqual(LARGE_OUTPUT_CHARS);
    s.tool("bash", { command: "cat dump.log" }, text);
    s.user("thanks");
    const { calls, rebuilds, checked } = replayMatches(s.blocks, "/home/dev/repo");
    expect(calls).toBe(checked);
    expect(rebuilds).toBeLessThan(calls);
    const before = createSeedAccumulator({ cwd: "/home/dev/repo" }).add(s.blocks.slice(0, -3)).fields({ favourRecent: true });
    expect(before.identifiers).not.toContain("alpha_beta_gamma");
    const after = createSeedAccumulator({ cwd: "/home/dev/repo" }).add(s.blocks).fields({ favourRecent: true });
    expect(after.identifiers).toContain("alpha_beta_gamma");
  });
});

describe("identifiers ranked among kept candidates, when they fall short", () => {
  it("ranks every token again once later tokens made the candidates' parts common", () => {
    const s = new BlockList();
    // Turns of tokens made of rare parts: the candidates (every one of rarity 1).
    for (let t = 0; t < 40; t++) {
      s.user(`step ${String(t)}`);
      s.tool("bash", { command: `ls dir${String(t)}` }, Array.from({ length: 10 }, (_, k) => `Name${String(t)}x${String(k)}_q`).join("\n"));
    }
    // Then each of their distinctive parts turns up in other tokens: none of them is rare any more.
    s.user("more");
    const echoes: string[] = [];
    for (let t = 0; t < 40; t++) for (let k = 0; k < 10; k++) echoes.push(`Name${String(t)}x${String(k)}_again`, `Name${String(t)}x${String(k)}_once_more`);
    s.tool("bash", { command: "ls echoes" }, echoes.join("\n"));
    s.user("thanks");
    const { calls, rebuilds, checked } = replayMatches(s.blocks, "/home/dev/repo");
    expect(calls).toBe(checked);
    // The first call of each mode, and again once the candidates were not enough.
    expect(rebuilds).toBeGreaterThan(2);
  });
});

describeShared("identifiers ranked among kept candidates, real sessions", () => {
  it.each(sessionFixtures().map((f) => [f.split("/").pop() ?? f, f]))("equal a ranking of every token on %s", async (_name, file) => {
    const session = await readSession(file);
    const blocks = recordBlocks(session, { scope: "lineage" });
    // Asked at every turn's end; checked against a fresh ranking at about 60 of them.
    const every = Math.max(1, Math.ceil(turns(blocks).length / 60));
    const { checked } = replayMatches(blocks, session.header.cwd, every);
    expect(checked).toBeGreaterThan(0);
  });
});
