// Sessions written by Pi's own SessionManager for the facts tests: user messages, assistant text and
// tool calls, tool results (a bash run carries Pi's "Command exited with code N" trailer when it fails),
// then read back through the ledger reader as Pi's branch sees it.
import { join } from "node:path";
import { SessionManager } from "@earendil-works/pi-coding-agent";
import { type Block, lineageBlocks, readSession } from "@context-fold/ledger-reader";

const usage = { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };

export class PiWriter {
  readonly sm: SessionManager;
  readonly cwd: string;
  private clock = Date.parse("2026-03-01T09:00:00.000Z");
  private calls = 0;

  constructor(dir: string) {
    this.cwd = join(dir, "project");
    this.sm = SessionManager.create(this.cwd, dir);
  }

  get file(): string {
    return this.sm.getSessionFile() ?? "";
  }

  private tick(): number {
    return (this.clock += 1000);
  }

  user(text: string): this {
    this.sm.appendMessage({ role: "user", content: text, timestamp: this.tick() } as never);
    return this;
  }

  say(text: string): this {
    this.sm.appendMessage({ role: "assistant", content: [{ type: "text", text }], api: "anthropic-messages", provider: "anthropic", model: "m", usage, stopReason: "stop", timestamp: this.tick() } as never);
    return this;
  }

  /** A tool call and its result. */
  tool(toolName: string, args: Record<string, unknown>, result: string, isError = false): this {
    const id = `call_${String(++this.calls)}`;
    this.sm.appendMessage({
      role: "assistant",
      content: [{ type: "toolCall", id, name: toolName, arguments: args }],
      api: "anthropic-messages",
      provider: "anthropic",
      model: "m",
      usage,
      stopReason: "toolUse",
      timestamp: this.tick(),
    } as never);
    this.sm.appendMessage({ role: "toolResult", toolCallId: id, toolName, content: [{ type: "text", text: result }], isError, timestamp: this.tick() } as never);
    return this;
  }

  /** A bash tool run as Pi reports it: a non-zero exit is an error result ending in Pi's trailer. */
  bash(command: string, output: string, exitCode = 0): this {
    return this.tool("bash", { command }, exitCode === 0 ? output : `${output}\n\nCommand exited with code ${String(exitCode)}`, exitCode !== 0);
  }

  /** The branch's blocks as the ledger reader gives them. */
  async blocks(): Promise<Block[]> {
    return lineageBlocks(await readSession(this.file));
  }
}
