// The config file inside a real Pi: scaffolded in Pi's agent dir on first load; a user's file (unknown
// keys and all) read without being rewritten and applied; a broken file reported clearly (file, line,
// column, byte offset) with every option at its default; debug snapshots written where the config says.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { tempDir } from "@context-fold/test-support";
import { CONFIG_FILE } from "../../src/config/config-file.js";
import { SCHEMA_FILE } from "../../src/config/config-schema.js";
import { snapshotPath } from "../../src/config/debug-snapshots.js";
import { FOUNDING, startRuntimePi } from "../support/runtime-pi.js";

const WINDOW = 20_000;

/** `/context-fold` status text: the fold threshold the extension runs with shows as "(NN.N% of the window)". */
async function statusOf(pi: Awaited<ReturnType<typeof startRuntimePi>>): Promise<string> {
  const before = pi.notices.length;
  await pi.session.prompt("/context-fold");
  return pi.notices.slice(before).map((n) => n.text).join("\n");
}

describe("config file in a headless Pi", () => {
  test("first load scaffolds <agentDir>/context-fold.json and says so; the next load leaves it alone", async () => {
    const dir = tempDir("pi-config-");
    const agentDir = join(dir, "agent");
    const pi = await startRuntimePi({ dir, agentDir, contextWindow: WINDOW });
    const file = join(agentDir, CONFIG_FILE);
    try {
      expect(existsSync(file)).toBe(true);
      // The scaffold names its JSON Schema, written beside it.
      expect((JSON.parse(readFileSync(file, "utf8")) as { $schema?: string }).$schema).toBe(`./${SCHEMA_FILE}`);
      expect(existsSync(join(agentDir, SCHEMA_FILE))).toBe(true);
      expect(pi.notices.some((n) => n.text.includes(`created ${file}`))).toBe(true);
    } finally {
      await pi.dispose();
    }
    const text = readFileSync(file, "utf8");
    const again = await startRuntimePi({ dir, agentDir, contextWindow: WINDOW });
    try {
      expect(readFileSync(file, "utf8")).toBe(text);
      expect(again.notices.some((n) => n.text.includes("created"))).toBe(false);
    } finally {
      await again.dispose();
    }
  }, 60_000);

  test("a user's file with unknown keys is applied and stays byte-identical; an env variable still wins", async () => {
    const dir = tempDir("pi-config-user-");
    const file = join(dir, CONFIG_FILE);
    const text = `{\n  "x-team": {"owner": "ops"},\n  "fold": {"threshold": 0.3, "later": true}\n}\n`;
    writeFileSync(file, text);
    const pi = await startRuntimePi({ dir, contextWindow: WINDOW });
    try {
      await pi.session.prompt(FOUNDING);
      expect(await statusOf(pi)).toContain("(30.0% of the window)");
      expect(pi.notices.filter((n) => n.level !== "info")).toEqual([]);
    } finally {
      await pi.dispose();
    }
    expect(readFileSync(file, "utf8")).toBe(text);
    const overridden = await startRuntimePi({ dir, contextWindow: WINDOW, env: { CONTEXT_FOLD_THRESHOLD: "0.4" } });
    try {
      await overridden.session.prompt(FOUNDING);
      expect(await statusOf(overridden)).toContain("(40.0% of the window)");
    } finally {
      await overridden.dispose();
    }
    expect(readFileSync(file, "utf8")).toBe(text);
  }, 60_000);

  test("a broken file: a clear message naming file:line:column and the byte offset; Pi works with the defaults", async () => {
    const dir = tempDir("pi-config-broken-");
    const file = join(dir, CONFIG_FILE);
    const text = `{\n  "fold": {"threshold": 0.3,\n}\n`;
    writeFileSync(file, text);
    const pi = await startRuntimePi({ dir, contextWindow: WINDOW });
    try {
      const notice = pi.notices.find((n) => n.text.includes("not valid JSON"));
      expect(notice?.text).toMatch(new RegExp(`${file.replaceAll(/[.*+?^${}()|[\]\\/]/g, "\\$&")}:3:1 \\(byte \\d+\\)`));
      expect(notice?.text).toContain("Using the defaults");
      await pi.session.prompt(FOUNDING);
      await pi.session.prompt("job 1");
      // The default threshold (45 %) applies, and Pi answered both prompts.
      expect(await statusOf(pi)).toContain("(45.0% of the window)");
      expect(pi.calls.length).toBeGreaterThanOrEqual(3);
    } finally {
      await pi.dispose();
    }
    expect(readFileSync(file, "utf8")).toBe(text);
  }, 60_000);

  test("debug snapshots: with debugDir, one JSON file per session after a compaction, where the config says", async () => {
    const dir = tempDir("pi-config-debug-");
    writeFileSync(join(dir, CONFIG_FILE), JSON.stringify({ debugDir: "debug-out" }));
    const pi = await startRuntimePi({ dir, contextWindow: WINDOW, settings: { compaction: { enabled: false, keepRecentTokens: 2000 } } });
    try {
      await pi.session.prompt(FOUNDING);
      for (let n = 1; n <= 4; n++) await pi.session.prompt(`job ${String(n)}`);
      await pi.session.compact();
      const file = snapshotPath(join(dir, "debug-out"), pi.session.sessionManager.getSessionId());
      const deadline = performance.now() + 10_000;
      while (!existsSync(file) && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      const snapshot = JSON.parse(readFileSync(file, "utf8")) as { sessionId: string; compaction: { fromHook: boolean; summaryHead: string; firstKeptEntryId: string } };
      expect(snapshot.sessionId).toBe(pi.session.sessionManager.getSessionId());
      expect(snapshot.compaction.fromHook).toBe(true);
      expect(snapshot.compaction.summaryHead).toContain(FOUNDING);
      expect(pi.session.sessionManager.getEntries().some((e) => e.id === snapshot.compaction.firstKeptEntryId)).toBe(true);
    } finally {
      await pi.dispose();
    }
  }, 60_000);
});
