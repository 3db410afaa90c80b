// `context-fold facts` and `context-fold artifacts`: sessions written by Pi's SessionManager and real fixtures.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { SessionManager } from "@earendil-works/pi-coding-agent";
import { describeShared, sharedFixture, tempDir } from "@context-fold/test-support";
import type { DurableArtifacts, SessionFacts } from "@context-fold/extractors";
import { afterEach, describe, expect, it } from "vitest";
import { cli } from "./support/run-cli.js";

afterEach(() => {
  process.exitCode = 0;
});

const FOUNDING = "Fix the auth bug: users can't log in after a password reset.\nStart with src/auth/session.ts.";
const CORRECTION = "No, actually keep the old signature of refreshToken.";

/** A small session written by Pi's own SessionManager: read, edit, failing tsc, fix, commit. */
function piSession(): string {
  const dir = tempDir();
  const cwd = join(dir, "project");
  const sm = SessionManager.create(cwd, dir);
  const usage = { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
  const assistant = (content: unknown[]) =>
    sm.appendMessage({ role: "assistant", content, api: "anthropic-messages", provider: "anthropic", model: "m", usage, stopReason: "toolUse", timestamp: 1 } as never);
  const result = (id: string, toolName: string, text: string, isError = false) =>
    sm.appendMessage({ role: "toolResult", toolCallId: id, toolName, content: [{ type: "text", text }], isError, timestamp: 1 } as never);
  sm.appendMessage({ role: "user", content: FOUNDING, timestamp: 1 } as never);
  assistant([{ type: "toolCall", id: "c1", name: "read", arguments: { path: `${cwd}/src/auth/session.ts` } }]);
  result("c1", "read", "export function refreshToken(t: string): Promise<Session> {\n}\n");
  assistant([{ type: "toolCall", id: "c2", name: "bash", arguments: { command: "pnpm exec tsc --noEmit" } }]);
  result("c2", "bash", "src/auth/session.ts(5,18): error TS2304: Cannot find name 'authenticateUser'.\n\nCommand exited with code 2", true);
  sm.appendMessage({ role: "user", content: CORRECTION, timestamp: 2 } as never);
  assistant([{ type: "toolCall", id: "c3", name: "edit", arguments: { path: "src/auth/session.ts", oldText: "a", newText: "export function verifyToken(t: string): boolean {" } }]);
  result("c3", "edit", "Successfully replaced text in src/auth/session.ts.");
  assistant([{ type: "toolCall", id: "c4", name: "bash", arguments: { command: "pnpm exec tsc --noEmit" } }]);
  result("c4", "bash", "");
  assistant([{ type: "toolCall", id: "c5", name: "bash", arguments: { command: 'git commit -am "fix(auth): refresh token after reset"' } }]);
  result("c5", "bash", "[main a1b2c3d] fix(auth): refresh token after reset\n 1 file changed, 3 insertions(+)");
  const file = sm.getSessionFile();
  if (file === undefined) throw new Error("SessionManager wrote no file");
  return file;
}

describe("context-fold facts / artifacts on a Pi-written session", () => {
  it("facts --json is the SessionFacts structure", async () => {
    const file = piSession();
    const { stdout, stderr, exit } = await cli(["facts", file, "--json"]);
    expect(stderr).toBe("");
    expect(exit).toBe(0);
    const f = JSON.parse(stdout) as SessionFacts;
    expect(f.goal?.text).toBe(FOUNDING);
    expect(f.commits.map((c) => c.hash)).toEqual(["a1b2c3d"]);
    expect(f.files.map((x) => [x.path, x.status])).toEqual([["src/auth/session.ts", "modified"]]);
    expect(f.files[0]?.symbols).toEqual(["refreshToken", "verifyToken"]);
    expect(f.outstanding.every((o) => o.resolved)).toBe(true);
    expect(f.outstanding.map((o) => o.source).sort()).toEqual(["bash-exit", "tsc"]);
  });

  it("facts prints bracketed sections with (#N) refs", async () => {
    const { stdout, exit } = await cli(["facts", piSession()]);
    expect(exit).toBe(0);
    expect(stdout).toContain("[Session Goal]\n- Fix the auth bug: users can't log in after a password reset. Start with src/auth/session.ts. (#0)");
    expect(stdout).toContain("[Commits]\n- a1b2c3d: fix(auth): refresh token after reset on main (#");
    expect(stdout).toContain("- Modified: src/auth/session.ts (refreshToken, verifyToken)");
    expect(stdout).toMatch(/\[RESOLVED\] \[tsc\] src\/auth\/session\.ts\(5,18\): error TS2304/);
    expect(stdout).toContain("[Earlier Turns]");
  });

  it("artifacts --json and text keep prompts and corrections verbatim, in priority order", async () => {
    const file = piSession();
    const json = await cli(["artifacts", file, "--json"]);
    expect(json.exit).toBe(0);
    const a = JSON.parse(json.stdout) as DurableArtifacts;
    expect(a.initialPrompts.map((p) => p.text)).toEqual([FOUNDING]);
    expect(a.corrections.map((c) => c.text)).toEqual([CORRECTION]);
    expect(a.workingCommands.map((w) => w.command)).toEqual(["pnpm exec tsc --noEmit"]);
    expect(a.files).toEqual(["src/auth/session.ts"]);
    const text = await cli(["artifacts", file]);
    const order = ["initial_prompts", "corrections", "error_ledger", "working_commands", "hex_constants", "files"].map((h) => text.stdout.indexOf(`${h} (`));
    expect(order.every((x) => x >= 0)).toBe(true);
    expect([...order].sort((x, y) => x - y)).toEqual(order);
    expect(text.stdout).toContain("    Fix the auth bug: users can't log in after a password reset.\n    Start with src/auth/session.ts.");
  });

  it("unreadable input exits 2 with a one-line message", async () => {
    const missing = await cli(["facts", join(tempDir(), "nope.jsonl")]);
    expect(missing.exit).toBe(2);
    expect(missing.stdout).toBe("");
    expect(missing.stderr).toMatch(/^context-fold: /);
    expect(missing.stderr).not.toMatch(/\n\s+at /);
    const dir = await cli(["artifacts", tempDir(), "--json"]);
    expect(dir.exit).toBe(2);
    const junk = join(tempDir(), "junk.jsonl");
    writeFileSync(junk, "not json\n");
    const r = await cli(["facts", junk]);
    expect(r.exit).toBe(2);
    expect(r.stderr).toMatch(/^context-fold: /);
  });
});

describeShared("context-fold facts / artifacts on fixtures", () => {
  it("before-compaction: JSON documents parse and carry the founding request", async () => {
    const file = sharedFixture("sessions", "pi-mono__before-compaction.jsonl");
    const facts = await cli(["facts", file, "--json"]);
    const artifacts = await cli(["artifacts", file, "--json"]);
    expect(facts.exit).toBe(0);
    expect(artifacts.exit).toBe(0);
    const f = JSON.parse(facts.stdout) as SessionFacts;
    const a = JSON.parse(artifacts.stdout) as DurableArtifacts;
    expect(a.initialPrompts[0]?.text.length).toBeGreaterThan(0);
    expect(f.files.length).toBeGreaterThan(5);
    const again = await cli(["facts", file, "--json"]);
    expect(again.stdout).toBe(facts.stdout);
  });
});
