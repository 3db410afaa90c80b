// Every option of the extension in one place: config file key ↔ environment variable. The config file's
// values are turned into the same CONTEXT_FOLD_* strings the environment gives, so one validation (the
// fold and compaction option resolvers) serves both, and a variable that is set always wins over the file.
import { isAbsolute, join, resolve } from "node:path";
import { COMPACT_MODES, COMPACTION_NUMERIC, DEFAULT_COMPACTION_OPTIONS, NEXT_STEP_MODES, resolveCompactionOptions, type CompactionOptions } from "../compaction/compaction-options.js";
import { booleanFromEnv, numberFromEnv } from "../env-values.js";
import { DEFAULT_FOLD_OPTIONS, FOLD_NUMERIC, resolveFoldOptions, type FoldOptions, type OptionWarning } from "../options.js";
import { CONFIG_FILE, type ConfigFileError, configPath, loadConfigFile } from "./config-file.js";
import { configSchema, refreshSchemaFile, SCHEMA_REF, type SchemaSpec, schemaProblems, schemaText } from "./config-schema.js";
import { piVccNotice, type PiVccTakeover, takeOverPiVccConfig } from "./pi-vcc-config.js";

type Env = Readonly<Record<string, string | undefined>>;

/** One option: where it lives in the config file, its variable, its default as written in the scaffold (declared beside the schema built from it). */
export type SettingSpec = SchemaSpec;

/**
 * The rows of a resolver's numeric options, in its table's order: the variable comes from that table
 * and the scaffolded value from the resolver's defaults, so neither is written a second time here.
 */
function numericRows<K extends string>(section: string, table: readonly { key: K; variable: string }[], defaults: Readonly<Record<K, number>>): SettingSpec[] {
  return table.map((row) => ({ key: `${section}.${row.key}`, variable: row.variable, kind: "number", scaffold: defaults[row.key] }));
}

/** Every option with a config key. `compaction.modelThresholds`/`globalThreshold` share CONTEXT_FOLD_THRESHOLDS. */
export const SETTINGS: readonly SettingSpec[] = [
  { key: "fold.enabled", variable: "CONTEXT_FOLD_ENABLED", kind: "boolean", scaffold: true },
  ...numericRows("fold", FOLD_NUMERIC, DEFAULT_FOLD_OPTIONS),
  { key: "fold.foldThinking", variable: "CONTEXT_FOLD_THINKING", kind: "boolean", scaffold: true },
  { key: "compaction.mode", variable: "CONTEXT_FOLD_COMPACT_MODE", kind: "string", scaffold: "advise", values: COMPACT_MODES },
  { key: "compaction.overrideDefaultCompaction", variable: "CONTEXT_FOLD_OVERRIDE_COMPACTION", kind: "boolean", scaffold: true },
  { key: "compaction.nextStep", variable: "CONTEXT_FOLD_NEXT_STEP", kind: "string", scaffold: "auto", values: NEXT_STEP_MODES },
  ...numericRows("compaction", COMPACTION_NUMERIC, DEFAULT_COMPACTION_OPTIONS),
  { key: "compaction.modelThresholds", variable: "CONTEXT_FOLD_THRESHOLDS", kind: "thresholds", scaffold: null },
  { key: "compaction.globalThreshold", variable: "CONTEXT_FOLD_THRESHOLDS", kind: "thresholds", scaffold: null },
  { key: "memory.url", variable: "CONTEXT_FOLD_HINDSIGHT_URL", kind: "string", scaffold: null },
  { key: "memory.bankId", variable: "CONTEXT_FOLD_HINDSIGHT_BANK", kind: "string", scaffold: null },
  { key: "memory.apiKey", variable: "CONTEXT_FOLD_HINDSIGHT_API_KEY", kind: "string", scaffold: null },
  { key: "memory.tag", variable: "CONTEXT_FOLD_HINDSIGHT_TAG", kind: "string", scaffold: null },
  { key: "memory.timeoutMs", variable: "CONTEXT_FOLD_HINDSIGHT_TIMEOUT_MS", kind: "number", scaffold: 5000, range: { min: 50, max: 600_000, integer: true } },
  { key: "memory.retainTool", variable: "CONTEXT_FOLD_MEMORY_RETAIN_TOOL", kind: "boolean", scaffold: true },
  { key: "memory.recallTool", variable: "CONTEXT_FOLD_MEMORY_RECALL_TOOL", kind: "boolean", scaffold: true },
  { key: "memory.reflectTool", variable: "CONTEXT_FOLD_MEMORY_REFLECT_TOOL", kind: "boolean", scaffold: true },
  { key: "memory.autoRecall", variable: "CONTEXT_FOLD_MEMORY_AUTO_RECALL", kind: "boolean", scaffold: true },
  { key: "memory.recallBudget", variable: "CONTEXT_FOLD_MEMORY_RECALL_BUDGET", kind: "number", scaffold: 600, range: { min: 50, max: 20_000, integer: true } },
  { key: "memory.recallTimeoutMs", variable: "CONTEXT_FOLD_MEMORY_RECALL_TIMEOUT_MS", kind: "number", scaffold: 300, range: { min: 10, max: 60_000, integer: true } },
  { key: "memory.recallPersist", variable: "CONTEXT_FOLD_MEMORY_RECALL_PERSIST", kind: "boolean", scaffold: false },
  { key: "memory.recallAllProjects", variable: "CONTEXT_FOLD_MEMORY_RECALL_ALL_PROJECTS", kind: "boolean", scaffold: false },
  { key: "memory.autoRetain", variable: "CONTEXT_FOLD_MEMORY_AUTO_RETAIN", kind: "boolean", scaffold: true },
  { key: "memory.sharedBank", variable: "CONTEXT_FOLD_HINDSIGHT_SHARED_BANK", kind: "string", scaffold: null },
  { key: "memory.optOut", variable: "CONTEXT_FOLD_MEMORY_OPT_OUT", kind: "boolean", scaffold: false },
  { key: "memory.outboxMax", variable: "CONTEXT_FOLD_MEMORY_OUTBOX_MAX", kind: "number", scaffold: 1000, range: { min: 1, max: 1_000_000, integer: true } },
  { key: "memory.shutdownFlushMs", variable: "CONTEXT_FOLD_MEMORY_SHUTDOWN_FLUSH_MS", kind: "number", scaffold: 1500, range: { min: 0, max: 60_000, integer: true } },
  { key: "debugDir", variable: "CONTEXT_FOLD_DEBUG_DIR", kind: "string", scaffold: null },
];

/** Overrides where the config file is read from (`off` reads none). */
export const CONFIG_VARIABLE = "CONTEXT_FOLD_CONFIG";
/** Pi's agent-dir variable (Pi's `getAgentDir()` reads it too). */
export const AGENT_DIR_VARIABLE = "PI_CODING_AGENT_DIR";

/**
 * Memory across sessions (a Hindsight bank): the tools, auto-recall, auto-retain, the outbox. Off
 * (undefined) until a bank URL is set. Every value comes from a `memory.*` row of SETTINGS.
 */
export interface MemorySettings {
  readonly url: string;
  /** undefined: a bank per project, derived from the project's name. */
  readonly bankId: string | undefined;
  readonly apiKey: string | undefined;
  /** Project tag; undefined: the session's cwd basename. */
  readonly tag: string | undefined;
  /** Per request; the retain is never awaited by compaction anyway. */
  readonly timeoutMs: number;
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
  /** Memory off for every project (the per-project switch is a file, see src/memory/project-identity.ts). */
  readonly optOut: boolean;
  /** Most items the outbox holds unsent; past it the oldest are dropped (with a notice). */
  readonly outboxMax: number;
  /** How long shutdown may spend flushing the outbox (ms). */
  readonly shutdownFlushMs: number;
}

export interface ExtensionSettings {
  readonly fold: FoldOptions;
  readonly compaction: CompactionOptions;
  readonly memory: MemorySettings | undefined;
  /** Where debug snapshots go (absolute); undefined: none are written. */
  readonly debugDir: string | undefined;
  /** The config file read (undefined when CONTEXT_FOLD_CONFIG=off). */
  readonly configFile: string | undefined;
  readonly scaffolded: boolean;
  /** Why the config file was not used (defaults apply). */
  readonly configError: ConfigFileError | undefined;
  /** Values ignored (from the file or the environment), with the reason. */
  readonly warnings: readonly OptionWarning[];
  /** pi-vcc's config, when there is one: what was taken over and what was not. */
  readonly piVcc: PiVccTakeover | undefined;
}

/** The JSON Schema of context-fold.json (TypeBox), from the table above. */
export const CONFIG_SCHEMA = configSchema(SETTINGS);

/** The text of a freshly scaffolded config: its schema, then every option at its default (thresholds empty, memory off). */
export function scaffoldText(): string {
  const doc: Record<string, Record<string, unknown> | unknown> = { $schema: SCHEMA_REF };
  for (const spec of SETTINGS) {
    const [section, key] = spec.key.includes(".") ? (spec.key.split(".") as [string, string]) : [undefined, spec.key];
    const value = spec.kind === "thresholds" ? (key === "modelThresholds" ? {} : null) : spec.scaffold;
    if (section === undefined) doc[key] = value;
    else ((doc[section] ??= {}) as Record<string, unknown>)[key] = value;
  }
  return `${JSON.stringify(doc, null, 2)}\n`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function valueAt(doc: Readonly<Record<string, unknown>>, key: string): unknown {
  const [head, tail] = key.split(".") as [string, string | undefined];
  if (tail === undefined) return doc[head];
  const section = doc[head];
  return isRecord(section) ? section[tail] : undefined;
}

/** The config file's values as CONTEXT_FOLD_* strings; a value the schema refuses is a warning and left out. */
function fileEnv(doc: Readonly<Record<string, unknown>>, file: string, warnings: OptionWarning[]): Record<string, string> {
  const out: Record<string, string> = {};
  const refused = new Set<string>();
  for (const problem of schemaProblems(SETTINGS, CONFIG_SCHEMA, doc)) {
    refused.add(problem.key);
    warnings.push({ variable: `${file} ${problem.key}`, value: JSON.stringify(problem.value) ?? "", reason: problem.reason });
  }
  const usable = (key: string): boolean => !refused.has(key) && !refused.has(key.split(".")[0] ?? key);
  for (const spec of SETTINGS) {
    if (spec.kind === "thresholds" || !usable(spec.key)) continue;
    const value = valueAt(doc, spec.key);
    if (value === undefined || value === null) continue;
    out[spec.variable] = String(value);
  }
  const models = usable("compaction.modelThresholds") ? valueAt(doc, "compaction.modelThresholds") : undefined;
  const global = usable("compaction.globalThreshold") ? valueAt(doc, "compaction.globalThreshold") : undefined;
  const hasModels = isRecord(models) ? Object.keys(models).length > 0 : models !== undefined && models !== null;
  if (hasModels || (global !== undefined && global !== null)) {
    out["CONTEXT_FOLD_THRESHOLDS"] = JSON.stringify({ ...(models === undefined || models === null ? {} : { modelThresholds: models }), ...(global === undefined || global === null ? {} : { globalThreshold: global }) });
  }
  return out;
}

/** Name a warning by its config key when the value came from the file, not from the environment. */
function relabel(warning: OptionWarning, env: Env, file: string): OptionWarning {
  const fromEnv = env[warning.variable];
  if (fromEnv !== undefined && fromEnv.trim() !== "") return warning;
  const keys = SETTINGS.filter((s) => s.variable === warning.variable).map((s) => s.key);
  return keys.length === 0 ? warning : { ...warning, variable: `${file} ${keys.join("/")}` };
}

/** A `memory.*` value from the merged strings (the file's already passed the schema), at its scaffold default when unset or bad. */
function memoryValue(merged: Env, key: string, warnings: OptionWarning[]): string | number | boolean | undefined {
  const spec = SETTINGS.find((s) => s.key === `memory.${key}`);
  if (spec === undefined) throw new Error(`no setting memory.${key}`);
  const fallback = spec.scaffold ?? undefined;
  if (spec.kind === "boolean") return booleanFromEnv(merged, spec.variable, warnings) ?? fallback;
  if (spec.kind === "number" && spec.range !== undefined) return numberFromEnv(merged, { variable: spec.variable, ...spec.range }, warnings) ?? fallback;
  const raw = merged[spec.variable]?.trim();
  return raw === undefined || raw === "" ? fallback : raw;
}

function memoryFrom(merged: Env, env: Env, file: string, warnings: OptionWarning[]): MemorySettings | undefined {
  const found: OptionWarning[] = [];
  const value = (key: string): string | number | boolean | undefined => memoryValue(merged, key, found);
  const text = (key: string): string | undefined => {
    const v = value(key);
    return typeof v === "string" ? v : undefined;
  };
  const flag = (key: string): boolean => value(key) === true;
  const count = (key: string): number => {
    const v = value(key);
    return typeof v === "number" ? v : 0;
  };
  const url = text("url");
  const bankId = text("bankId");
  const resolved = {
    bankId,
    apiKey: text("apiKey"),
    tag: text("tag"),
    timeoutMs: count("timeoutMs"),
    tools: { retain: flag("retainTool"), recall: flag("recallTool"), reflect: flag("reflectTool") },
    autoRecall: flag("autoRecall"),
    recallBudget: count("recallBudget"),
    recallTimeoutMs: count("recallTimeoutMs"),
    recallPersist: flag("recallPersist"),
    recallAllProjects: flag("recallAllProjects"),
    autoRetain: flag("autoRetain"),
    sharedBank: text("sharedBank"),
    optOut: flag("optOut"),
    outboxMax: count("outboxMax"),
    shutdownFlushMs: count("shutdownFlushMs"),
  };
  const warn = (variable: string, raw: string, reason: string): void => {
    found.push({ variable, value: raw, reason });
  };
  const done = (settings: MemorySettings | undefined): MemorySettings | undefined => {
    for (const w of found) warnings.push(relabel(w, env, file));
    return settings;
  };
  if (url === undefined && bankId === undefined) return done(undefined);
  // Memory is on once a URL is set; without a bank id each project gets its own (src/memory/project-identity.ts).
  if (url === undefined) {
    warn("CONTEXT_FOLD_HINDSIGHT_URL", "", "memory needs a bank URL; memory stays off");
    return done(undefined);
  }
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (parsed === undefined || (parsed.protocol !== "http:" && parsed.protocol !== "https:")) {
    warn("CONTEXT_FOLD_HINDSIGHT_URL", url, "expected an http:// or https:// URL; memory stays off");
    return done(undefined);
  }
  return done({ url: url.replace(/\/$/, ""), ...resolved });
}

/**
 * All options: defaults, then the config file (scaffolded when missing), then CONTEXT_FOLD_* variables.
 * `agentDir` defaults to Pi's (PI_CODING_AGENT_DIR or ~/.pi/agent). Never throws: a broken file is
 * reported in `configError` and the defaults apply.
 */
export function loadSettings(env: Env, agentDir: string): ExtensionSettings {
  const override = env[CONFIG_VARIABLE]?.trim();
  const file = override === "off" ? undefined : override !== undefined && override !== "" ? resolve(override) : configPath(agentDir);
  const loaded = file === undefined ? undefined : loadConfigFile(file, scaffoldText());
  // The schema beside the config, for editors (only when the config names it, as the scaffold does).
  if (file !== undefined && loaded !== undefined) refreshSchemaFile(file, loaded.value, schemaText(SETTINGS));
  const label = file ?? CONFIG_FILE;
  const warnings: OptionWarning[] = [];
  const fromFile = loaded === undefined ? {} : fileEnv(loaded.value, label, warnings);
  // pi-vcc's values sit between ours: above a scaffolded default, below a value the user set.
  const piVcc = takeOverPiVccConfig(env, agentDir, { env, file: loaded?.value ?? {}, fileName: label });
  const merged: Env = { ...fromFile, ...piVcc?.values, ...Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v.trim() !== "")) };
  const fold = resolveFoldOptions({}, merged);
  const compaction = resolveCompactionOptions({}, merged);
  for (const w of [...fold.warnings, ...compaction.warnings]) warnings.push(relabel(w, env, label));
  const memory = memoryFrom(merged, env, label, warnings);
  const debugRaw = merged["CONTEXT_FOLD_DEBUG_DIR"]?.trim();
  // A relative debugDir is taken relative to the config file's folder (the agent dir), never the cwd.
  const debugDir = debugRaw === undefined || debugRaw === "" ? undefined : isAbsolute(debugRaw) ? debugRaw : join(file === undefined ? agentDir : resolve(file, ".."), debugRaw);
  return {
    fold: fold.options,
    compaction: compaction.options,
    memory,
    debugDir,
    configFile: file,
    scaffolded: loaded?.scaffolded ?? false,
    configError: loaded?.error,
    warnings,
    piVcc,
  };
}

/** What the user is told at session start about the configuration (the file created, a broken file, ignored values). */
export function settingsNotices(settings: ExtensionSettings): string[] {
  const out: string[] = [];
  if (settings.scaffolded && settings.configFile !== undefined) out.push(`context-fold: created ${settings.configFile} with the default options (edit it to configure; CONTEXT_FOLD_* variables override it).`);
  if (settings.configError !== undefined) out.push(`context-fold: ${settings.configError.message}`);
  if (settings.piVcc !== undefined) out.push(piVccNotice(settings.piVcc));
  for (const w of settings.warnings) out.push(`context-fold: ignoring ${w.variable}=${w.value === "" ? "(unset)" : JSON.stringify(w.value)}: ${w.reason}.`);
  return out;
}
