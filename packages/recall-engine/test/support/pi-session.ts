// Sessions written by Pi's own SessionManager for recall tests: message objects shaped the way Pi stores
// them, and a writer that hands the session manager to the test and returns the file Pi wrote.
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { SessionManager } from "@earendil-works/pi-coding-agent";
import { tempDir } from "@context-fold/test-support";

type Part =
  | { type: "text"; text: string }
  | { type: "thinking"; thinking: string }
  | { type: "toolCall"; id: string; name: string; arguments: Record<string, unknown> };

// Timestamps come from this clock, not the wall, so a session's text is the same on every run.
let clock = 1_796_000_000_000;
function tick(): number {
  clock += 1000;
  return clock;
}

const usage = { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 15, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };

export function user(text: string): AgentMessage {
  return { role: "user", content: text, timestamp: tick() } as AgentMessage;
}

export function assistant(content: Part[]): AgentMessage {
  const stopReason = content.some((p) => p.type === "toolCall") ? "toolUse" : "stop";
  return { role: "assistant", content, api: "anthropic-messages", provider: "anthropic", model: "m", usage, stopReason, timestamp: tick() } as unknown as AgentMessage;
}

export function toolResult(toolCallId: string, toolName: string, text: string, isError = false): AgentMessage {
  return { role: "toolResult", toolCallId, toolName, content: [{ type: "text", text }], isError, timestamp: tick() } as unknown as AgentMessage;
}

/** A new session in a fresh temp folder, filled by `write`; the path of the file Pi wrote. */
export function writtenByPi(write: (sm: SessionManager) => void, cwd = "/project"): string {
  const sm = SessionManager.create(cwd, tempDir());
  write(sm);
  const file = sm.getSessionFile();
  if (file === undefined) throw new Error("Pi wrote no file");
  return file;
}
