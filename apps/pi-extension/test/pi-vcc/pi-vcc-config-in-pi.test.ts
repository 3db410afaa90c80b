// pi-vcc's config inside a real, headless Pi: its model thresholds take effect (with the notice saying
// what was taken over), are ignored with a notice where ours were set, PI_VCC_CONFIG_PATH is honoured,
// and a notice names the compactor in charge when pi-vcc is loaded beside us.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { afterEach, describe, expect, test } from "vitest";
import { tempDir } from "@context-fold/test-support";
import { CONFIG_FILE } from "../../src/config/config-file.js";
import { PI_VCC_CONFIG_FILE } from "../../src/config/pi-vcc-config.js";
import { compactions, FOUNDING, jobModel, startPiWith, waitFor } from "../compaction/support/compaction-pi.js";
import type { HeadlessPi } from "../support/headless-pi.js";

const WINDOW = 20_000;
const NO_FOLDS = { CONTEXT_FOLD_ENABLED: "0" };
const SETTINGS = { compaction: { enabled: false, keepRecentTokens: 2000 } };
const PI_VCC = { modelThresholds: { "faux/faux-fold": { compactPercent: 30, keepRecentTokens: 5000 } }, overrideDefaultCompaction: true, debug: false };

async function runJobs(pi: HeadlessPi, n: number): Promise<void> {
  await pi.session.prompt(FOUNDING);
  for (let i = 1; i <= n; i++) {
    await pi.session.prompt(`job ${String(i)}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
    await waitFor(() => !pi.session.isCompacting, "a running compaction");
  }
}

function notice(pi: HeadlessPi, needle: string): string[] {
  return pi.notices.filter((n) => n.text.includes(needle)).map((n) => n.text);
}

describe("pi-vcc's config in a headless Pi", () => {
  let pi: HeadlessPi | undefined;
  afterEach(() => pi?.dispose());

  test("pi-vcc's model threshold (agent dir) takes effect, with one notice of what was and was not taken", async () => {
    const dir = tempDir("pi-vcc-config-");
    writeFileSync(join(dir, PI_VCC_CONFIG_FILE), JSON.stringify(PI_VCC));
    pi = await startPiWith(NO_FOLDS, { dir, contextWindow: WINDOW, respond: jobModel, settings: SETTINGS });
    const [told, ...more] = notice(pi, "pi-vcc's config");
    expect(more).toEqual([]);
    expect(told).toContain(join(dir, PI_VCC_CONFIG_FILE));
    expect(told).toContain("Took over: modelThresholds, overrideDefaultCompaction.");
    expect(told).toContain("keepRecentTokens (faux/faux-fold)");
    await runJobs(pi, 5);
    expect(compactions(pi.manager).length).toBeGreaterThanOrEqual(1);
    expect(notice(pi, "threshold (model:faux/faux-fold)").length).toBeGreaterThanOrEqual(1);
  }, 60_000);

  test("PI_VCC_CONFIG_PATH is honoured; where ours is set (context-fold.json), pi-vcc's threshold is ignored with a notice", async () => {
    const dir = tempDir("pi-vcc-config-ours-");
    const elsewhere = join(tempDir("pi-vcc-config-path-"), "custom");
    mkdirSync(elsewhere, { recursive: true });
    const vccFile = join(elsewhere, "vcc.json");
    writeFileSync(vccFile, JSON.stringify({ ...PI_VCC, overrideDefaultCompaction: undefined }));
    writeFileSync(join(dir, CONFIG_FILE), JSON.stringify({ compaction: { modelThresholds: { "faux/faux-fold": { compactPercent: 95 } } } }));
    pi = await startPiWith({ ...NO_FOLDS, PI_VCC_CONFIG_PATH: vccFile }, { dir, contextWindow: WINDOW, respond: jobModel, settings: SETTINGS });
    const [told] = notice(pi, "pi-vcc's config");
    expect(told).toContain(vccFile);
    expect(told).toContain("Took over nothing.");
    expect(told).toContain(`modelThresholds (compaction.modelThresholds is set in ${join(dir, CONFIG_FILE)})`);
    await runJobs(pi, 5);
    expect(compactions(pi.manager)).toHaveLength(0);
  }, 60_000);

  test("an environment variable counts as set: CONTEXT_FOLD_THRESHOLDS wins over pi-vcc's, and the notice says so", async () => {
    const dir = tempDir("pi-vcc-config-env-");
    writeFileSync(join(dir, PI_VCC_CONFIG_FILE), JSON.stringify(PI_VCC));
    const thresholds = JSON.stringify({ globalThreshold: { compactPercent: 95 } });
    pi = await startPiWith({ ...NO_FOLDS, CONTEXT_FOLD_THRESHOLDS: thresholds }, { dir, contextWindow: WINDOW, respond: jobModel, settings: SETTINGS });
    expect(notice(pi, "pi-vcc's config")[0]).toContain("modelThresholds (CONTEXT_FOLD_THRESHOLDS is set)");
    await runJobs(pi, 5);
    expect(compactions(pi.manager)).toHaveLength(0);
  }, 60_000);

  test("pi-vcc loaded after us: a notice names it as the compactor in charge", async () => {
    const piVcc = (pi: ExtensionAPI): void => {
      pi.registerCommand("pi-vcc", { description: "pi-vcc's compact", handler: () => Promise.resolve() });
    };
    pi = await startPiWith({}, { dir: tempDir("pi-vcc-in-charge-"), contextWindow: WINDOW, respond: jobModel, settings: SETTINGS, extensionFactories: [piVcc] });
    const told = notice(pi, "pi-vcc is loaded too");
    expect(told).toHaveLength(1);
    expect(told[0]).toContain("pi-vcc writes the compaction summary");
  }, 60_000);

  test("without pi-vcc: no compactor notice, no config notice", async () => {
    pi = await startPiWith({}, { dir: tempDir("pi-vcc-none-"), contextWindow: WINDOW, respond: jobModel, settings: SETTINGS });
    expect([...notice(pi, "pi-vcc's config"), ...notice(pi, "pi-vcc is loaded")]).toEqual([]);
  }, 60_000);
});

describe("another compactor's summary in a headless Pi", () => {
  test("an extension loaded after us returns its own summary: Pi keeps it and one notice says so", async () => {
    const other = (pi: ExtensionAPI): void => {
      pi.on("session_before_compact", (event) => ({ compaction: { summary: "OTHER-SUMMARY", firstKeptEntryId: event.preparation.firstKeptEntryId, tokensBefore: event.preparation.tokensBefore } }));
    };
    const pi = await startPiWith({}, { dir: tempDir("pi-vcc-foreign-"), contextWindow: WINDOW, respond: jobModel, settings: SETTINGS, extensionFactories: [other] });
    try {
      await pi.session.prompt(FOUNDING);
      for (let n = 1; n <= 3; n++) await pi.session.prompt(`job ${String(n)}`);
      await pi.session.compact();
      expect(compactions(pi.manager)[0]?.summary).toBe("OTHER-SUMMARY");
      expect(notice(pi, "written by another extension")).toHaveLength(1);
      for (let n = 4; n <= 6; n++) await pi.session.prompt(`job ${String(n)}`);
      await pi.session.compact();
      expect(compactions(pi.manager)).toHaveLength(2);
      expect(notice(pi, "written by another extension")).toHaveLength(1);
    } finally {
      pi.dispose();
    }
  }, 60_000);

  test("our own summary: no such notice", async () => {
    const pi = await startPiWith({}, { dir: tempDir("pi-vcc-own-"), contextWindow: WINDOW, respond: jobModel, settings: SETTINGS });
    try {
      await pi.session.prompt(FOUNDING);
      for (let n = 1; n <= 3; n++) await pi.session.prompt(`job ${String(n)}`);
      await pi.session.compact();
      expect(compactions(pi.manager)[0]?.fromHook).toBe(true);
      expect(notice(pi, "written by another extension")).toEqual([]);
    } finally {
      pi.dispose();
    }
  }, 60_000);
});
