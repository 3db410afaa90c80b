// `cache` lists what is kept beside each session; `cache clean` removes exactly the derived files (recall
// caches, tails, block tables) and nothing else — not the session, the seed index, a handoff, artifacts,
// retained memories, an outbox or a ledger, nor any file of a session written in the last hour.
import { existsSync, readdirSync, realpathSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { SessionManager } from "@earendil-works/pi-coding-agent";
import { historyDirFor } from "@context-fold/recall-engine";
import { seedIndexPath } from "@context-fold/seed-index-format";
import { tempDir } from "@context-fold/test-support";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { cli } from "./support/run-cli.js";

const usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };

function piSession(cwd: string, dir: string, word: string): { file: string; id: string } {
  const manager = SessionManager.create(cwd, dir);
  for (let i = 0; i < 3; i++) {
    manager.appendMessage({ role: "user", content: [{ type: "text", text: `look at ${word} ${String(i)}` }], timestamp: Date.UTC(2026, 10, 1, 9, i) });
    manager.appendMessage({ role: "assistant", content: [{ type: "text", text: `${word} looked at, step ${String(i)}` }], api: "faux", provider: "faux", model: "faux-1", usage, stopReason: "stop", timestamp: Date.UTC(2026, 10, 1, 9, i, 1) });
  }
  return { file: manager.getSessionFile() ?? "", id: manager.getSessionId() };
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

/** Every file under `dir` dated `days` ago. */
function age(dir: string, days: number): void {
  const when = new Date(Date.now() - days * 86_400_000);
  for (const f of filesUnder(dir)) utimesSync(f, when, when);
}

describe("context-fold cache", () => {
  const root = realpathSync(tempDir("cli-cache-"));
  const agentDir = join(root, "agent");
  const sessions = join(agentDir, "sessions");
  const saved = process.env["PI_CODING_AGENT_DIR"];
  const savedState = process.env["XDG_STATE_HOME"];
  // Histories go to the state folder: a temporary one, apart from `root` (whose files the tests compare).
  const state = realpathSync(tempDir("cli-cache-state-"));
  let historyDir: string;
  let old: { file: string; id: string };
  let recent: { file: string; id: string };
  let oldFolder: string;
  let derived: string[];

  beforeAll(async () => {
    process.env["PI_CODING_AGENT_DIR"] = agentDir;
    process.env["XDG_STATE_HOME"] = state;
    old = piSession(root, join(sessions, "old"), "alpha");
    recent = piSession(root, join(sessions, "recent"), "bravo");
    for (const s of [old, recent]) {
      expect((await cli(["index", s.file, "--now", "2026-11-01T10:00:00Z"])).exit).toBe(0);
      expect((await cli(["recall", s.file, "looked"])).exit).toBe(0); // writes the recall cache and block table
    }
    expect((await cli(["handoff", old.file, "--now", "2026-11-01T10:00:00Z"])).exit).toBe(0);
    oldFolder = dirname(seedIndexPath(old.file, old.id));
    // What the extension and the memory jobs keep there: never derived.
    for (const name of ["durable-artifacts.json", "memory-retained.json", "memory-outbox.jsonl", "garden-ledger.jsonl"]) writeFileSync(join(oldFolder, name), "{}\n");
    // A block table of the earlier JSON format, left by an older version: derived too, so `clean` removes it.
    writeFileSync(join(oldFolder, "recall-index.bin.blocks.json"), "{}\n");
    derived = [join(oldFolder, "recall-index.bin"), join(oldFolder, "recall-index.bin.blocks"), join(oldFolder, "recall-index.bin.blocks.json")];
    for (const f of derived) expect(existsSync(f), f).toBe(true);
    expect((await cli(["recall", "--sessions", "looked"])).exit).toBe(0); // writes the history index of the folder
    historyDir = historyDirFor(sessions);
    expect(historyDir.startsWith(state)).toBe(true);
    age(join(sessions, "old"), 2);
    // The recent session's derived files are old, but the session itself was written a minute ago.
    age(dirname(seedIndexPath(recent.file, recent.id)), 2);
    const now = new Date(Date.now() - 60_000);
    utimesSync(recent.file, now, now);
  });
  afterEach(() => {
    process.exitCode = 0;
  });
  afterAll(() => {
    if (saved === undefined) delete process.env["PI_CODING_AGENT_DIR"];
    else process.env["PI_CODING_AGENT_DIR"] = saved;
    if (savedState === undefined) delete process.env["XDG_STATE_HOME"];
    else process.env["XDG_STATE_HOME"] = savedState;
  });

  it("lists every kept file of every session in Pi's folder, by kind, with size and age", async () => {
    const r = await cli(["cache", "--json"]);
    expect(r.exit, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as { sessionsDir: string; sessions: { id: string; files: { path: string; kind: string; bytes: number; derived: boolean }[] }[] };
    expect(doc.sessionsDir).toBe(sessions);
    const listed = doc.sessions.find((s) => s.id === old.id);
    expect(listed?.files.map((f) => f.path).sort()).toEqual(filesUnder(oldFolder));
    const kinds = Object.fromEntries((listed?.files ?? []).map((f) => [f.path.slice(oldFolder.length + 1), f.kind]));
    expect(kinds).toMatchObject({ "seed-index.jsonl": "seed-index", "recall-index.bin": "recall-cache", "recall-index.bin.blocks": "block-table", "recall-index.bin.blocks.json": "block-table", [`handoff-${old.id}.md`]: "handoff", "durable-artifacts.json": "artifacts", "memory-retained.json": "memory-retained", "memory-outbox.jsonl": "other" });
    for (const f of listed?.files ?? []) expect(f.bytes).toBe(statSync(f.path).size);
    expect((doc as unknown as { histories: { dir: string; sessionsDir: string; sessions: number }[] }).histories).toEqual([expect.objectContaining({ dir: historyDir, sessionsDir: sessions, sessions: 2 })]);
    const human = await cli(["cache", old.file]);
    expect(human.stdout).toContain("seed-index");
    expect(human.stdout).toMatch(/recall-cache\s+[\d.]+ (B|KiB)\s+2d/);
  });

  it("clean --dry-run lists exactly the derived files of sessions not written within the hour, and removes nothing", async () => {
    const before = filesUnder(root);
    const r = await cli(["cache", "clean", "--dry-run", "--json"]);
    expect(r.exit, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as { dryRun: boolean; removed: { path: string }[]; recentSessions: string[] };
    expect(doc.dryRun).toBe(true);
    expect(doc.removed.map((f) => f.path).sort()).toEqual([...derived, historyDir].sort());
    expect(doc.recentSessions).toEqual([recent.file]);
    expect(filesUnder(root)).toEqual(before);
    expect(existsSync(historyDir)).toBe(true);
  });

  it("--older-than leaves files younger than it", async () => {
    const r = await cli(["cache", "clean", "--older-than", "30d", "--json"]);
    expect((JSON.parse(r.stdout) as { removed: unknown[] }).removed).toEqual([]);
    expect((await cli(["cache", "clean", "--older-than", "soon"])).exit).toBe(2);
  });

  it("clean removes only the derived files", async () => {
    const before = filesUnder(root);
    const r = await cli(["cache", "clean"]);
    expect(r.exit, r.stderr).toBe(0);
    expect(filesUnder(root)).toEqual(before.filter((f) => !derived.includes(f)));
    expect(existsSync(historyDir)).toBe(false);
    expect(r.stdout).toContain("freed");
  });
});
