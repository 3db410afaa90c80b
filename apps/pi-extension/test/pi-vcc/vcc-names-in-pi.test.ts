// pi-vcc's names inside a real, headless Pi: the model's `vcc_recall` finds a folded block's text by a
// query, `/pi-vcc-recall` shows results and hands them to the agent, `/pi-vcc` compacts through our hook;
// with another extension holding the names, ours are skipped and one notice says so.
import { type AssistantMessage, fauxAssistantMessage, fauxText, fauxToolCall } from "@earendil-works/pi-ai";
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";
import { afterEach, describe, expect, test } from "vitest";
import { readSeedIndexFile, seedIndexPath } from "@context-fold/seed-index-format";
import { tempDir } from "@context-fold/test-support";
import { RECALL_MESSAGE } from "../../src/commands.js";
import { VCC_RECALL_TOOL } from "../../src/pi-vcc/vcc-names.js";
import { compactions, customMessages, FOUNDING, jobModel, startPiWith, waitFor } from "../compaction/support/compaction-pi.js";
import { type HeadlessPi, startPi } from "../support/headless-pi.js";
import { needle, scriptedModel } from "../support/scripted-model.js";

const WINDOW = 20_000;
const TOOLS = ["bash", "context_recall", VCC_RECALL_TOOL];

function lastText(messages: readonly Record<string, unknown>[]): string {
  const content = messages[messages.length - 1]?.["content"];
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((p: { type?: string; text?: string }) => (p.type === "text" ? (p.text ?? "") : "")).join("\n");
}

/** `vcc find <words>` → vcc_recall({query}); anything else as the scripted model answers. */
function vccModel(messages: readonly Record<string, unknown>[], call: number): AssistantMessage {
  const find = /^vcc find (.+)$/.exec(lastText(messages).trim());
  if (messages[messages.length - 1]?.["role"] === "user" && find !== null) {
    return fauxAssistantMessage([fauxToolCall(VCC_RECALL_TOOL, { query: find[1] ?? "" }, { id: `call_vcc_${String(call)}` })], { stopReason: "toolUse" });
  }
  return scriptedModel(messages);
}

function toolResultsOf(pi: HeadlessPi, toolName: string): string[] {
  return pi.manager.getEntries().flatMap((e) => {
    if (e.type !== "message" || e.message.role !== "toolResult" || e.message.toolName !== toolName) return [];
    return [e.message.content.map((p) => (p.type === "text" ? p.text : "")).join("\n")];
  });
}

describe("pi-vcc names in a headless Pi", () => {
  let pi: HeadlessPi | undefined;
  afterEach(() => pi?.dispose());

  test("the model calls vcc_recall with a query and gets a folded block's text; /pi-vcc-recall shows it and hands it to the agent", async () => {
    // The held limit at its cap (the paid limit raised to it, whatever its default): folds, not a
    // compaction of our gate's between the jobs (which the next prompt would meet in progress), are what
    // this test reads.
    pi = await startPiWith({ CONTEXT_FOLD_COMPACT_HELD_PAID: "3" }, { dir: tempDir("pi-vcc-recall-"), contextWindow: WINDOW, respond: vccModel, tools: TOOLS });
    for (let n = 1; n <= 8; n++) await pi.session.prompt(`job ${String(n)}`);
    // Job 1's output is folded by now (the model sees a stub in its place).
    const seedIndex = seedIndexPath(pi.manager.getSessionFile() ?? "", pi.manager.getSessionId());
    const { outcomes } = await readSeedIndexFile(seedIndex);
    const folded = outcomes.flatMap((o) => (o.outcome === "record" ? o.record.spans.map((s) => s.blockId) : []));
    expect(folded).toContain("r:call_job_1");
    expect(pi.session.getActiveToolNames()).toContain(VCC_RECALL_TOOL);
    await pi.session.prompt(`vcc find ${needle(1)}`);
    const [found] = toolResultsOf(pi, VCC_RECALL_TOOL);
    expect(found).toContain(needle(1));
    expect(pi.notices.some((n) => n.text.includes("already registered"))).toBe(false);

    await pi.session.prompt(`/pi-vcc-recall ${needle(2)} scope:all`);
    const shown = customMessages(pi.manager, RECALL_MESSAGE);
    expect(shown).toHaveLength(1);
    expect(shown[0]?.content).toContain("(/pi-vcc-recall ");
    expect(shown[0]?.content).toContain(needle(2));
  }, 120_000);

  test("/pi-vcc compacts now, through our hook", async () => {
    pi = await startPi({ dir: tempDir("pi-vcc-compact-"), contextWindow: WINDOW, respond: jobModel, settings: { compaction: { enabled: false, keepRecentTokens: 2000 } } });
    await pi.session.prompt(FOUNDING);
    for (let n = 1; n <= 4; n++) await pi.session.prompt(`job ${String(n)}`);
    const manager = pi.manager;
    await pi.session.prompt("/pi-vcc");
    await waitFor(() => compactions(manager).length === 1, "the compaction /pi-vcc asked for");
    expect(compactions(manager)[0]?.fromHook).toBe(true);
    expect(compactions(manager)[0]?.summary).toContain(FOUNDING);
  }, 120_000);

  test("another extension holding the names: ours are skipped, one notice says so, theirs answer", async () => {
    const theirs = (pi: ExtensionAPI): void => {
      pi.registerTool({
        name: VCC_RECALL_TOOL,
        label: "their vcc_recall",
        description: "someone else's",
        parameters: Type.Object({ query: Type.Optional(Type.String()) }),
        execute: () => Promise.resolve({ content: [{ type: "text", text: "THEIR-RECALL" }], details: {} }),
      });
      pi.registerCommand("pi-vcc", { description: "theirs", handler: () => Promise.resolve() });
    };
    const respond = (messages: readonly Record<string, unknown>[], call: number): AssistantMessage =>
      lastText(messages).trim() === "vcc find x" && messages[messages.length - 1]?.["role"] === "user"
        ? vccModel(messages, call)
        : fauxAssistantMessage(fauxText("ok"), { stopReason: "stop" });
    pi = await startPi({ dir: tempDir("pi-vcc-taken-"), contextWindow: WINDOW, respond, extensionFactories: [theirs], tools: TOOLS });
    const notices = pi.notices.filter((n) => n.text.includes("already registered"));
    expect(notices).toHaveLength(1);
    expect(notices[0]?.text).toContain("vcc_recall, /pi-vcc ");
    expect(notices[0]?.text).not.toContain("/pi-vcc-recall");
    // One /pi-vcc (theirs, not renamed `pi-vcc:1`), and our /pi-vcc-recall is there.
    const names = pi.session.extensionRunner?.getRegisteredCommands().map((c) => c.invocationName) ?? [];
    expect(names.filter((n) => n.startsWith("pi-vcc")).sort()).toEqual(["pi-vcc", "pi-vcc-recall"]);
    await pi.session.prompt("vcc find x");
    expect(toolResultsOf(pi, VCC_RECALL_TOOL)).toEqual(["THEIR-RECALL"]);
  }, 60_000);
});
