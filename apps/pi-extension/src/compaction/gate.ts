// The compaction gate: a compaction is worth it only above a soft threshold of the window (a lower one
// for wide windows), when it reclaims a minimum share of the window, and not right after another one.
// A configured model threshold replaces the soft threshold. A second limit bounds what Pi holds: folds
// shrink what is sent, never the branch Pi keeps in memory and copies before every model call, so
// past `heldWindows` windows of it a compaction runs even with the sent context under its limit (as
// Pi alone compacts at its threshold). Below that cap, past `paidHeldWindows` windows, it runs once
// Pi's copies since the last compaction cost what a compaction costs: a compaction reads
// and re-lists the session's history (the `compact` record lists every span of it), so its cost grows
// with the session file, while each call's copy costs what Pi holds. A short session is compacted at
// that lower limit; a long one holds more between its costlier compactions.
// Pure: usage and counts are its inputs.
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
  readonly held?: HeldInput | undefined;
}

/** What Pi holds (see `GateInput.held`). */
export interface HeldInput {
  readonly tokens: number;
  readonly reclaimable: number;
  /** What Pi held at each model call since the last compaction, summed: what its copies cost (tokens). */
  readonly copied?: number | undefined;
  /** The session file in tokens (its bytes / 4): what a compaction reads and re-lists. */
  readonly history?: number | undefined;
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

/**
 * The limit over which what Pi holds is compacted: `heldLimit`, or `paidHeldLimit` once Pi's copies
 * since the last compaction add up to the session file (`copied ≥ history`): a compaction then costs
 * no more than those copies already did. Never over `heldLimit`.
 */
export function heldBound(contextWindow: number, options: Pick<CompactionOptions, "heldWindows" | "paidHeldWindows">, held: Pick<HeldInput, "copied" | "history">): number {
  return copiesPaid(held) >= 1 ? paidHeldLimit(contextWindow, options) : heldLimit(contextWindow, options);
}

/** How far Pi's copies since the last compaction have paid for the next one (`copied / history`; 0 when unknown). */
export function copiesPaid(held: Pick<HeldInput, "copied" | "history">): number {
  if (held.copied === undefined || held.history === undefined) return 0;
  return held.history > 0 ? held.copied / held.history : Number.POSITIVE_INFINITY;
}

/** The held limit once the copies have paid: `paidHeldWindows` windows, never over `heldLimit`. */
export function paidHeldLimit(contextWindow: number, options: Pick<CompactionOptions, "heldWindows" | "paidHeldWindows">): number {
  return Math.min(heldLimit(contextWindow, options), Math.floor(contextWindow * options.paidHeldWindows));
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
    const under = `usage ${pct(input.tokens)} is under the ${trigger} limit ${pct(limit)}`;
    if (held === undefined) return { fire: false, reason: under };
    const bound = heldBound(input.contextWindow, options, held);
    if (held.tokens <= bound) return { fire: false, reason: under };
    if (held.reclaimable < minSavings) return { fire: false, reason: `${under}; Pi holds ${pct(held.tokens)} but only ~${String(Math.max(0, held.reclaimable))} tokens of it are reclaimable (minimum ${String(minSavings)})` };
    if (cooling) return { fire: false, reason: cooldown };
    const paid = bound < heldLimit(input.contextWindow, options) ? " (its copies since the last compaction cost what a compaction does)" : "";
    return { fire: true, trigger: "held", limit: bound, reason: `Pi holds ${pct(held.tokens)} of the window unfolded, over its limit ${pct(bound)}${paid}, ~${String(held.reclaimable)} tokens reclaimable` };
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
