// Message objects shaped the way Pi stores them, for sessions written in tests.
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { SessionManager } from "@earendil-works/pi-coding-agent";

type Part =
  | { type: "text"; text: string }
  | { type: "thinking"; thinking: string }
  | { type: "toolCall"; id: string; name: string; arguments: Record<string, unknown> };

let clock = 1_795_000_000_000;
function tick(): number {
  clock += 1000;
  return clock;
}

const usage = { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 15, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };

export function user(text: string): AgentMessage {
  return { role: "user", content: text, timestamp: tick() } as AgentMessage;
}

export function assistant(content: Part[], responseId?: string): AgentMessage {
  const message: Record<string, unknown> = {
    role: "assistant",
    content,
    api: "anthropic-messages",
    provider: "anthropic",
    model: "claude-sonnet-4-5",
    usage,
    stopReason: content.some((p) => p.type === "toolCall") ? "toolUse" : "stop",
    timestamp: tick(),
  };
  if (responseId !== undefined) message["responseId"] = responseId;
  return message as unknown as AgentMessage;
}

export function toolResult(toolCallId: string, toolName: string, text: string, details?: Record<string, unknown>): AgentMessage {
  const message: Record<string, unknown> = {
    role: "toolResult",
    toolCallId,
    toolName,
    content: [{ type: "text", text }],
    isError: false,
    timestamp: tick(),
  };
  if (details !== undefined) message["details"] = details;
  return message as unknown as AgentMessage;
}

export function bashExecution(command: string, output: string, exitCode: number): AgentMessage {
  return { role: "bashExecution", command, output, exitCode, cancelled: false, truncated: false, timestamp: tick() } as unknown as AgentMessage;
}

/** A session Pi's SessionManager writes: a prompt, an `ls` call (`c1`) and its output; the manager and its file. */
export function lsSession(dir: string): { sm: SessionManager; file: string } {
  const sm = SessionManager.create("/project", dir);
  sm.appendMessage(user("first"));
  sm.appendMessage(assistant([{ type: "toolCall", id: "c1", name: "bash", arguments: { command: "ls" } }], "r1"));
  sm.appendMessage(toolResult("c1", "bash", "a\nb"));
  const file = sm.getSessionFile();
  if (file === undefined) throw new Error("Pi wrote no file");
  return { sm, file };
}
