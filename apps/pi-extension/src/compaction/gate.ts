// The compaction gate: a compaction is worth it only above a soft threshold of the window (a lower one
// for wide windows), when it reclaims a minimum share of the window, and not right after another one.
// A configured model threshold replaces the soft threshold. Pure: usage and counts are its inputs.
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
}

export type GateVerdict =
  | { readonly fire: true; readonly trigger: "threshold" | "soft"; readonly limit: number; readonly reason: string }
  | { readonly fire: false; readonly reason: string };

/** The soft threshold in tokens for a window. */
export function softLimit(contextWindow: number, options: Pick<CompactionOptions, "softFraction" | "softFractionWide" | "wideWindow">): number {
  const fraction = contextWindow >= options.wideWindow ? options.softFractionWide : options.softFraction;
  return Math.floor(contextWindow * fraction);
}

export function evaluateGate(input: GateInput, options: CompactionOptions): GateVerdict {
  if (!(input.contextWindow > 0)) return { fire: false, reason: "no context window known" };
  const limit = input.threshold?.tokens ?? softLimit(input.contextWindow, options);
  const trigger = input.threshold === undefined ? "soft" : "threshold";
  const pct = (n: number): string => `${String(Math.round((n / input.contextWindow) * 100))}%`;
  if (input.tokens <= limit) return { fire: false, reason: `usage ${pct(input.tokens)} is under the ${trigger} limit ${pct(limit)}` };
  const minSavings = Math.ceil(input.contextWindow * options.minSavingsFraction);
  if (input.reclaimable < minSavings) {
    return { fire: false, reason: `only ~${String(Math.max(0, input.reclaimable))} tokens reclaimable (minimum ${String(minSavings)})` };
  }
  if (input.runsSinceCompaction !== undefined && input.runsSinceCompaction < options.cooldownRuns) {
    return { fire: false, reason: `cooldown: ${String(input.runsSinceCompaction)} of ${String(options.cooldownRuns)} runs since the last compaction` };
  }
  return {
    fire: true,
    trigger,
    limit,
    reason: `usage ${pct(input.tokens)} over the ${trigger === "threshold" ? `threshold (${input.threshold?.source ?? ""})` : "soft limit"} ${pct(limit)}, ~${String(input.reclaimable)} tokens reclaimable`,
  };
}
