// Compaction options: when to compact (mode, gate, per-model thresholds), how (our summary or Pi's),
// and what follows (digest budget, next step). Defaults, then overrides, then CONTEXT_FOLD_* variables.
import { readFileSync } from "node:fs";
import type { OptionWarning } from "../options.js";
import { booleanFromEnv, numberFromEnv, type Env } from "../env-values.js";

/** `advise`: tell the user when the gate says a compaction is worth it. `actuate`: compact ourselves. */
export type CompactMode = "advise" | "actuate";
export const COMPACT_MODES: readonly CompactMode[] = ["advise", "actuate"];
/**
 * After a compaction: no next step, a next step shown to the user, a turn started on it, or `auto` (seed
 * 001): autonomous after an automatic compaction in interactive mode, advisory otherwise.
 */
export type NextStepMode = "off" | "advisory" | "autonomous" | "auto";
export const NEXT_STEP_MODES: readonly NextStepMode[] = ["off", "advisory", "autonomous", "auto"];

/** A compaction trigger point: tokens reserved below the window, or a percentage of the window. */
export interface ModelThreshold {
  /** Compact when tokens > window − reserveTokens. Wins over compactPercent when both are set. */
  readonly reserveTokens?: number;
  /** Compact when tokens > window × compactPercent / 100 (1–99). */
  readonly compactPercent?: number;
}

export interface ThresholdConfig {
  /** Keys: `provider/modelId` (tried first) or `modelId`. */
  readonly models: Readonly<Record<string, ModelThreshold>>;
  /** For models no key matches; absent = Pi's own setting decides. */
  readonly global?: ModelThreshold;
}

export interface CompactionOptions {
  readonly mode: CompactMode;
  /** Our summary replaces Pi's LLM compaction (default true); off: Pi summarizes, thresholds and records still apply. */
  readonly overrideDefaultCompaction: boolean;
  readonly nextStep: NextStepMode;
  /** Gate: usage fraction of the window from which a compaction is considered (windows < wideWindow). */
  readonly softFraction: number;
  /** Gate: the same for windows ≥ wideWindow (a lower fraction: absolute size drives cost and recall). */
  readonly softFractionWide: number;
  readonly wideWindow: number;
  /** Gate: a compaction must reclaim at least this fraction of the window. */
  readonly minSavingsFraction: number;
  /** Gate: agent runs that must end after a compaction before the next one is considered. */
  readonly cooldownRuns: number;
  /**
   * Gate: the most branch Pi may hold, folds not applied, in context windows. Pi keeps every message
   * since its last compaction in memory and copies all of it before each model call; folds keep what
   * is sent small, so Pi's own threshold never fires and what it holds would grow with the session.
   * Past this many windows our compaction (no model) runs, whatever the sent context's size.
   */
  readonly heldWindows: number;
  /**
   * Gate: the windows of branch Pi may hold once its copies since the last compaction add up to the
   * session file (never over `heldWindows`): a compaction then costs no more than those copies did. Two:
   * one (about where Pi alone compacts) halves what Pi holds and copies before each call over the
   * 150-turn bench (35k tokens on average against 67k; Pi alone 31k), but doubles our compactions
   * (13 against 6 in the 1 MB replay), and at 8–12 ms of CPU each at that size they push the replay's
   * slowest twentieth of turns over 10 ms. Lower it once a compaction's own turn is cheaper.
   */
  readonly paidHeldWindows: number;
  /** Summary budget in tokens. */
  readonly summaryBudget: number;
  /** Re-injected digest budget in tokens. */
  readonly digestBudget: number;
  readonly thresholds: ThresholdConfig;
}

export const DEFAULT_COMPACTION_OPTIONS: CompactionOptions = {
  mode: "advise",
  overrideDefaultCompaction: true,
  nextStep: "auto",
  softFraction: 0.75,
  softFractionWide: 0.55,
  wideWindow: 300_000,
  minSavingsFraction: 0.1,
  cooldownRuns: 2,
  heldWindows: 3,
  paidHeldWindows: 2,
  summaryBudget: 4000,
  digestBudget: 1500,
  thresholds: { models: {} },
};

export interface ResolvedCompactionOptions {
  readonly options: CompactionOptions;
  readonly warnings: readonly OptionWarning[];
}

type Mutable = { -readonly [K in keyof CompactionOptions]: CompactionOptions[K] };
type NumericKey = "softFraction" | "softFractionWide" | "wideWindow" | "minSavingsFraction" | "cooldownRuns" | "heldWindows" | "paidHeldWindows" | "summaryBudget" | "digestBudget";

/** Each numeric compaction option's variable and range (the config file's JSON Schema is built from it too). */
export const COMPACTION_NUMERIC: readonly { key: NumericKey; variable: string; min: number; max: number; integer: boolean }[] = [
  { key: "softFraction", variable: "CONTEXT_FOLD_COMPACT_SOFT", min: 0.05, max: 1, integer: false },
  { key: "softFractionWide", variable: "CONTEXT_FOLD_COMPACT_SOFT_WIDE", min: 0.05, max: 1, integer: false },
  { key: "wideWindow", variable: "CONTEXT_FOLD_COMPACT_WIDE_WINDOW", min: 1, max: 1e9, integer: true },
  { key: "minSavingsFraction", variable: "CONTEXT_FOLD_COMPACT_MIN_SAVINGS", min: 0, max: 1, integer: false },
  { key: "cooldownRuns", variable: "CONTEXT_FOLD_COMPACT_COOLDOWN", min: 0, max: 10_000, integer: true },
  { key: "heldWindows", variable: "CONTEXT_FOLD_COMPACT_HELD", min: 1, max: 1000, integer: false },
  { key: "paidHeldWindows", variable: "CONTEXT_FOLD_COMPACT_HELD_PAID", min: 1, max: 1000, integer: false },
  { key: "summaryBudget", variable: "CONTEXT_FOLD_SUMMARY_BUDGET", min: 256, max: 1_000_000, integer: true },
  { key: "digestBudget", variable: "CONTEXT_FOLD_DIGEST_BUDGET", min: 64, max: 1_000_000, integer: true },
];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** One threshold object, or a reason it is unusable. */
function parseThreshold(value: unknown, where: string): ModelThreshold | string {
  if (!isRecord(value)) return `${where} must be an object with reserveTokens or compactPercent`;
  const reserve = value["reserveTokens"];
  const percent = value["compactPercent"];
  const out: { reserveTokens?: number; compactPercent?: number } = {};
  if (reserve !== undefined) {
    if (typeof reserve !== "number" || !Number.isInteger(reserve) || reserve < 0) return `${where}.reserveTokens must be a whole number ≥ 0`;
    out.reserveTokens = reserve;
  }
  if (percent !== undefined) {
    if (typeof percent !== "number" || !(percent >= 1 && percent <= 99)) return `${where}.compactPercent must be a number from 1 to 99`;
    out.compactPercent = percent;
  }
  if (out.reserveTokens === undefined && out.compactPercent === undefined) return `${where} needs reserveTokens or compactPercent`;
  return out;
}

/**
 * Thresholds in pi-vcc's shape: `{"modelThresholds": {"<provider/modelId | modelId>": {…}}, "globalThreshold": {…}}`.
 * Returns the config or the reason it was refused.
 */
export function parseThresholdConfig(value: unknown): ThresholdConfig | string {
  if (!isRecord(value)) return "expected a JSON object with modelThresholds and/or globalThreshold";
  const models: Record<string, ModelThreshold> = {};
  const rawModels = value["modelThresholds"];
  if (rawModels !== undefined) {
    if (!isRecord(rawModels)) return "modelThresholds must be an object keyed by provider/modelId or modelId";
    for (const [key, raw] of Object.entries(rawModels)) {
      const parsed = parseThreshold(raw, `modelThresholds["${key}"]`);
      if (typeof parsed === "string") return parsed;
      models[key] = parsed;
    }
  }
  const rawGlobal = value["globalThreshold"] ?? value["defaultThreshold"];
  if (rawGlobal === undefined) return { models };
  const global = parseThreshold(rawGlobal, "globalThreshold");
  return typeof global === "string" ? global : { models, global };
}

/** CONTEXT_FOLD_THRESHOLDS: inline JSON (starts with `{`) or the path of a JSON file. */
function thresholdsFromEnv(raw: string): ThresholdConfig | string {
  let text = raw.trim();
  if (!text.startsWith("{")) {
    try {
      text = readFileSync(text, "utf8");
    } catch (error) {
      return `cannot read ${raw}: ${error instanceof Error ? error.message : String(error)}`;
    }
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return `not valid JSON (${error instanceof Error ? error.message : String(error)})`;
  }
  return parseThresholdConfig(value);
}

function enumFrom<T extends string>(env: Env, variable: string, allowed: readonly T[], warnings: OptionWarning[]): T | undefined {
  const raw = env[variable];
  if (raw === undefined || raw.trim() === "") return undefined;
  const value = raw.trim().toLowerCase();
  const hit = allowed.find((a) => a === value);
  if (hit === undefined) warnings.push({ variable, value: raw, reason: `expected one of ${allowed.join(", ")}` });
  return hit;
}

/** Defaults, then `overrides`, then CONTEXT_FOLD_* variables; an unusable value is reported and ignored. */
export function resolveCompactionOptions(overrides: Partial<CompactionOptions> = {}, env: Env = {}): ResolvedCompactionOptions {
  const warnings: OptionWarning[] = [];
  const out: Mutable = { ...DEFAULT_COMPACTION_OPTIONS, ...overrides };
  for (const spec of COMPACTION_NUMERIC) {
    const value = numberFromEnv(env, spec, warnings);
    if (value !== undefined) out[spec.key] = value;
  }
  out.mode = enumFrom(env, "CONTEXT_FOLD_COMPACT_MODE", COMPACT_MODES, warnings) ?? out.mode;
  out.nextStep = enumFrom(env, "CONTEXT_FOLD_NEXT_STEP", NEXT_STEP_MODES, warnings) ?? out.nextStep;
  out.overrideDefaultCompaction = booleanFromEnv(env, "CONTEXT_FOLD_OVERRIDE_COMPACTION", warnings) ?? out.overrideDefaultCompaction;
  const thresholds = env["CONTEXT_FOLD_THRESHOLDS"];
  if (thresholds !== undefined && thresholds.trim() !== "") {
    const parsed = thresholdsFromEnv(thresholds);
    if (typeof parsed === "string") warnings.push({ variable: "CONTEXT_FOLD_THRESHOLDS", value: thresholds, reason: parsed });
    else out.thresholds = parsed;
  }
  return { options: out, warnings };
}
