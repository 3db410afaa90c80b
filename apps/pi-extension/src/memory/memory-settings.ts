// The memory options beyond the bank's address (which settings.ts reads): tools, auto-recall,
// auto-retain, the shared bank, the outbox. Each has a `memory.<key>` in context-fold.json and a
// CONTEXT_FOLD_* variable (the variable wins), validated by the same env helpers as every other option.
import { readFileSync } from "node:fs";
import { parseConfigText } from "../config/config-file.js";
import type { ExtensionSettings, MemoryOptions } from "../config/settings.js";
import { booleanFromEnv, type Env, numberFromEnv, type OptionWarning } from "../env-values.js";

export interface MemorySettings extends MemoryOptions {
  /** Tools the model gets (each can be switched off). */
  readonly tools: { readonly retain: boolean; readonly recall: boolean; readonly reflect: boolean };
  readonly autoRecall: boolean;
  /** Token budget of the auto-recall block (≈ chars / 4). */
  readonly recallBudget: number;
  /** How long a prompt may wait for auto-recall (ms); past it the prompt goes without memories. */
  readonly recallTimeoutMs: number;
  /** false (default): the block goes with that prompt's model calls only; true: persisted once as a message. */
  readonly recallPersist: boolean;
  /** true: recall is not limited to this project's memories. */
  readonly recallAllProjects: boolean;
  readonly autoRetain: boolean;
  /** A bank for cross-project knowledge (recalled besides the project's; the tools can write to it). */
  readonly sharedBank: string | undefined;
  /** Memory off for every project (the per-project switch is a file, see project-identity.ts). */
  readonly optOut: boolean;
  /** Most items the outbox holds unsent; past it the oldest are dropped (with a notice). */
  readonly outboxMax: number;
  /** How long shutdown may spend flushing the outbox (ms). */
  readonly shutdownFlushMs: number;
}

interface Spec {
  readonly key: string;
  readonly variable: string;
  readonly kind: "boolean" | "number" | "string";
  readonly min?: number;
  readonly max?: number;
}

/** Every memory key beyond url/bankId/apiKey/tag/timeoutMs, with its variable. */
export const MEMORY_SETTINGS: readonly Spec[] = [
  { key: "retainTool", variable: "CONTEXT_FOLD_MEMORY_RETAIN_TOOL", kind: "boolean" },
  { key: "recallTool", variable: "CONTEXT_FOLD_MEMORY_RECALL_TOOL", kind: "boolean" },
  { key: "reflectTool", variable: "CONTEXT_FOLD_MEMORY_REFLECT_TOOL", kind: "boolean" },
  { key: "autoRecall", variable: "CONTEXT_FOLD_MEMORY_AUTO_RECALL", kind: "boolean" },
  { key: "recallBudget", variable: "CONTEXT_FOLD_MEMORY_RECALL_BUDGET", kind: "number", min: 50, max: 20_000 },
  { key: "recallTimeoutMs", variable: "CONTEXT_FOLD_MEMORY_RECALL_TIMEOUT_MS", kind: "number", min: 10, max: 60_000 },
  { key: "recallPersist", variable: "CONTEXT_FOLD_MEMORY_RECALL_PERSIST", kind: "boolean" },
  { key: "recallAllProjects", variable: "CONTEXT_FOLD_MEMORY_RECALL_ALL_PROJECTS", kind: "boolean" },
  { key: "autoRetain", variable: "CONTEXT_FOLD_MEMORY_AUTO_RETAIN", kind: "boolean" },
  { key: "sharedBank", variable: "CONTEXT_FOLD_HINDSIGHT_SHARED_BANK", kind: "string" },
  { key: "optOut", variable: "CONTEXT_FOLD_MEMORY_OPT_OUT", kind: "boolean" },
  { key: "outboxMax", variable: "CONTEXT_FOLD_MEMORY_OUTBOX_MAX", kind: "number", min: 1, max: 1_000_000 },
  { key: "shutdownFlushMs", variable: "CONTEXT_FOLD_MEMORY_SHUTDOWN_FLUSH_MS", kind: "number", min: 0, max: 60_000 },
];

/** The `memory` section of the config file as CONTEXT_FOLD_* strings (a wrong type is a warning). */
function fileValues(configFile: string | undefined, warnings: OptionWarning[]): Record<string, string> {
  if (configFile === undefined) return {};
  let section: unknown;
  try {
    section = parseConfigText(configFile, readFileSync(configFile, "utf8"))["memory"];
  } catch {
    return {}; // settings.ts already reported an unreadable or broken file
  }
  if (typeof section !== "object" || section === null || Array.isArray(section)) return {};
  const out: Record<string, string> = {};
  for (const spec of MEMORY_SETTINGS) {
    const value = (section as Record<string, unknown>)[spec.key];
    if (value === undefined || value === null) continue;
    if (typeof value !== spec.kind) {
      warnings.push({ variable: `${configFile} memory.${spec.key}`, value: JSON.stringify(value), reason: `expected a ${spec.kind}` });
      continue;
    }
    out[spec.variable] = String(value);
  }
  return out;
}

/** Memory settings, or undefined while no bank URL is configured (memory off). */
export function loadMemorySettings(settings: Pick<ExtensionSettings, "memory" | "configFile">, env: Env): { settings: MemorySettings | undefined; warnings: OptionWarning[] } {
  const warnings: OptionWarning[] = [];
  if (settings.memory === undefined) return { settings: undefined, warnings };
  const merged: Env = { ...fileValues(settings.configFile, warnings), ...Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v.trim() !== "")) };
  const bool = (key: string, fallback: boolean): boolean => {
    const spec = MEMORY_SETTINGS.find((s) => s.key === key);
    return spec === undefined ? fallback : (booleanFromEnv(merged, spec.variable, warnings) ?? fallback);
  };
  const num = (key: string, fallback: number): number => {
    const spec = MEMORY_SETTINGS.find((s) => s.key === key);
    if (spec === undefined) return fallback;
    return numberFromEnv(merged, { variable: spec.variable, min: spec.min ?? 0, max: spec.max ?? Number.MAX_SAFE_INTEGER, integer: true }, warnings) ?? fallback;
  };
  const shared = merged["CONTEXT_FOLD_HINDSIGHT_SHARED_BANK"]?.trim();
  return {
    settings: {
      ...settings.memory,
      tools: { retain: bool("retainTool", true), recall: bool("recallTool", true), reflect: bool("reflectTool", true) },
      autoRecall: bool("autoRecall", true),
      recallBudget: num("recallBudget", 600),
      recallTimeoutMs: num("recallTimeoutMs", 300),
      recallPersist: bool("recallPersist", false),
      recallAllProjects: bool("recallAllProjects", false),
      autoRetain: bool("autoRetain", true),
      sharedBank: shared === undefined || shared === "" ? undefined : shared,
      optOut: bool("optOut", false),
      outboxMax: num("outboxMax", 1000),
      shutdownFlushMs: num("shutdownFlushMs", 1500),
    },
    warnings,
  };
}
