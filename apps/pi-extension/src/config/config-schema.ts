// The JSON Schema of context-fold.json, built with TypeBox from the option table (SETTINGS), the
// resolvers' ranges and enums. The same schema validates the file when it is read and is written beside
// it as `context-fold.schema.json`, which the scaffolded file names in `$schema` (editors then check and
// complete it). Unknown keys are allowed: a user's own notes stay theirs.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { replaceFile } from "@context-fold/durable-fs";
import { type TSchema, Type } from "typebox";
import { Value } from "typebox/value";
import { COMPACTION_NUMERIC } from "../compaction/compaction-options.js";
import { FOLD_NUMERIC } from "../options.js";

/** File name of the schema, beside the config file. */
export const SCHEMA_FILE = "context-fold.schema.json";
/** The `$schema` value the scaffold writes: the schema beside the config. */
export const SCHEMA_REF = `./${SCHEMA_FILE}`;

/** One option of the config file (a row of settings.ts's SETTINGS, whose SettingSpec this is). */
export interface SchemaSpec {
  /** `section.key` (or a top-level key) in context-fold.json. */
  readonly key: string;
  readonly variable: string;
  readonly kind: "number" | "boolean" | "string" | "thresholds";
  /** Its default as written in the scaffold. */
  readonly scaffold: number | boolean | string | null;
  /** The allowed strings, for an enumerated option. */
  readonly values?: readonly string[];
  /** The range, for a number no option resolver's table holds. */
  readonly range?: { readonly min: number; readonly max: number; readonly integer: boolean };
}

const RANGES = new Map([...FOLD_NUMERIC, ...COMPACTION_NUMERIC].map((r) => [r.variable, r] as const));

function nullable(schema: TSchema, nullOk: boolean): TSchema {
  return nullOk ? Type.Union([schema, Type.Null()]) : schema;
}

const Threshold = Type.Object(
  {
    reserveTokens: Type.Optional(Type.Integer({ minimum: 0, description: "Compact when tokens > window − reserveTokens (wins over compactPercent)." })),
    compactPercent: Type.Optional(Type.Number({ minimum: 1, maximum: 99, description: "Compact when tokens > window × compactPercent / 100." })),
  },
  { description: "A compaction trigger point." },
);

/** The schema of one option's value. */
export function valueSchema(spec: SchemaSpec): TSchema {
  const description = `Environment variable: ${spec.variable} (wins over this file).`;
  const nullOk = spec.scaffold === null;
  if (spec.kind === "boolean") return nullable(Type.Boolean({ description }), nullOk);
  if (spec.kind === "string") {
    const values = spec.values;
    return nullable(values === undefined ? Type.String({ description }) : Type.Union(values.map((v) => Type.Literal(v)), { description }), nullOk);
  }
  if (spec.kind === "number") {
    const range = spec.range ?? RANGES.get(spec.variable);
    const bounds = range === undefined ? { description } : { minimum: range.min, maximum: range.max, description };
    return nullable(range?.integer === true ? Type.Integer(bounds) : Type.Number(bounds), nullOk);
  }
  return spec.key.endsWith("modelThresholds")
    ? Type.Record(Type.String(), Threshold, { description: `Per model, keyed by provider/modelId or modelId. ${description}` })
    : nullable(Type.Object(Threshold.properties, { description: `For models no key matches. ${description}` }), true);
}

/** The whole file's schema. */
export function configSchema(specs: readonly SchemaSpec[]): TSchema {
  const root: Record<string, TSchema> = { $schema: Type.Optional(Type.String()) };
  const sections = new Map<string, Record<string, TSchema>>();
  for (const spec of specs) {
    const [section, key] = spec.key.includes(".") ? (spec.key.split(".") as [string, string]) : [undefined, spec.key];
    if (section === undefined) root[key] = Type.Optional(valueSchema(spec));
    else {
      const props = sections.get(section) ?? {};
      props[key] = Type.Optional(valueSchema(spec));
      sections.set(section, props);
    }
  }
  for (const [section, props] of sections) root[section] = Type.Optional(Type.Object(props));
  return Type.Object(root, { title: "context-fold.json", description: "context-fold options (Pi extension). CONTEXT_FOLD_* variables override them." });
}

/** The schema as the JSON text written beside the config. */
export function schemaText(specs: readonly SchemaSpec[]): string {
  return `${JSON.stringify({ $schema: "http://json-schema.org/draft-07/schema#", ...(JSON.parse(JSON.stringify(configSchema(specs))) as object) }, null, 2)}\n`;
}

/** One place in the file the schema refuses: the option key (`fold.threshold`, or a section) and why. */
export interface SchemaProblem {
  readonly key: string;
  readonly value: unknown;
  readonly reason: string;
}

function at(doc: unknown, path: readonly string[]): unknown {
  let value = doc;
  for (const part of path) value = typeof value === "object" && value !== null ? (value as Record<string, unknown>)[part] : undefined;
  return value;
}

function describeSpec(spec: SchemaSpec | undefined): string | undefined {
  if (spec === undefined) return undefined;
  if (spec.kind === "boolean") return "expected true or false";
  if (spec.kind === "string") return spec.values === undefined ? "expected a string" : `expected one of ${spec.values.join(", ")}`;
  if (spec.kind === "number") {
    const range = spec.range ?? RANGES.get(spec.variable);
    return range === undefined ? "expected a number" : `expected ${range.integer ? "an integer" : "a number"} from ${String(range.min)} to ${String(range.max)}`;
  }
  return undefined;
}

/** The file's values the schema refuses, one per option key (or section), in file order of the checks. */
export function schemaProblems(specs: readonly SchemaSpec[], schema: TSchema, doc: unknown): SchemaProblem[] {
  const byKey = new Map<string, SchemaProblem>();
  for (const error of Value.Errors(schema, doc)) {
    // Only the first two segments are used; a model key holding "/" may split further, harmlessly.
    const path = error.instancePath.split("/").slice(1);
    if (path.length === 0) continue; // the top level is checked (an object) before the schema runs
    const top = path[0] ?? "";
    const key = specs.some((s) => s.key === top) || path.length === 1 ? top : `${top}.${path[1] ?? ""}`;
    if (byKey.has(key)) continue;
    const spec = specs.find((s) => s.key === key);
    const described = describeSpec(spec);
    const reason =
      described !== undefined
        ? described
        : spec === undefined && path.length === 1
          ? `expected an object (${error.message})`
          : `${error.message} at ${error.instancePath}`;
    byKey.set(key, { key, value: at(doc, key.split(".")), reason });
  }
  return [...byKey.values()];
}

/**
 * Write the schema beside `configFile` when the config names it in `$schema` and the file there differs
 * (a new version of ours adds keys). Atomic (durable-fs replaceFile); best effort: a failure only means
 * the editor has no schema, never that the options are wrong.
 */
export function refreshSchemaFile(configFile: string, doc: Readonly<Record<string, unknown>>, text: string): boolean {
  if (doc["$schema"] !== SCHEMA_REF) return false;
  const file = join(dirname(configFile), SCHEMA_FILE);
  try {
    if (readFileSync(file, "utf8") === text) return false;
  } catch {
    // missing or unreadable: write it
  }
  try {
    replaceFile(file, text);
    return true;
  } catch {
    return false; // replaceFile has removed its temp file
  }
}
