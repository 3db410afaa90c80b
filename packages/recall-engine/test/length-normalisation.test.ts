// Length normalisation on a session written by Pi's own SessionManager: a long document read back (a
// manual, a whole source file) holds every common word of a question many times, close together; the
// short message that states the fact must still rank first.
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { SessionManager } from "@earendil-works/pi-coding-agent";
import { readSession } from "@context-fold/ledger-reader";
import { tempDir } from "@context-fold/test-support";
import { describe, expect, it } from "vitest";
import { RecallIndex } from "../src/index.js";

let clock = 1_796_000_000_000;
const usage = { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 15, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
function user(text: string): AgentMessage {
  return { role: "user", content: text, timestamp: (clock += 1000) } as AgentMessage;
}
function assistant(content: unknown[]): AgentMessage {
  const toolUse = content.some((p) => (p as { type: string }).type === "toolCall");
  return { role: "assistant", content, api: "anthropic-messages", provider: "anthropic", model: "m", usage, stopReason: toolUse ? "toolUse" : "stop", timestamp: (clock += 1000) } as unknown as AgentMessage;
}
function toolResult(toolCallId: string, toolName: string, text: string): AgentMessage {
  return { role: "toolResult", toolCallId, toolName, content: [{ type: "text", text }], isError: false, timestamp: (clock += 1000) } as unknown as AgentMessage;
}

/** A long manual: sections naming the gateway, a port and a replica once each, then long tables. */
function manual(): string {
  const sections: string[] = ["# Gateway manual\nA canary gateway listens on a port of its own."];
  for (let k = 0; k < 16; k++) {
    sections.push(`## Section ${String(k)}\nThe gateway replica ${String(k)} listens on a port chosen by the orchestrator.\n| replica | number | zone |\n|---|---|---|\n${Array.from({ length: 30 }, (_, j) => `| r${String(k)}.${String(j)} | ${String(9000 + 30 * k + j)} | z${String(j % 3)} |`).join("\n")}`);
  }
  return sections.join("\n\n");
}

async function writtenByPi(): Promise<string> {
  const sm = SessionManager.create("/project", tempDir());
  sm.appendMessage(user("please wire the gateway into the deploy scripts"));
  sm.appendMessage(assistant([{ type: "toolCall", id: "call_read", name: "read", arguments: { path: "docs/gateway-manual.md" } }]));
  sm.appendMessage(toolResult("call_read", "read", manual()));
  for (let k = 0; k < 12; k++) {
    sm.appendMessage(assistant([{ type: "toolCall", id: `call_ls_${String(k)}`, name: "bash", arguments: { command: `ls deploy/stage-${String(k)}` } }]));
    sm.appendMessage(toolResult(`call_ls_${String(k)}`, "bash", `deploy/stage-${String(k)}/run.sh: gateway listens on port ${String(8000 + k)}\ndeploy/stage-${String(k)}/env.sh`));
  }
  sm.appendMessage(user("keep in mind: the canary gateway port is 7443"));
  sm.appendMessage(assistant([{ type: "text", text: "Noted, I will use that for the canary." }]));
  const file = sm.getSessionFile();
  if (file === undefined) throw new Error("Pi wrote no file");
  return file;
}

describe("length normalisation", () => {
  it("a short message stating the fact outranks a long document repeating the question's words", async () => {
    const session = await readSession(await writtenByPi());
    const index = RecallIndex.build(session);
    const manualBlock = session.blocks.find((b) => b.kind === "toolResult" && b.text.startsWith("# Gateway manual"));
    const stated = session.blocks.find((b) => b.kind === "user" && b.text.includes("7443"));
    expect(manualBlock?.text.length).toBeGreaterThan(10_000);
    const hits = index.search("Which port does the canary gateway listen on?", { scope: "all" }).hits.map((h) => h.index);
    expect(hits[0]).toBe(stated?.index);
    // The long document still answers what only it holds.
    expect(index.search("orchestrator", { scope: "all" }).hits[0]?.index).toBe(manualBlock?.index);
  });
});
