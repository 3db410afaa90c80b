// When to compact, in a real Pi: a model threshold cancels Pi's premature automatic compaction (an
// explicit /compact still goes through), a low one compacts proactively after a run, and the gate
// advises (advise mode) or compacts (actuate mode) above its soft limit. Folding is off here so the
// usage each run adds is plain.
import { afterEach, describe, expect, test } from "vitest";
import { currentView, readSeedIndexFile, seedIndexPath } from "@context-fold/seed-index-format";
import { tempDir } from "@context-fold/test-support";
import type { HeadlessPi } from "../support/headless-pi.js";
import { compactions, FOUNDING, jobModel, startPiWith, waitFor } from "./support/compaction-pi.js";

const WINDOW = 20_000;
const NO_FOLDS = { CONTEXT_FOLD_ENABLED: "0" };

async function compactRecords(pi: HeadlessPi): Promise<number> {
  const seedIndex = seedIndexPath(pi.manager.getSessionFile() ?? "", pi.manager.getSessionId());
  const { outcomes } = await readSeedIndexFile(seedIndex);
  return currentView(outcomes).filter((r) => r.trigger === "compact").length;
}

/** Prompts jobs 1..n; after each, lets a compaction the extension started finish first. */
async function runJobs(pi: HeadlessPi, n: number): Promise<void> {
  await pi.session.prompt(FOUNDING);
  for (let i = 1; i <= n; i++) {
    await pi.session.prompt(`job ${String(i)}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
    await waitFor(() => !pi.session.isCompacting, "a running compaction");
  }
}

describe("compaction thresholds and the gate in a headless Pi", () => {
  let pi: HeadlessPi | undefined;
  afterEach(() => pi?.dispose());

  test("a large-window threshold cancels Pi's premature automatic compaction; /compact bypasses it", async () => {
    pi = await startPiWith(
      { ...NO_FOLDS, CONTEXT_FOLD_THRESHOLDS: JSON.stringify({ modelThresholds: { "faux/faux-fold": { compactPercent: 90 } } }) },
      // Pi's own trigger: over window − 16000 = 4000 tokens (premature for this model).
      { dir: tempDir("pi-thr-cancel-"), contextWindow: WINDOW, respond: jobModel, settings: { compaction: { enabled: true, reserveTokens: 16_000, keepRecentTokens: 2000 } } },
    );
    await runJobs(pi, 5);
    expect(pi.notices.some((n) => n.text.includes("held off Pi's compaction") && n.text.includes("model:faux/faux-fold"))).toBe(true);
    expect(compactions(pi.manager)).toHaveLength(0);
    expect(await compactRecords(pi)).toBe(0);
    await pi.session.compact();
    expect(compactions(pi.manager)[0]?.fromHook).toBe(true);
    expect(await compactRecords(pi)).toBe(1);
  }, 60_000);

  test("a model key without provider matches too, and a Pi threshold compaction above it goes through our hook", async () => {
    pi = await startPiWith(
      { ...NO_FOLDS, CONTEXT_FOLD_THRESHOLDS: JSON.stringify({ modelThresholds: { "faux-fold": { reserveTokens: 15_000 } } }) },
      { dir: tempDir("pi-thr-pass-"), contextWindow: WINDOW, respond: jobModel, settings: { compaction: { enabled: true, reserveTokens: 14_000, keepRecentTokens: 2000 } } },
    );
    await runJobs(pi, 5);
    const [entry] = compactions(pi.manager);
    expect(entry?.fromHook).toBe(true);
    expect(await compactRecords(pi)).toBeGreaterThanOrEqual(1);
  }, 60_000);

  test("a small-window global threshold compacts proactively after a run (Pi's own compaction off)", async () => {
    pi = await startPiWith(
      { ...NO_FOLDS, CONTEXT_FOLD_THRESHOLDS: JSON.stringify({ globalThreshold: { compactPercent: 30 } }) },
      { dir: tempDir("pi-thr-trigger-"), contextWindow: WINDOW, respond: jobModel, settings: { compaction: { enabled: false, keepRecentTokens: 2000 } } },
    );
    await runJobs(pi, 5);
    const made = compactions(pi.manager);
    expect(made.length).toBeGreaterThanOrEqual(1);
    expect(made.every((c) => c.fromHook)).toBe(true);
    expect(pi.notices.some((n) => n.text.includes("context-fold: compacting (") && n.text.includes("threshold (global)"))).toBe(true);
    expect(await compactRecords(pi)).toBe(made.length);
  }, 60_000);

  test("switching to a small-window model over its threshold compacts proactively (model_select)", async () => {
    pi = await startPiWith(
      { ...NO_FOLDS, CONTEXT_FOLD_THRESHOLDS: JSON.stringify({ modelThresholds: { "faux/faux-small": { compactPercent: 50 } } }) },
      {
        dir: tempDir("pi-thr-model-"),
        contextWindow: WINDOW,
        respond: jobModel,
        settings: { compaction: { enabled: false, keepRecentTokens: 2000 } },
        extraModels: [{ id: "faux-small", contextWindow: 12_000 }],
      },
    );
    await runJobs(pi, 4);
    expect(compactions(pi.manager)).toHaveLength(0);
    const small = pi.faux.getModel("faux-small");
    if (small === undefined) throw new Error("faux-small is not registered");
    await pi.session.setModel(small);
    await waitFor(() => pi !== undefined && compactions(pi.manager).length === 1 && !pi.session.isCompacting, "the compaction after the model switch");
    expect(compactions(pi.manager)[0]?.fromHook).toBe(true);
    expect(pi.notices.some((n) => n.text.includes("threshold (model:faux/faux-small)"))).toBe(true);
  }, 60_000);

  test("advise mode: the gate tells the user once and compacts nothing", async () => {
    pi = await startPiWith(
      { ...NO_FOLDS, CONTEXT_FOLD_COMPACT_SOFT: "0.3", CONTEXT_FOLD_COMPACT_MODE: "advise" },
      { dir: tempDir("pi-gate-advise-"), contextWindow: WINDOW, respond: jobModel, settings: { compaction: { enabled: false, keepRecentTokens: 2000 } } },
    );
    await runJobs(pi, 6);
    expect(compactions(pi.manager)).toHaveLength(0);
    expect(pi.notices.filter((n) => n.text.includes("a compaction is worth it now"))).toHaveLength(1);
  }, 60_000);

  test("actuate mode: the gate compacts, then holds off for its cooldown", async () => {
    pi = await startPiWith(
      { ...NO_FOLDS, CONTEXT_FOLD_COMPACT_SOFT: "0.3", CONTEXT_FOLD_COMPACT_MODE: "actuate", CONTEXT_FOLD_COMPACT_COOLDOWN: "100" },
      { dir: tempDir("pi-gate-actuate-"), contextWindow: WINDOW, respond: jobModel, settings: { compaction: { enabled: false, keepRecentTokens: 2000 } } },
    );
    await runJobs(pi, 8);
    expect(compactions(pi.manager)).toHaveLength(1);
    expect(compactions(pi.manager)[0]?.fromHook).toBe(true);
  }, 60_000);
});
