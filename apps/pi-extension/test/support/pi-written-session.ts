// Sessions written by Pi's own SessionManager (real files), and the context messages Pi builds from them.
import { SessionManager } from "@earendil-works/pi-coding-agent";

export interface WrittenSession {
  readonly manager: SessionManager;
  readonly file: string;
  /** The messages Pi would hand the `context` event (system messages excluded). */
  messages(): Record<string, unknown>[];
}

const usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };

/** `rows` lines of output for job n, with `NEEDLE-n` in the middle. */
export function jobOutput(n: number, rows = 100): string {
  const lines = Array.from({ length: rows }, (_, i) => `job ${String(n)} row ${String(i)}: the quick brown fox jumps over the lazy dog`);
  lines.splice(rows / 2, 0, `NEEDLE-${String(n)}`);
  return lines.join("\n");
}

/** A session of `jobs` turns: user asks, assistant thinks and calls bash, the tool answers, assistant replies. */
export function writeJobSession(cwd: string, dir: string, jobs: number, options: { thinkingChars?: number; rows?: number } = {}): WrittenSession {
  const manager = SessionManager.create(cwd, dir);
  let t = Date.UTC(2026, 10, 29, 12, 0, 0);
  for (let n = 1; n <= jobs; n++) appendJob(manager, n, (t += 60_000), options);
  return {
    manager,
    file: manager.getSessionFile() ?? "",
    messages: () => manager.buildSessionContext().messages.filter((m) => m.role !== "system") as unknown as Record<string, unknown>[],
  };
}

export function appendJob(manager: SessionManager, n: number, at: number, options: { thinkingChars?: number; rows?: number } = {}): void {
  const thinking = `plan for job ${String(n)}: `.padEnd(options.thinkingChars ?? 2000, "x");
  manager.appendMessage({ role: "user", content: [{ type: "text", text: `job ${String(n)}` }], timestamp: at });
  manager.appendMessage({
    role: "assistant",
    content: [
      { type: "thinking", thinking, thinkingSignature: `sig-${String(n)}` },
      { type: "toolCall", id: `call_${String(n)}`, name: "bash", arguments: { command: `./job.sh ${String(n)}` } },
    ],
    api: "faux",
    provider: "faux",
    model: "faux-1",
    responseId: `resp_${String(n)}`,
    usage,
    stopReason: "toolUse",
    timestamp: at + 1,
  });
  manager.appendMessage({
    role: "toolResult",
    toolCallId: `call_${String(n)}`,
    toolName: "bash",
    content: [{ type: "text", text: jobOutput(n, options.rows) }],
    isError: false,
    timestamp: at + 2,
  });
  manager.appendMessage({
    role: "assistant",
    content: [{ type: "text", text: `job ${String(n)} done` }],
    api: "faux",
    provider: "faux",
    model: "faux-1",
    responseId: `resp_${String(n)}_done`,
    usage,
    stopReason: "stop",
    timestamp: at + 3,
  });
}
