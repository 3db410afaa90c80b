// A small session written by Pi's own SessionManager (read, failing tsc, correction, edit, commit, …),
// shared by the tests of this package.
import { join } from "node:path";
import { SessionManager } from "@earendil-works/pi-coding-agent";
import { createFactsAccumulator } from "@context-fold/extractors";
import type { CutPlan } from "@context-fold/summary-formatter";

export const FOUNDING = "Fix the auth bug: users can't log in after a password reset.\nStart with src/auth/session.ts and keep the public API.";
export const CORRECTION = "No, actually keep the old signature of refreshToken.";

const usage = { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };

export interface PiWriter {
  readonly sm: SessionManager;
  readonly file: string;
  readonly cwd: string;
  user(text: string): void;
  assistant(content: unknown[]): void;
  result(id: string, toolName: string, text: string, isError?: boolean): void;
}

let clock = Date.parse("2026-03-01T09:00:00.000Z");

export function piWriter(dir: string): PiWriter {
  const cwd = join(dir, "project");
  const sm = SessionManager.create(cwd, dir);
  const tick = (): number => (clock += 1000);
  const w: PiWriter = {
    sm,
    cwd,
    get file(): string {
      return sm.getSessionFile() ?? "";
    },
    user: (text) => void sm.appendMessage({ role: "user", content: text, timestamp: tick() } as never),
    assistant: (content) =>
      void sm.appendMessage({ role: "assistant", content, api: "anthropic-messages", provider: "anthropic", model: "m", usage, stopReason: "toolUse", timestamp: tick() } as never),
    result: (id, toolName, text, isError = false) =>
      void sm.appendMessage({ role: "toolResult", toolCallId: id, toolName, content: [{ type: "text", text }], isError, timestamp: tick() } as never),
  };
  return w;
}

/** The auth-bug session: two user turns of work, a correction, a commit, an open failing test, a last ask. */
export function authSession(dir: string): PiWriter {
  const w = piWriter(dir);
  const { cwd } = w;
  w.user(FOUNDING);
  w.assistant([{ type: "text", text: "Let me read the session module first." }, { type: "toolCall", id: "c1", name: "read", arguments: { path: `${cwd}/src/auth/session.ts` } }]);
  w.result("c1", "read", "export function refreshToken(t: string): Promise<Session> {\n  return renew(t);\n}\nexport interface Session {\n  token: string;\n}\n");
  w.assistant([{ type: "toolCall", id: "c2", name: "bash", arguments: { command: "pnpm exec tsc --noEmit" } }]);
  w.result("c2", "bash", "src/auth/session.ts(5,18): error TS2304: Cannot find name 'authenticateUser'.\n\nCommand exited with code 2", true);
  w.user(CORRECTION);
  w.assistant([{ type: "toolCall", id: "c3", name: "edit", arguments: { path: "src/auth/session.ts", oldText: "a", newText: "export function verifyToken(t: string): boolean {" } }]);
  w.result("c3", "edit", "Successfully replaced text in src/auth/session.ts.");
  w.assistant([{ type: "toolCall", id: "c4", name: "bash", arguments: { command: "pnpm exec tsc --noEmit" } }]);
  w.result("c4", "bash", "");
  w.assistant([{ type: "toolCall", id: "c5", name: "bash", arguments: { command: 'git commit -am "fix(auth): refresh token after reset"' } }]);
  w.result("c5", "bash", "[main 1a2b3c4] fix(auth): refresh token after reset\n 1 file changed, 3 insertions(+)");
  w.assistant([{ type: "toolCall", id: "c6", name: "bash", arguments: { command: "pnpm test" } }]);
  w.result("c6", "bash", " FAIL  test/auth.test.ts > refresh token should work\nTests  1 failed | 4 passed\n\nCommand exited with code 1", true);
  w.assistant([{ type: "text", text: "The refresh test still fails. Next, I will check the token expiry handling in src/auth/expiry.ts." }]);
  w.user("Also always run the whole test suite before committing.");
  w.assistant([{ type: "toolCall", id: "c7", name: "read", arguments: { path: `${cwd}/src/auth/expiry.ts` } }]);
  w.result("c7", "read", "export const EXPIRY_MS = 0x36EE80;\n");
  w.assistant([{ type: "text", text: "Expiry is one hour; checking the test next." }]);
  return w;
}

/** A CSV-importer session of `batches` turns (a read, an ask, an answer each), ending on a last ask. */
export function importerSession(dir: string, founding: string, batches: number): PiWriter {
  const w = piWriter(dir);
  w.user(founding);
  for (let k = 1; k <= batches; k++) {
    w.assistant([{ type: "toolCall", id: `c${String(k)}`, name: "read", arguments: { path: `src/importer/part-${String(k)}.ts` } }]);
    w.result(`c${String(k)}`, "read", `export function part${String(k)}(): number { return ${String(k)}; }`);
    w.user(`Now make batch ${String(k)} stream its rows and report the byte offset of a bad quote in row ${String(k * 7)}.`);
    w.assistant([{ type: "text", text: `Batch ${String(k)} streams; the offset is reported (→ ${String(k)}).` }]);
  }
  w.user("Carry on with the next batch.");
  return w;
}

/** Facts and artifacts from scratch of the lineage before `plan`'s cut, as `compactSession` extracts them (the extension feeds the same beforehand). */
export function factsBefore(plan: CutPlan, cwd: string | undefined): { facts: ReturnType<ReturnType<typeof createFactsAccumulator>["facts"]>; artifacts: ReturnType<ReturnType<typeof createFactsAccumulator>["artifacts"]> } {
  const acc = createFactsAccumulator(cwd === undefined ? {} : { cwd });
  acc.add(plan.lineageBefore);
  return { facts: acc.facts(), artifacts: acc.artifacts() };
}
