// The JSON Schema of context-fold.json: generated from the TypeBox schema that validates the file, named
// by the scaffold's `$schema`, kept beside the config (refreshed atomically when stale, never written for a
// file that does not name it), and its refusals named by config key with the reason.
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Value } from "typebox/value";
import { describe, expect, test } from "vitest";
import { tempDir } from "@context-fold/test-support";
import { CONFIG_FILE } from "../../src/config/config-file.js";
import { refreshSchemaFile, SCHEMA_FILE, SCHEMA_REF, schemaText } from "../../src/config/config-schema.js";
import { CONFIG_SCHEMA, loadSettings, SETTINGS, scaffoldText } from "../../src/config/settings.js";

type Node = { properties?: Record<string, Node>; description?: string; anyOf?: Node[] };

describe("context-fold.json's JSON Schema", () => {
  test("the file written beside the config is the validating schema itself; the scaffold passes it", () => {
    const dir = tempDir("cf-schema-");
    loadSettings({}, dir);
    const written = JSON.parse(readFileSync(join(dir, SCHEMA_FILE), "utf8")) as Node & { $schema: string };
    expect(written.$schema).toBe("http://json-schema.org/draft-07/schema#");
    const { $schema: _draft, ...schema } = written;
    expect(schema).toEqual(JSON.parse(JSON.stringify(CONFIG_SCHEMA)));
    const scaffold = JSON.parse(scaffoldText()) as unknown;
    expect(Value.Check(CONFIG_SCHEMA, scaffold)).toBe(true);
    // Every option is in it, described with its variable.
    for (const spec of SETTINGS) {
      const [section, key] = spec.key.includes(".") ? spec.key.split(".") : [undefined, spec.key];
      const node = section === undefined ? schema.properties?.[key ?? ""] : schema.properties?.[section]?.properties?.[key ?? ""];
      expect(JSON.stringify(node), spec.key).toContain(spec.variable);
    }
  });

  test("refused values are named by config key with the reason, the rest applies; unknown keys are fine", () => {
    const dir = tempDir("cf-schema-bad-");
    const file = join(dir, CONFIG_FILE);
    writeFileSync(
      file,
      JSON.stringify({
        note: "mine",
        fold: { threshold: 0.3, keepRecentResults: 2.5, extra: true },
        compaction: { mode: "fast", modelThresholds: { "a/b": { compactPercent: 120 } }, globalThreshold: { compactPercent: 60 } },
        memory: { timeoutMs: 10 },
      }),
    );
    const settings = loadSettings({}, dir);
    const reasons = Object.fromEntries(settings.warnings.map((w) => [w.variable.slice(file.length + 1), w.reason]));
    expect(reasons).toEqual({
      "fold.keepRecentResults": "expected an integer from 0 to 1000",
      "compaction.mode": "expected one of advise, actuate",
      "compaction.modelThresholds": "must be <= 99 at /compaction/modelThresholds/a/b/compactPercent" as unknown,
      "memory.timeoutMs": "expected an integer from 50 to 600000",
    });
    expect(settings.fold.threshold).toBe(0.3);
    expect(settings.compaction.mode).toBe("advise");
    expect(settings.compaction.thresholds).toEqual({ models: {}, global: { compactPercent: 60 } });
    // A user's file without `$schema`: no schema file is written beside it.
    expect(readdirSync(dir)).toEqual([CONFIG_FILE]);
  });

  test("a stale schema file is replaced; a current one is left alone; a config not naming it gets none", () => {
    const dir = tempDir("cf-schema-refresh-");
    const config = join(dir, CONFIG_FILE);
    const text = schemaText(SETTINGS);
    writeFileSync(join(dir, SCHEMA_FILE), "{}\n");
    expect(refreshSchemaFile(config, { $schema: SCHEMA_REF }, text)).toBe(true);
    expect(readFileSync(join(dir, SCHEMA_FILE), "utf8")).toBe(text);
    expect(refreshSchemaFile(config, { $schema: SCHEMA_REF }, text)).toBe(false);
    expect(readdirSync(dir)).toEqual([SCHEMA_FILE]);
    const other = tempDir("cf-schema-none-");
    expect(refreshSchemaFile(join(other, CONFIG_FILE), { $schema: "https://example.org/x.json" }, text)).toBe(false);
    expect(readdirSync(other)).toEqual([]);
  });
});
