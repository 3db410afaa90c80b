// Length normalisation on a session written by Pi's own SessionManager: a long document read back (a
// manual, a whole source file) holds every common word of a question many times, close together; the
// short message that states the fact must still rank first.
import { readSession } from "@context-fold/ledger-reader";
import { describe, expect, it } from "vitest";
import { RecallIndex } from "../src/index.js";
import { assistant, toolResult, user, writtenByPi } from "./support/pi-session.js";

/** A long manual: sections naming the gateway, a port and a replica once each, then long tables. */
function manual(): string {
  const sections: string[] = ["# Gateway manual\nA canary gateway listens on a port of its own."];
  for (let k = 0; k < 16; k++) {
    sections.push(`## Section ${String(k)}\nThe gateway replica ${String(k)} listens on a port chosen by the orchestrator.\n| replica | number | zone |\n|---|---|---|\n${Array.from({ length: 30 }, (_, j) => `| r${String(k)}.${String(j)} | ${String(9000 + 30 * k + j)} | z${String(j % 3)} |`).join("\n")}`);
  }
  return sections.join("\n\n");
}

function gatewaySession(): string {
  return writtenByPi((sm) => {
    sm.appendMessage(user("please wire the gateway into the deploy scripts"));
    sm.appendMessage(assistant([{ type: "toolCall", id: "call_read", name: "read", arguments: { path: "docs/gateway-manual.md" } }]));
    sm.appendMessage(toolResult("call_read", "read", manual()));
    for (let k = 0; k < 12; k++) {
      sm.appendMessage(assistant([{ type: "toolCall", id: `call_ls_${String(k)}`, name: "bash", arguments: { command: `ls deploy/stage-${String(k)}` } }]));
      sm.appendMessage(toolResult(`call_ls_${String(k)}`, "bash", `deploy/stage-${String(k)}/run.sh: gateway listens on port ${String(8000 + k)}\ndeploy/stage-${String(k)}/env.sh`));
    }
    sm.appendMessage(user("keep in mind: the canary gateway port is 7443"));
    sm.appendMessage(assistant([{ type: "text", text: "Noted, I will use that for the canary." }]));
  });
}

describe("length normalisation", () => {
  it("a short message stating the fact outranks a long document repeating the question's words", async () => {
    const session = await readSession(gatewaySession());
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
