// The config file: scaffolded once (atomically, never over a user's file), read without rewriting
// (unknown keys and formatting kept), overridden by CONTEXT_FOLD_* variables, and a broken file named
// precisely (file:line:column, byte offset) while the defaults apply.
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { LINEAR_TIME_MS, tempDir } from "@context-fold/test-support";
import { CONFIG_FILE, ConfigFileError, locate, parseConfigText, scaffoldConfigFile } from "../../src/config/config-file.js";
import { SCHEMA_FILE } from "../../src/config/config-schema.js";
import { loadSettings, SETTINGS, scaffoldText, settingsNotices } from "../../src/config/settings.js";
import { DEFAULT_COMPACTION_OPTIONS } from "../../src/compaction/compaction-options.js";
import { DEFAULT_FOLD_OPTIONS } from "../../src/options.js";
import { parseHandoffArgs } from "../../src/handoff/handoff-command.js";

describe("config file", () => {
  test("first load scaffolds every option at its default; the defaults it holds equal the resolvers' defaults", () => {
    const dir = tempDir("cf-config-");
    const settings = loadSettings({}, dir);
    const file = join(dir, CONFIG_FILE);
    expect(settings.configFile).toBe(file);
    expect(settings.scaffolded).toBe(true);
    expect(settings.configError).toBeUndefined();
    expect(settings.warnings).toEqual([]);
    expect(settings.fold).toEqual(DEFAULT_FOLD_OPTIONS);
    expect(settings.compaction).toEqual(DEFAULT_COMPACTION_OPTIONS);
    expect(settings.memory).toBeUndefined();
    expect(settings.debugDir).toBeUndefined();
    const doc = JSON.parse(readFileSync(file, "utf8")) as Record<string, Record<string, unknown>>;
    for (const [key, value] of Object.entries(DEFAULT_FOLD_OPTIONS)) expect(doc["fold"]?.[key]).toBe(value);
    for (const [key, value] of Object.entries(DEFAULT_COMPACTION_OPTIONS)) if (key !== "thresholds") expect(doc["compaction"]?.[key]).toBe(value);
    // Memory is off in the scaffold (no url); its other keys sit at their defaults.
    expect(doc["memory"]).toEqual({
      url: null, bankId: null, apiKey: null, tag: null, timeoutMs: 5000,
      retainTool: true, recallTool: true, reflectTool: true, autoRecall: true, recallBudget: 600, recallTimeoutMs: 300,
      recallPersist: false, recallAllProjects: false, autoRetain: true, sharedBank: null, optOut: false, outboxMax: 1000, shutdownFlushMs: 1500,
    });
    // No temp file is left behind; the schema the file names sits beside it.
    expect(doc["$schema"]).toBe(`./${SCHEMA_FILE}`);
    expect(readdirSync(dir).sort()).toEqual([CONFIG_FILE, SCHEMA_FILE]);
    expect(settingsNotices(settings)[0]).toContain(`created ${file}`);
  });

  test("a user's file is never rewritten: unknown keys, order and formatting stay byte-identical; its values apply", () => {
    const dir = tempDir("cf-config-");
    const file = join(dir, CONFIG_FILE);
    const text = `{\n  "myNote": "keep me",\n  "fold": { "threshold": 0.3, "futureKnob": [1, 2] },\n  "compaction": { "mode": "actuate", "modelThresholds": { "faux/faux-p3": { "compactPercent": 60 } } },\n  "debugDir": "snapshots"\n}\n`;
    writeFileSync(file, text);
    const before = statSync(file).mtimeMs;
    const settings = loadSettings({}, dir);
    expect(readFileSync(file, "utf8")).toBe(text);
    expect(statSync(file).mtimeMs).toBe(before);
    expect(settings.scaffolded).toBe(false);
    expect(settings.fold.threshold).toBe(0.3);
    expect(settings.compaction.mode).toBe("actuate");
    expect(settings.compaction.thresholds.models["faux/faux-p3"]).toEqual({ compactPercent: 60 });
    expect(settings.debugDir).toBe(join(dir, "snapshots"));
    expect(settings.warnings).toEqual([]);
    // Scaffolding never replaces an existing file either.
    expect(scaffoldConfigFile(file, scaffoldText())).toBe(false);
    expect(readFileSync(file, "utf8")).toBe(text);
  });

  test("environment variables override the file; part 1 and part 2 variables keep working", () => {
    const dir = tempDir("cf-config-");
    writeFileSync(join(dir, CONFIG_FILE), JSON.stringify({ fold: { threshold: 0.3, cap: 0.8 }, compaction: { nextStep: "off" } }));
    const settings = loadSettings({ CONTEXT_FOLD_THRESHOLD: "0.5", CONTEXT_FOLD_NEXT_STEP: "autonomous", CONTEXT_FOLD_THINKING: "off" }, dir);
    expect(settings.fold.threshold).toBe(0.5);
    expect(settings.fold.cap).toBe(0.8);
    expect(settings.fold.foldThinking).toBe(false);
    expect(settings.compaction.nextStep).toBe("autonomous");
  });

  test("a value of the wrong type or out of range is named by its config key and ignored; an env value by its variable", () => {
    const dir = tempDir("cf-config-");
    const file = join(dir, CONFIG_FILE);
    writeFileSync(file, JSON.stringify({ fold: { threshold: "high", cap: 7 }, compaction: "fast" }));
    const settings = loadSettings({ CONTEXT_FOLD_TAIL: "lots" }, dir);
    expect(settings.fold.threshold).toBe(DEFAULT_FOLD_OPTIONS.threshold);
    expect(settings.fold.cap).toBe(DEFAULT_FOLD_OPTIONS.cap);
    const names = settings.warnings.map((w) => w.variable);
    expect(names).toContain(`${file} fold.threshold`);
    expect(names).toContain(`${file} fold.cap`);
    expect(names).toContain(`${file} compaction`);
    expect(names).toContain("CONTEXT_FOLD_TAIL");
  });

  test("broken JSON: file, line, column and byte offset in the message; every option at its default", () => {
    const dir = tempDir("cf-config-");
    const file = join(dir, CONFIG_FILE);
    const text = `{\n  "fold": { "threshold": 0.3, },\n  "é": 1\n}\n`;
    writeFileSync(file, text);
    const settings = loadSettings({}, dir);
    expect(settings.fold).toEqual(DEFAULT_FOLD_OPTIONS);
    expect(settings.compaction).toEqual(DEFAULT_COMPACTION_OPTIONS);
    const error = settings.configError;
    expect(error).toBeInstanceOf(ConfigFileError);
    expect(error?.code).toBe("CONFIG_INVALID_JSON");
    expect(error?.file).toBe(file);
    // The trailing comma: the parser stops at the `}` after it, on line 2.
    const at = text.indexOf("}", text.indexOf("0.3,"));
    expect(error?.line).toBe(2);
    expect(error?.column).toBe(at - text.indexOf("\n") );
    expect(error?.offset).toBe(Buffer.byteLength(text.slice(0, at)));
    expect(error?.message).toContain(`${file}:2:${String(error?.column)} (byte ${String(error?.offset)})`);
    expect(error?.message).toContain("Using the defaults");
    // The broken file is left alone for the user to fix.
    expect(readFileSync(file, "utf8")).toBe(text);
    expect(settingsNotices(settings).some((n) => n.includes("not valid JSON"))).toBe(true);
  });

  test("truncated JSON points at the end; a top-level array is refused; byte offsets count UTF-8", () => {
    expect(() => parseConfigText("c.json", '{"fold": {')).toThrow(ConfigFileError);
    try {
      parseConfigText("c.json", '{"fold": {');
    } catch (error) {
      expect((error as ConfigFileError).offset).toBe(10);
    }
    expect(() => parseConfigText("c.json", "[1]")).toThrow(/top level/);
    expect(locate("ab\néé x", 6)).toEqual({ line: 2, column: 4, offset: 8 });
  });

  test("memory: on with a url (the bank id is optional); env overrides the file; a bad url or timeout is reported", () => {
    const dir = tempDir("cf-config-");
    writeFileSync(join(dir, CONFIG_FILE), JSON.stringify({ memory: { url: "http://127.0.0.1:9/", bankId: "from-file", tag: "proj", timeoutMs: 250 } }));
    expect(loadSettings({}, dir).memory).toMatchObject({ url: "http://127.0.0.1:9", bankId: "from-file", apiKey: undefined, tag: "proj", timeoutMs: 250 });
    expect(loadSettings({ CONTEXT_FOLD_HINDSIGHT_BANK: "from-env", CONTEXT_FOLD_HINDSIGHT_API_KEY: "k" }, dir).memory).toMatchObject({ bankId: "from-env", apiKey: "k" });
    const bad = loadSettings({ CONTEXT_FOLD_HINDSIGHT_URL: "ftp://x", CONTEXT_FOLD_HINDSIGHT_TIMEOUT_MS: "1.5" }, dir);
    expect(bad.memory).toBeUndefined();
    expect(bad.warnings.map((w) => w.variable)).toEqual(["CONTEXT_FOLD_HINDSIGHT_TIMEOUT_MS", "CONTEXT_FOLD_HINDSIGHT_URL"]);
    const urlOnly = loadSettings({ CONTEXT_FOLD_CONFIG: "off", CONTEXT_FOLD_HINDSIGHT_URL: "http://127.0.0.1:9" }, dir);
    expect(urlOnly.memory).toEqual({
      url: "http://127.0.0.1:9", bankId: undefined, apiKey: undefined, tag: undefined, timeoutMs: 5000,
      tools: { retain: true, recall: true, reflect: true }, autoRecall: true, recallBudget: 600, recallTimeoutMs: 300,
      recallPersist: false, recallAllProjects: false, autoRetain: true, sharedBank: undefined, optOut: false, outboxMax: 1000, shutdownFlushMs: 1500,
    });
    expect(urlOnly.warnings).toEqual([]);
    const bankOnly = loadSettings({ CONTEXT_FOLD_CONFIG: "off", CONTEXT_FOLD_HINDSIGHT_BANK: "b" }, dir);
    expect(bankOnly.memory).toBeUndefined();
    expect(bankOnly.warnings[0]?.reason).toContain("needs a bank URL");
  });

  test("memory's other keys: one table, one validator — the file's values checked by the schema, variables win, a bad value named by its key", () => {
    const dir = tempDir("cf-config-");
    const file = join(dir, CONFIG_FILE);
    writeFileSync(file, JSON.stringify({ memory: { url: "http://127.0.0.1:9", recallTool: false, recallBudget: 300, sharedBank: "shared-dev", recallPersist: "yes", outboxMax: 0 } }));
    const loaded = loadSettings({ CONTEXT_FOLD_MEMORY_RECALL_BUDGET: "900", CONTEXT_FOLD_MEMORY_SHUTDOWN_FLUSH_MS: "soon" }, dir);
    expect(loaded.memory).toMatchObject({ tools: { retain: true, recall: false, reflect: true }, recallBudget: 900, sharedBank: "shared-dev", recallPersist: false, outboxMax: 1000, shutdownFlushMs: 1500 });
    expect(loaded.warnings).toEqual([
      { variable: `${file} memory.recallPersist`, value: '"yes"', reason: "expected true or false" },
      { variable: `${file} memory.outboxMax`, value: "0", reason: "expected an integer from 1 to 1000000" },
      { variable: "CONTEXT_FOLD_MEMORY_SHUTDOWN_FLUSH_MS", value: "soon", reason: "expected an integer from 0 to 60000" },
    ]);
    // Every memory key is a row of the one table, so the schema and the scaffold hold it.
    for (const key of ["retainTool", "recallTool", "reflectTool", "autoRecall", "recallBudget", "recallTimeoutMs", "recallPersist", "recallAllProjects", "autoRetain", "sharedBank", "optOut", "outboxMax", "shutdownFlushMs"]) {
      expect(SETTINGS.some((s) => s.key === `memory.${key}`), key).toBe(true);
    }
  });

  test("CONTEXT_FOLD_CONFIG: another file, or off (no file read or created)", () => {
    const dir = tempDir("cf-config-");
    const other = join(dir, "elsewhere.json");
    writeFileSync(other, JSON.stringify({ fold: { enabled: false } }));
    expect(loadSettings({ CONTEXT_FOLD_CONFIG: other }, dir).fold.enabled).toBe(false);
    const off = loadSettings({ CONTEXT_FOLD_CONFIG: "off" }, dir);
    expect(off.configFile).toBeUndefined();
    expect(readdirSync(dir)).toEqual(["elsewhere.json"]);
  });

  test("every option is documented in the README table, with its variable", () => {
    const readme = readFileSync(join(import.meta.dirname, "..", "..", "README.md"), "utf8");
    for (const spec of SETTINGS) {
      const row = readme.split("\n").find((line) => line.startsWith(`| \`${spec.key}\``));
      expect(row, spec.key).toBeDefined();
      expect(row).toContain(`\`${spec.variable}\``);
    }
  });

  test("every CONTEXT_FOLD_* variable the fold and compaction resolvers read has a config key", () => {
    const src = join(import.meta.dirname, "..", "..", "src");
    const variables = new Set<string>();
    for (const file of ["options.ts", "compaction/compaction-options.ts"]) {
      for (const m of readFileSync(join(src, file), "utf8").matchAll(/"(CONTEXT_FOLD_[A-Z_]{1,60})"/g)) variables.add(m[1] ?? "");
    }
    expect(variables.size).toBeGreaterThan(10);
    const covered = new Set(SETTINGS.map((s) => s.variable));
    expect([...variables].filter((v) => !covered.has(v))).toEqual([]);
  });

  test("/fold-handoff arguments: --new anywhere; a 1 MB run of spaces is linear", { timeout: LINEAR_TIME_MS }, () => {
    expect(parseHandoffArgs("  finish the  frob --new service ")).toEqual({ goal: "finish the frob service", startNew: true });
    expect(parseHandoffArgs("just a goal")).toEqual({ goal: "just a goal", startNew: false });
    const spaces = " ".repeat(1 << 20);
    expect(parseHandoffArgs(`${spaces}x${spaces}`)).toEqual({ goal: "x", startNew: false });
  });
});
