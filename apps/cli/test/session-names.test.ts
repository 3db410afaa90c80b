// Naming a session: a path, a session id or a unique id prefix in Pi's sessions folder (found the way Pi
// finds it), or `latest`; an ambiguous prefix exits 2 listing the candidates. Sessions written by Pi's
// own SessionManager into a temporary agent dir.
import { mkdirSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SessionManager } from "@earendil-works/pi-coding-agent";
import { piSessionsDir, resolveSessionName } from "@context-fold/recall-engine";
import { tempDir } from "@context-fold/test-support";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { cli } from "./support/run-cli.js";

const usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };

/** A Pi-written session with one exchange, started at `at` (the header's timestamp) in `cwd`. */
function piSession(cwd: string, sessionsDir: string, id: string, at: number, word: string): string {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(at);
  try {
    const manager = SessionManager.create(cwd, sessionsDir, { id });
    manager.appendMessage({ role: "user", content: [{ type: "text", text: `please look at ${word}` }], timestamp: at });
    manager.appendMessage({ role: "assistant", content: [{ type: "text", text: `looked at ${word}` }], api: "faux", provider: "faux", model: "faux-1", usage, stopReason: "stop", timestamp: at + 1 });
    return manager.getSessionFile() ?? "";
  } finally {
    vi.useRealTimers();
  }
}

describe("naming a session", () => {
  const root = realpathSync(tempDir("cli-session-names-"));
  const agentDir = join(root, "agent");
  const project = join(root, "project");
  const elsewhere = join(root, "elsewhere");
  const sessions = join(agentDir, "sessions");
  const saved = { env: process.env["PI_CODING_AGENT_DIR"], sessionEnv: process.env["PI_CODING_AGENT_SESSION_DIR"], cwd: process.cwd() };
  const files: Record<string, string> = {};

  beforeAll(() => {
    mkdirSync(project, { recursive: true });
    mkdirSync(elsewhere, { recursive: true });
    const t = Date.UTC(2026, 10, 1, 9, 0, 0);
    files["old"] = piSession(project, join(sessions, "p"), "aaaa1111-0000-4000-8000-000000000001", t, "alpha");
    files["new"] = piSession(project, join(sessions, "p"), "aaaa2222-0000-4000-8000-000000000002", t + 3_600_000, "bravo");
    // Newer still, but another project's: not `latest` from the project directory.
    files["other"] = piSession(elsewhere, join(sessions, "e"), "bbbb3333-0000-4000-8000-000000000003", t + 7_200_000, "charlie");
    process.env["PI_CODING_AGENT_DIR"] = agentDir;
    delete process.env["PI_CODING_AGENT_SESSION_DIR"];
    process.chdir(project);
  });
  afterEach(() => {
    process.exitCode = 0;
  });
  afterAll(() => {
    process.chdir(saved.cwd);
    if (saved.env === undefined) delete process.env["PI_CODING_AGENT_DIR"];
    else process.env["PI_CODING_AGENT_DIR"] = saved.env;
    if (saved.sessionEnv !== undefined) process.env["PI_CODING_AGENT_SESSION_DIR"] = saved.sessionEnv;
  });

  it("the sessions folder is PI_CODING_AGENT_DIR's, unless Pi's sessionDir setting or variable says otherwise", () => {
    expect(piSessionsDir()).toBe(sessions);
    writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ sessionDir: "custom" }));
    expect(piSessionsDir()).toBe(join(project, "custom")); // relative: from the working directory, as Pi reads it
    expect(piSessionsDir({ env: { PI_CODING_AGENT_DIR: agentDir, PI_CODING_AGENT_SESSION_DIR: "/x/y" } })).toBe("/x/y");
    writeFileSync(join(agentDir, "settings.json"), "{}");
    expect(piSessionsDir()).toBe(sessions);
  });

  it("an id, a unique id prefix and `latest` name the right session", async () => {
    expect(resolveSessionName("aaaa1111-0000-4000-8000-000000000001")).toBe(files["old"]);
    expect(resolveSessionName("aaaa2")).toBe(files["new"]);
    expect(resolveSessionName("bbbb")).toBe(files["other"]);
    expect(resolveSessionName("latest")).toBe(files["new"]);
    expect(resolveSessionName("latest", { cwd: elsewhere })).toBe(files["other"]);
    const byPrefix = await cli(["inspect", "aaaa1", "--json"]);
    expect(byPrefix.exit).toBe(0);
    expect((JSON.parse(byPrefix.stdout) as { sessionId: string }).sessionId).toBe("aaaa1111-0000-4000-8000-000000000001");
    const latest = await cli(["recall", "latest", "bravo", "--json", "--no-cache"]);
    expect(latest.exit).toBe(0);
    expect(latest.stdout).toContain("bravo");
  });

  it("an existing path wins, and a missing .jsonl path is named as a missing file", async () => {
    const local = join(project, "aaaa1");
    writeFileSync(local, "");
    try {
      expect(resolveSessionName("aaaa1")).toBe(local);
    } finally {
      rmSync(local);
    }
    const r = await cli(["inspect", "nothing-here.jsonl"]);
    expect(r.exit).toBe(2);
    expect(r.stderr).toContain("nothing-here.jsonl");
  });

  it("an ambiguous prefix exits 2 and lists every candidate", async () => {
    const r = await cli(["inspect", "aaaa"]);
    expect(r.exit).toBe(2);
    expect(r.stderr).toContain("aaaa1111-0000-4000-8000-000000000001");
    expect(r.stderr).toContain("aaaa2222-0000-4000-8000-000000000002");
    expect(r.stderr).not.toContain("bbbb3333");
    const json = await cli(["compact", "aaaa", "--json"]);
    expect(json.exit).toBe(2);
    expect((JSON.parse(json.stdout) as { error: { code: string } }).error.code).toBe("AMBIGUOUS_SESSION");
  });

  it("`recall --sessions <query>` searches Pi's folder for the query instead of taking it as the folder", async () => {
    const r = await cli(["recall", "--sessions", "charlie", "--json", "--no-cache"]);
    expect(r.exit, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout) as { sessions: number; total: number; query: string };
    expect(result.query).toBe("charlie");
    expect(result.sessions).toBe(3);
    expect(result.total).toBeGreaterThan(0);
    const inFolder = await cli(["recall", "--sessions", join(sessions, "p"), "alpha", "--json", "--no-cache"]);
    expect((JSON.parse(inFolder.stdout) as { sessions: number }).sessions).toBe(2);
  });
});
