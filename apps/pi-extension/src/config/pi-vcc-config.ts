// pi-vcc's config (`pi-vcc-config.json` in Pi's agent dir, or PI_VCC_CONFIG_PATH), taken over key by key
// so a user switching from pi-vcc keeps their thresholds. A setting of ours counts as set when a
// CONTEXT_FOLD_* variable gives it or context-fold.json holds something other than the scaffolded
// default; then ours stays. Otherwise pi-vcc's value is used. The result says what was taken and what not.
import { existsSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseThresholdConfig } from "../compaction/compaction-options.js";
import { parseConfigText } from "./config-file.js";

export const PI_VCC_CONFIG_FILE = "pi-vcc-config.json";
export const PI_VCC_CONFIG_VARIABLE = "PI_VCC_CONFIG_PATH";
/** Where pi-vcc's `debug: true` sends our debug snapshots (pi-vcc writes to the temp folder too). */
export const PI_VCC_DEBUG_DIR = join(tmpdir(), "context-fold-debug");

type Env = Readonly<Record<string, string | undefined>>;

/** What taking over pi-vcc's config gave: CONTEXT_FOLD_* values, and what was (not) taken, with reasons. */
export interface PiVccTakeover {
  readonly file: string;
  /** CONTEXT_FOLD_* values from pi-vcc's config, below the environment and below our set values. */
  readonly values: Readonly<Record<string, string>>;
  readonly taken: readonly string[];
  readonly notTaken: readonly { readonly key: string; readonly reason: string }[];
  /** The file exists but could not be used. */
  readonly error: string | undefined;
}

/** pi-vcc's config path: PI_VCC_CONFIG_PATH, else `<agentDir>/pi-vcc-config.json`. */
export function piVccConfigPath(env: Env, agentDir: string): string {
  const override = env[PI_VCC_CONFIG_VARIABLE]?.trim();
  return override === undefined || override === "" ? join(agentDir, PI_VCC_CONFIG_FILE) : resolve(override);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isEmpty(value: unknown): boolean {
  return value === undefined || value === null || (isRecord(value) && Object.keys(value).length === 0);
}

/** Our side of each pi-vcc key: is it set (not the scaffolded default), and by what. */
export interface OursSet {
  /** The variable set in the environment, or undefined. */
  readonly env: Env;
  /** context-fold.json's parsed object. */
  readonly file: Readonly<Record<string, unknown>>;
  readonly fileName: string;
}

function compactionKey(ours: OursSet, key: string): unknown {
  const section = ours.file["compaction"];
  return isRecord(section) ? section[key] : undefined;
}

function setBy(ours: OursSet, variable: string, fileValue: unknown, scaffold: unknown, key: string): string | undefined {
  const raw = ours.env[variable];
  if (raw !== undefined && raw.trim() !== "") return `${variable} is set`;
  if (fileValue === undefined || fileValue === null) return undefined;
  if (JSON.stringify(fileValue) === JSON.stringify(scaffold)) return undefined;
  return `${key} is set in ${ours.fileName}`;
}

/** Keep pi-vcc's threshold entries minus `keepRecentTokens` (reported apart: it does not apply to our cut). */
function withoutKeepRecent(models: Record<string, unknown>, dropped: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [model, value] of Object.entries(models)) {
    if (isRecord(value) && "keepRecentTokens" in value) {
      dropped.push(model);
      const { keepRecentTokens: _dropped, ...rest } = value;
      out[model] = rest;
    } else out[model] = value;
  }
  return out;
}

/** Map a parsed pi-vcc config onto our options. */
export function mapPiVccConfig(file: string, doc: Readonly<Record<string, unknown>>, ours: OursSet): PiVccTakeover {
  const values: Record<string, string> = {};
  const taken: string[] = [];
  const notTaken: { key: string; reason: string }[] = [];

  // Thresholds: one variable of ours (CONTEXT_FOLD_THRESHOLDS) holds both halves; each half is taken on its own.
  const envThresholds = ours.env["CONTEXT_FOLD_THRESHOLDS"];
  const envSet = envThresholds !== undefined && envThresholds.trim() !== "";
  const oursModels = compactionKey(ours, "modelThresholds");
  const oursGlobal = compactionKey(ours, "globalThreshold");
  const keepRecent: string[] = [];
  const theirModels = isRecord(doc["modelThresholds"]) ? withoutKeepRecent(doc["modelThresholds"], keepRecent) : doc["modelThresholds"];
  const globalKey = doc["globalThreshold"] !== undefined ? "globalThreshold" : doc["defaultThreshold"] !== undefined ? "defaultThreshold" : undefined;
  const theirGlobal = globalKey === undefined ? undefined : doc[globalKey];
  if (globalKey === "globalThreshold" && doc["defaultThreshold"] !== undefined) notTaken.push({ key: "defaultThreshold", reason: "globalThreshold replaces it (as in pi-vcc)" });
  let models: unknown = isEmpty(oursModels) ? undefined : oursModels;
  let global: unknown = isEmpty(oursGlobal) ? undefined : oursGlobal;
  let thresholdsTaken = false;
  const pieces: [string, unknown, boolean][] = [
    ["modelThresholds", theirModels, !isEmpty(oursModels)],
    [globalKey === "defaultThreshold" ? "defaultThreshold (deprecated; as globalThreshold)" : "globalThreshold", theirGlobal, !isEmpty(oursGlobal)],
  ];
  for (const [key, theirs, oursInFile] of pieces) {
    if (isEmpty(theirs)) continue;
    if (envSet) notTaken.push({ key, reason: "CONTEXT_FOLD_THRESHOLDS is set" });
    else if (oursInFile) notTaken.push({ key, reason: `${key.startsWith("modelThresholds") ? "compaction.modelThresholds" : "compaction.globalThreshold"} is set in ${ours.fileName}` });
    else {
      const check = parseThresholdConfig(key === "modelThresholds" ? { modelThresholds: theirs } : { globalThreshold: theirs });
      if (typeof check === "string") notTaken.push({ key, reason: check });
      else {
        if (key === "modelThresholds") models = theirs;
        else global = theirs;
        taken.push(key);
        thresholdsTaken = true;
      }
    }
  }
  if (thresholdsTaken) {
    values["CONTEXT_FOLD_THRESHOLDS"] = JSON.stringify({ ...(models === undefined ? {} : { modelThresholds: models }), ...(global === undefined ? {} : { globalThreshold: global }) });
  }
  if (keepRecent.length > 0) {
    notTaken.push({
      key: `keepRecentTokens (${keepRecent.join(", ")})`,
      reason: "it only sizes Pi's own cut (overrideDefaultCompaction false); set compaction.keepRecentTokens in Pi's settings.json for that",
    });
  }

  const override = doc["overrideDefaultCompaction"];
  if (override !== undefined) {
    const by = setBy(ours, "CONTEXT_FOLD_OVERRIDE_COMPACTION", compactionKey(ours, "overrideDefaultCompaction"), true, "compaction.overrideDefaultCompaction");
    if (typeof override !== "boolean") notTaken.push({ key: "overrideDefaultCompaction", reason: "expected true or false" });
    else if (by !== undefined) notTaken.push({ key: "overrideDefaultCompaction", reason: by });
    else {
      values["CONTEXT_FOLD_OVERRIDE_COMPACTION"] = String(override);
      taken.push("overrideDefaultCompaction");
    }
  }

  const debug = doc["debug"];
  if (debug === true) {
    const by = setBy(ours, "CONTEXT_FOLD_DEBUG_DIR", ours.file["debugDir"], null, "debugDir");
    if (by !== undefined) notTaken.push({ key: "debug", reason: by });
    else {
      values["CONTEXT_FOLD_DEBUG_DIR"] = PI_VCC_DEBUG_DIR;
      taken.push(`debug (snapshots in ${PI_VCC_DEBUG_DIR})`);
    }
  } else if (debug !== undefined && debug !== false) notTaken.push({ key: "debug", reason: "expected true or false" });

  const known = new Set(["modelThresholds", "globalThreshold", "defaultThreshold", "overrideDefaultCompaction", "debug"]);
  for (const key of Object.keys(doc)) if (!known.has(key)) notTaken.push({ key, reason: "context-fold has no such option" });
  return { file, values, taken, notTaken, error: undefined };
}

/** Read and map pi-vcc's config; undefined when there is none. Never throws. */
export function takeOverPiVccConfig(env: Env, agentDir: string, ours: OursSet): PiVccTakeover | undefined {
  const file = piVccConfigPath(env, agentDir);
  if (!existsSync(file)) return undefined;
  try {
    return mapPiVccConfig(file, parseConfigText(file, readFileSync(file, "utf8")), ours);
  } catch (error) {
    // parseConfigText's message ends with advice about our own file; keep only what is wrong.
    const message = error instanceof Error ? error.message : String(error);
    const advice = message.indexOf(" Using the defaults");
    const reason = advice < 0 ? message : message.slice(0, advice);
    return { file, values: {}, taken: [], notTaken: [], error: reason };
  }
}

/** The one notice about pi-vcc's config: what was taken over and what was not, or why none of it was. */
export function piVccNotice(takeover: PiVccTakeover): string {
  if (takeover.error !== undefined) return `context-fold: pi-vcc's config was not taken over: ${takeover.error}`;
  const parts = [`context-fold: read pi-vcc's config ${takeover.file}.`];
  parts.push(takeover.taken.length === 0 ? "Took over nothing." : `Took over: ${takeover.taken.join(", ")}.`);
  if (takeover.notTaken.length > 0) parts.push(`Not taken: ${takeover.notTaken.map((n) => `${n.key} (${n.reason})`).join("; ")}.`);
  return parts.join(" ");
}
