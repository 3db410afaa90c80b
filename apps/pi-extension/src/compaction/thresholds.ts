// Per-model compaction thresholds (pi-vcc's matching order): `provider/modelId`, then `modelId`, then the
// global threshold; none of them → Pi's own setting decides. Pure.
import type { ModelThreshold, ThresholdConfig } from "./compaction-options.js";

export interface ModelRef {
  readonly provider: string;
  readonly id: string;
}

/** The threshold that applies to one model, in tokens, and where it came from. */
export interface ResolvedThreshold {
  readonly tokens: number;
  /** `model:<key>` or `global`. */
  readonly source: string;
}

function tokensOf(threshold: ModelThreshold, contextWindow: number): number {
  if (threshold.reserveTokens !== undefined) return Math.max(0, contextWindow - threshold.reserveTokens);
  return Math.floor((contextWindow * (threshold.compactPercent ?? 100)) / 100);
}

/** The threshold for `model` with window `contextWindow`, or undefined when none is configured. */
export function thresholdFor(config: ThresholdConfig, model: ModelRef, contextWindow: number): ResolvedThreshold | undefined {
  const full = `${model.provider}/${model.id}`;
  const byFull = Object.hasOwn(config.models, full) ? config.models[full] : undefined;
  if (byFull !== undefined) return { tokens: tokensOf(byFull, contextWindow), source: `model:${full}` };
  const byId = Object.hasOwn(config.models, model.id) ? config.models[model.id] : undefined;
  if (byId !== undefined) return { tokens: tokensOf(byId, contextWindow), source: `model:${model.id}` };
  if (config.global !== undefined) return { tokens: tokensOf(config.global, contextWindow), source: "global" };
  return undefined;
}
