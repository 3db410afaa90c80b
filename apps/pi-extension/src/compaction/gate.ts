// The compaction gate: a compaction is worth it only above a soft threshold of the window (a lower one
// for wide windows), when it reclaims a minimum share of the window, and not right after another one.
// A configured model threshold replaces the soft threshold. A second limit bounds what Pi holds: folds
// shrink what is sent, never the branch Pi keeps in memory and copies before every model call, so
// past `heldWindows` windows of it a compaction runs even with the sent context under its limit (as
// Pi alone compacts at its threshold). Pure: usage and counts are its inputs.
import type { CompactionOptions } from "./compaction-options.js";
import type { ResolvedThreshold } from "./thresholds.js";

export interface GateInput {
  /** Context tokens now (Pi's count, or an estimate). */
  readonly tokens: number;
  readonly contextWindow: number;
  /** Tokens a compaction would take out of the context (what is summarized minus the summary). */
  readonly reclaimable: number;
  /** Agent runs ended since the last compaction (undefined: none in this process). */
  readonly runsSinceCompaction: number | undefined;
  /** A per-model or global threshold, when one is configured. */
  readonly threshold?: ResolvedThreshold | undefined;
  /**
   * What Pi holds (the branch since its last compaction, folds not applied) when it is known: its
   * tokens, and what a compaction would take out of it (what is summarized minus the summary).
   */
  readonly held?: { readonly tokens: number; readonly reclaimable: number } | undefined;
}

export type GateVerdict =
  | { readonly fire: true; readonly trigger: "threshold" | "soft" | "held"; readonly limit: number; readonly reason: string }
  | { readonly fire: false; readonly reason: string };

/** The soft threshold in tokens for a window. */
export function softLimit(contextWindow: number, options: Pick<CompactionOptions, "softFraction" | "softFractionWide" | "wideWindow">): number {
  const fraction = contextWindow >= options.wideWindow ? options.softFractionWide : options.softFraction;
  return Math.floor(contextWindow * fraction);
}

/** The most tokens of branch Pi may hold (folds not applied) before the gate compacts it. */
export function heldLimit(contextWindow: number, options: Pick<CompactionOptions, "heldWindows">): number {
  return Math.floor(contextWindow * options.heldWindows);
}

export function evaluateGate(input: GateInput, options: CompactionOptions): GateVerdict {
  if (!(input.contextWindow > 0)) return { fire: false, reason: "no context window known" };
  const limit = input.threshold?.tokens ?? softLimit(input.contextWindow, options);
  const trigger = input.threshold === undefined ? "soft" : "threshold";
  const pct = (n: number): string => `${String(Math.round((n / input.contextWindow) * 100))}%`;
  const minSavings = Math.ceil(input.contextWindow * options.minSavingsFraction);
  const cooling = input.runsSinceCompaction !== undefined && input.runsSinceCompaction < options.cooldownRuns;
  const cooldown = `cooldown: ${String(input.runsSinceCompaction)} of ${String(options.cooldownRuns)} runs since the last compaction`;
  if (input.tokens <= limit) {
    const held = input.held;
    const bound = heldLimit(input.contextWindow, options);
    const under = `usage ${pct(input.tokens)} is under the ${trigger} limit ${pct(limit)}`;
    if (held === undefined || held.tokens <= bound) return { fire: false, reason: under };
    if (held.reclaimable < minSavings) return { fire: false, reason: `${under}; Pi holds ${pct(held.tokens)} but only ~${String(Math.max(0, held.reclaimable))} tokens of it are reclaimable (minimum ${String(minSavings)})` };
    if (cooling) return { fire: false, reason: cooldown };
    return { fire: true, trigger: "held", limit: bound, reason: `Pi holds ${pct(held.tokens)} of the window unfolded, over its limit ${pct(bound)}, ~${String(held.reclaimable)} tokens reclaimable` };
  }
  if (input.reclaimable < minSavings) {
    return { fire: false, reason: `only ~${String(Math.max(0, input.reclaimable))} tokens reclaimable (minimum ${String(minSavings)})` };
  }
  if (cooling) return { fire: false, reason: cooldown };
  return {
    fire: true,
    trigger,
    limit,
    reason: `usage ${pct(input.tokens)} over the ${trigger === "threshold" ? `threshold (${input.threshold?.source ?? ""})` : "soft limit"} ${pct(limit)}, ~${String(input.reclaimable)} tokens reclaimable`,
  };
}
