// Fold options: defaults, environment overrides (CONTEXT_FOLD_*), and the checks that keep them sane.
// Every size is a fraction of the model's context window, so the same settings fold small and large windows.

import { booleanFromEnv, numberFromEnv, type OptionWarning } from "./env-values.js";

export interface FoldOptions {
  /** Fold nothing at all (the hook passes every call through). */
  readonly enabled: boolean;
  /** Usage fraction of the window at which a threshold fold fires (default 0.45). */
  readonly threshold: number;
  /** Usage fraction at which a cap fold fires at once, whatever is foldable (default 0.7). */
  readonly cap: number;
  /** Fraction of the window kept verbatim at the end of the conversation (default 0.2). */
  readonly tailFraction: number;
  /** The newest tool results always stay verbatim, however large (default 2). */
  readonly keepRecentResults: number;
  /** A threshold fold fires only when at least this fraction of the window can be reclaimed (default 0.05). */
  readonly minFoldFraction: number;
  /** Blocks under this many UTF-16 units are never folded: their stub would save nothing (default 1200). */
  readonly minBlockChars: number;
  /** Fold old thinking parts too (outside the current tool-use loop). */
  readonly foldThinking: boolean;
}

export const DEFAULT_FOLD_OPTIONS: FoldOptions = {
  enabled: true,
  threshold: 0.45,
  cap: 0.7,
  tailFraction: 0.2,
  keepRecentResults: 2,
  minFoldFraction: 0.05,
  minBlockChars: 1200,
  foldThinking: true,
};

/** One option value the environment gave that could not be used (the default stayed). */
export type { OptionWarning } from "./env-values.js";

export interface ResolvedOptions {
  readonly options: FoldOptions;
  readonly warnings: readonly OptionWarning[];
}

type NumericKey = "threshold" | "cap" | "tailFraction" | "keepRecentResults" | "minFoldFraction" | "minBlockChars";

/** Each numeric fold option's variable and range (the config file's JSON Schema is built from it too). */
export const FOLD_NUMERIC: readonly { key: NumericKey; variable: string; min: number; max: number; integer: boolean }[] = [
  { key: "threshold", variable: "CONTEXT_FOLD_THRESHOLD", min: 0.01, max: 1, integer: false },
  { key: "cap", variable: "CONTEXT_FOLD_CAP", min: 0.01, max: 1, integer: false },
  { key: "tailFraction", variable: "CONTEXT_FOLD_TAIL", min: 0, max: 0.9, integer: false },
  { key: "keepRecentResults", variable: "CONTEXT_FOLD_KEEP_RESULTS", min: 0, max: 1000, integer: true },
  { key: "minFoldFraction", variable: "CONTEXT_FOLD_MIN_FOLD", min: 0, max: 1, integer: false },
  { key: "minBlockChars", variable: "CONTEXT_FOLD_MIN_BLOCK_CHARS", min: 0, max: 100_000_000, integer: true },
];

/**
 * Defaults, then `overrides`, then `CONTEXT_FOLD_*` variables from `env`. A value out of range is
 * reported and ignored. A cap below the threshold is raised to the threshold.
 */
export function resolveFoldOptions(overrides: Partial<FoldOptions> = {}, env: Readonly<Record<string, string | undefined>> = {}): ResolvedOptions {
  const warnings: OptionWarning[] = [];
  const out: { -readonly [K in keyof FoldOptions]: FoldOptions[K] } = { ...DEFAULT_FOLD_OPTIONS, ...overrides };
  for (const spec of FOLD_NUMERIC) {
    const value = numberFromEnv(env, spec, warnings);
    if (value !== undefined) out[spec.key] = value;
  }
  for (const [variable, key] of [
    ["CONTEXT_FOLD_ENABLED", "enabled"],
    ["CONTEXT_FOLD_THINKING", "foldThinking"],
  ] as const) {
    const value = booleanFromEnv(env, variable, warnings);
    if (value !== undefined) out[key] = value;
  }
  if (out.cap < out.threshold) out.cap = out.threshold;
  return { options: out, warnings };
}
