// In Pi 1.6 every `ctx.getContextUsage()` projects the whole session, so the extension must not call it
// on its per-turn path (issue 29: three calls a turn cost 150–200 ms each on a 100 MB session). Through
// tool turns, fold events, a compaction and the turns after it, our handlers ask Pi for the figure not
// once, and the usage each fold record carries is the figure Pi reported at that model call.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { ExtensionFactory } from "@earendil-works/pi-coding-agent";
import { currentView, readSeedIndexFile, seedIndexPath } from "@context-fold/seed-index-format";
import { tempDir } from "@context-fold/test-support";
import type { HeadlessPi } from "../support/headless-pi.js";
import { compactions, FOUNDING, jobModel, startPiWith } from "../compaction/support/compaction-pi.js";

const WINDOW = 12_000;

describe("the extension's turns in Pi without ctx.getContextUsage()", () => {
  let pi: HeadlessPi;
  /** Pi's figure at each `context` event (asked by an extension loaded after ours, not counted). */
  const reported: (number | null)[] = [];
  let recording = false;
  let othersAsked = 0;
  const recorder: ExtensionFactory = (api) => {
    api.on("context", (_event, ctx) => {
      recording = true;
      try {
        reported.push(ctx.getContextUsage()?.tokens ?? null);
      } finally {
        recording = false;
      }
    });
  };

  beforeAll(async () => {
    // The held limit at its cap (the paid limit raised to it, whatever its default): the one compaction
    // is the one asked for below, not our gate's between the jobs (which a prompt would meet in progress).
    pi = await startPiWith({ CONTEXT_FOLD_COMPACT_HELD_PAID: "3" }, { dir: tempDir("pi-usage-calls-"), contextWindow: WINDOW, respond: jobModel, settings: { compaction: { enabled: false, keepRecentTokens: 2000 } }, extensionFactories: [recorder] });
    // Every extension's `ctx.getContextUsage()` is this method of the session: count the calls not the recorder's.
    const own = pi.session.getContextUsage.bind(pi.session);
    pi.session.getContextUsage = () => {
      if (!recording) othersAsked += 1;
      return own();
    };
    await pi.session.prompt(FOUNDING);
    // The first call has no reply with usage on the branch: only Pi's projection gives the figure then
    // (the tracker asks Pi once, on a one-message session). From the first reply on, it never does.
    expect(othersAsked).toBe(1);
    othersAsked = 0;
    for (let n = 1; n <= 8; n++) await pi.session.prompt(`job ${String(n)}`);
    await pi.session.compact();
    for (let n = 9; n <= 11; n++) await pi.session.prompt(`job ${String(n)}`);
  }, 180_000);
  afterAll(() => pi.dispose());

  test("no call of ours through folds and a compaction; each fold's usage is Pi's figure at its call", async () => {
    expect(compactions(pi.manager)).toHaveLength(1);
    expect(reported.length).toBeGreaterThan(20);
    expect(othersAsked).toBe(0);
    const seedIndex = seedIndexPath(pi.manager.getSessionFile() ?? "", pi.manager.getSessionId());
    const records = currentView((await readSeedIndexFile(seedIndex)).outcomes);
    // Right after the compaction Pi has no figure (null) and a fold would carry our estimate: the folds before it.
    const compactSeq = records.find((r) => r.trigger === "compact")?.seq ?? Number.POSITIVE_INFINITY;
    const folds = records.filter((r) => (r.trigger === "threshold" || r.trigger === "cap") && r.seq < compactSeq);
    expect(folds.length).toBeGreaterThan(0);
    const figures = new Set(reported.filter((t): t is number => t !== null).map((t) => Math.round(t)));
    for (const record of folds) expect(figures.has(record.usage?.tokens ?? -1), `fold usage ${String(record.usage?.tokens)} among Pi's figures`).toBe(true);
  }, 60_000);
});
