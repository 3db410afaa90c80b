// Options, per-model thresholds and the gate: pure decisions, checked value by value.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { tempDir } from "@context-fold/test-support";
import { DEFAULT_COMPACTION_OPTIONS, parseThresholdConfig, resolveCompactionOptions, type ThresholdConfig } from "../../src/compaction/compaction-options.js";
import { copiesPaid, evaluateGate, heldBound, heldLimit, paidHeldLimit, softLimit } from "../../src/compaction/gate.js";
import { thresholdFor } from "../../src/compaction/thresholds.js";

describe("compaction options", () => {
  test("defaults: advise, our summary, auto next step", () => {
    const { options, warnings } = resolveCompactionOptions();
    expect(options).toEqual(DEFAULT_COMPACTION_OPTIONS);
    expect(options.mode).toBe("advise");
    expect(options.overrideDefaultCompaction).toBe(true);
    expect(options.nextStep).toBe("auto");
    expect(warnings).toEqual([]);
  });

  test("environment overrides, and unusable values are reported and ignored", () => {
    const { options, warnings } = resolveCompactionOptions(
      {},
      {
        CONTEXT_FOLD_COMPACT_MODE: "ACTUATE",
        CONTEXT_FOLD_OVERRIDE_COMPACTION: "off",
        CONTEXT_FOLD_NEXT_STEP: "sometimes",
        CONTEXT_FOLD_COMPACT_SOFT: "0.6",
        CONTEXT_FOLD_COMPACT_COOLDOWN: "1.5",
        CONTEXT_FOLD_DIGEST_BUDGET: "10",
        CONTEXT_FOLD_THRESHOLDS: '{"modelThresholds": {"a/b": {"compactPercent": 120}}}',
      },
    );
    expect(options.mode).toBe("actuate");
    expect(options.overrideDefaultCompaction).toBe(false);
    expect(options.softFraction).toBe(0.6);
    expect(options.nextStep).toBe(DEFAULT_COMPACTION_OPTIONS.nextStep);
    expect(options.cooldownRuns).toBe(DEFAULT_COMPACTION_OPTIONS.cooldownRuns);
    expect(options.digestBudget).toBe(DEFAULT_COMPACTION_OPTIONS.digestBudget);
    expect(options.thresholds).toEqual({ models: {} });
    expect(warnings.map((w) => w.variable).sort()).toEqual([
      "CONTEXT_FOLD_COMPACT_COOLDOWN",
      "CONTEXT_FOLD_DIGEST_BUDGET",
      "CONTEXT_FOLD_NEXT_STEP",
      "CONTEXT_FOLD_THRESHOLDS",
    ]);
    expect(warnings.find((w) => w.variable === "CONTEXT_FOLD_THRESHOLDS")?.reason).toContain("compactPercent must be a number from 1 to 99");
  });

  test("thresholds from a JSON file, pi-vcc's shape (deprecated defaultThreshold accepted)", () => {
    const file = join(tempDir("thr-"), "thresholds.json");
    writeFileSync(file, JSON.stringify({ modelThresholds: { "p/m": { reserveTokens: 32768 } }, defaultThreshold: { compactPercent: 70 } }));
    const { options, warnings } = resolveCompactionOptions({}, { CONTEXT_FOLD_THRESHOLDS: file });
    expect(warnings).toEqual([]);
    expect(options.thresholds).toEqual({ models: { "p/m": { reserveTokens: 32768 } }, global: { compactPercent: 70 } });
    expect(resolveCompactionOptions({}, { CONTEXT_FOLD_THRESHOLDS: join(file, "missing") }).warnings[0]?.reason).toContain("cannot read");
    expect(parseThresholdConfig({ modelThresholds: { x: {} } })).toContain("needs reserveTokens or compactPercent");
    expect(parseThresholdConfig([])).toContain("expected a JSON object");
  });
});

describe("per-model thresholds", () => {
  const config: ThresholdConfig = {
    models: { "neuralwatt/glm-5.1": { reserveTokens: 32_768 }, "glm-5.1": { compactPercent: 50 }, "kimi": { compactPercent: 65, reserveTokens: 10_000 } },
    global: { compactPercent: 70 },
  };

  test("provider/modelId first, then modelId, then global; reserveTokens wins over compactPercent", () => {
    expect(thresholdFor(config, { provider: "neuralwatt", id: "glm-5.1" }, 200_000)).toEqual({ tokens: 200_000 - 32_768, source: "model:neuralwatt/glm-5.1" });
    expect(thresholdFor(config, { provider: "other", id: "glm-5.1" }, 200_000)).toEqual({ tokens: 100_000, source: "model:glm-5.1" });
    expect(thresholdFor(config, { provider: "x", id: "kimi" }, 100_000)).toEqual({ tokens: 90_000, source: "model:kimi" });
    expect(thresholdFor(config, { provider: "x", id: "y" }, 100_000)).toEqual({ tokens: 70_000, source: "global" });
    expect(thresholdFor({ models: {} }, { provider: "x", id: "y" }, 100_000)).toBeUndefined();
    // Inherited object keys are never models.
    expect(thresholdFor({ models: {} }, { provider: "x", id: "constructor" }, 100_000)).toBeUndefined();
  });
});

describe("the gate", () => {
  const o = DEFAULT_COMPACTION_OPTIONS;
  const base = { contextWindow: 100_000, reclaimable: 50_000, runsSinceCompaction: undefined };

  test("the soft limit is window-aware: a lower fraction for windows of 300k and more", () => {
    expect(softLimit(100_000, o)).toBe(75_000);
    expect(softLimit(299_999, o)).toBe(Math.floor(299_999 * 0.75));
    expect(softLimit(300_000, o)).toBe(165_000);
    expect(softLimit(1_000_000, o)).toBe(550_000);
  });

  test("fires only above the limit, with enough to reclaim, after the cooldown", () => {
    expect(evaluateGate({ ...base, tokens: 75_000 }, o).fire).toBe(false);
    const fired = evaluateGate({ ...base, tokens: 75_001 }, o);
    expect(fired).toMatchObject({ fire: true, trigger: "soft", limit: 75_000 });
    const small = evaluateGate({ ...base, tokens: 90_000, reclaimable: 9_999 }, o);
    expect(small).toMatchObject({ fire: false });
    expect(small.reason).toContain("minimum 10000");
    expect(evaluateGate({ ...base, tokens: 90_000, reclaimable: 10_000 }, o).fire).toBe(true);
    expect(evaluateGate({ ...base, tokens: 90_000, runsSinceCompaction: 1 }, o)).toMatchObject({ fire: false });
    expect(evaluateGate({ ...base, tokens: 90_000, runsSinceCompaction: 2 }, o).fire).toBe(true);
    expect(evaluateGate({ ...base, contextWindow: 0, tokens: 1 }, o).fire).toBe(false);
  });

  test("what Pi holds (folds not applied) has its own limit: over it the gate fires with the sent context under its own", () => {
    expect(o.heldWindows).toBe(3);
    const two = { ...o, heldWindows: 2 };
    expect(heldLimit(100_000, o)).toBe(300_000);
    expect(heldLimit(100_000, two)).toBe(200_000);
    expect(heldLimit(64_000, { heldWindows: 1.5 })).toBe(96_000);
    const sent = { ...base, tokens: 30_000 };
    // Unknown or at the limit: no compaction for it.
    expect(evaluateGate(sent, o)).toMatchObject({ fire: false });
    expect(evaluateGate({ ...sent, held: { tokens: 300_000, reclaimable: 250_000 } }, o)).toMatchObject({ fire: false });
    expect(evaluateGate({ ...sent, held: { tokens: 300_001, reclaimable: 250_000 } }, o)).toMatchObject({ fire: true, trigger: "held", limit: 300_000 });
    expect(evaluateGate({ ...sent, held: { tokens: 200_000, reclaimable: 150_000 } }, two)).toMatchObject({ fire: false });
    const over = evaluateGate({ ...sent, held: { tokens: 200_001, reclaimable: 150_000 } }, two);
    expect(over).toMatchObject({ fire: true, trigger: "held", limit: 200_000 });
    expect(over.reason).toBe("Pi holds 200% of the window unfolded, over its limit 200%, ~150000 tokens reclaimable");
    // It must reclaim the minimum share of the window from what Pi holds, and respects the cooldown.
    const little = evaluateGate({ ...sent, held: { tokens: 250_000, reclaimable: 9_999 } }, two);
    expect(little).toMatchObject({ fire: false });
    expect(little.reason).toContain("minimum 10000");
    expect(evaluateGate({ ...sent, held: { tokens: 250_000, reclaimable: 10_000 } }, two).fire).toBe(true);
    expect(evaluateGate({ ...sent, runsSinceCompaction: 1, held: { tokens: 250_000, reclaimable: 150_000 } }, two)).toMatchObject({ fire: false });
    expect(evaluateGate({ ...sent, runsSinceCompaction: 2, held: { tokens: 250_000, reclaimable: 150_000 } }, two).fire).toBe(true);
    // Over the sent limit the sent context decides (its trigger and reclaimable), held or not.
    expect(evaluateGate({ ...base, tokens: 80_000, held: { tokens: 250_000, reclaimable: 150_000 } }, two)).toMatchObject({ fire: true, trigger: "soft" });
    // The limit follows the option.
    expect(evaluateGate({ ...sent, held: { tokens: 150_000, reclaimable: 100_000 } }, { ...o, heldWindows: 1 })).toMatchObject({ fire: true, trigger: "held", limit: 100_000 });
    expect(resolveCompactionOptions({}, { CONTEXT_FOLD_COMPACT_HELD: "4" }).options.heldWindows).toBe(4);
    expect(resolveCompactionOptions({}, { CONTEXT_FOLD_COMPACT_HELD: "0.5" }).warnings.map((w) => w.variable)).toEqual(["CONTEXT_FOLD_COMPACT_HELD"]);
  });

  test("what Pi holds is compacted at paidHeldWindows windows once its copies since the last compaction add up to the session file", () => {
    const sent = { ...base, tokens: 30_000 };
    expect(o.paidHeldWindows).toBe(2);
    // Copies short of the history: the cap (heldWindows windows) stays the limit.
    expect(heldBound(100_000, o, {})).toBe(300_000);
    expect(heldBound(100_000, o, { copied: 999_999, history: 1_000_000 })).toBe(300_000);
    // Paid for: two windows, never more than the cap.
    expect(heldBound(100_000, o, { copied: 1_000_000, history: 1_000_000 })).toBe(200_000);
    expect(heldBound(100_000, { heldWindows: 1.5, paidHeldWindows: 2 }, { copied: 1, history: 0 })).toBe(150_000);
    expect(paidHeldLimit(100_000, o)).toBe(200_000);
    // How far the copies have paid: their share of the history (none known: nothing paid).
    expect(copiesPaid({})).toBe(0);
    expect(copiesPaid({ copied: 500_000, history: 1_000_000 })).toBe(0.5);
    expect(copiesPaid({ copied: 1, history: 0 })).toBe(Number.POSITIVE_INFINITY);
    const paid = { copied: 2_000_000, history: 1_500_000 };
    expect(evaluateGate({ ...sent, held: { tokens: 200_000, reclaimable: 60_000, ...paid } }, o)).toMatchObject({ fire: false });
    const over = evaluateGate({ ...sent, held: { tokens: 200_001, reclaimable: 60_000, ...paid } }, o);
    expect(over).toMatchObject({ fire: true, trigger: "held", limit: 200_000 });
    expect(over.reason).toBe("Pi holds 200% of the window unfolded, over its limit 200% (its copies since the last compaction cost what a compaction does), ~60000 tokens reclaimable");
    expect(evaluateGate({ ...sent, held: { tokens: 250_000, reclaimable: 60_000, copied: 1_000_000, history: 1_500_000 } }, o)).toMatchObject({ fire: false });
    // The minimum saving and the cooldown still hold.
    expect(evaluateGate({ ...sent, held: { tokens: 250_000, reclaimable: 9_999, ...paid } }, o)).toMatchObject({ fire: false });
    expect(evaluateGate({ ...sent, runsSinceCompaction: 1, held: { tokens: 250_000, reclaimable: 60_000, ...paid } }, o)).toMatchObject({ fire: false });
    // The paid limit follows its option (never over the cap).
    const one = { ...o, paidHeldWindows: 1 };
    expect(evaluateGate({ ...sent, held: { tokens: 100_000, reclaimable: 60_000, ...paid } }, one)).toMatchObject({ fire: false });
    expect(evaluateGate({ ...sent, held: { tokens: 100_001, reclaimable: 60_000, ...paid } }, one)).toMatchObject({ fire: true, trigger: "held", limit: 100_000 });
    expect(heldBound(100_000, { heldWindows: 3, paidHeldWindows: 5 }, paid)).toBe(300_000);
    expect(resolveCompactionOptions({}, { CONTEXT_FOLD_COMPACT_HELD_PAID: "1" }).options.paidHeldWindows).toBe(1);
    expect(resolveCompactionOptions({}, { CONTEXT_FOLD_COMPACT_HELD_PAID: "0.5" }).warnings.map((w) => w.variable)).toEqual(["CONTEXT_FOLD_COMPACT_HELD_PAID"]);
  });

  test("a configured threshold replaces the soft limit, both ways", () => {
    const early = evaluateGate({ ...base, tokens: 45_000, threshold: { tokens: 40_000, source: "global" } }, o);
    expect(early).toMatchObject({ fire: true, trigger: "threshold", limit: 40_000 });
    expect(evaluateGate({ ...base, tokens: 85_000, threshold: { tokens: 90_000, source: "model:x" } }, o).fire).toBe(false);
  });
});
