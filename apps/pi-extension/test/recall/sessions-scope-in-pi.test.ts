// `scope: "sessions"` in a real, headless Pi: the model's context_recall finds a word said only in an
// earlier session of this project, the hit names that session (project folder, date, first user line),
// and `expand` with that session gives the entry in full, verified against that session's ledger;
// `/recall … scope:sessions` shows the same. Other projects' sessions are not searched.
import { join } from "node:path";
import { type AssistantMessage, fauxAssistantMessage, fauxText, fauxToolCall } from "@earendil-works/pi-ai";
import { type AgentMessage } from "@earendil-works/pi-agent-core";
import { SessionManager } from "@earendil-works/pi-coding-agent";
import { afterEach, describe, expect, test } from "vitest";
import { tempDir } from "@context-fold/test-support";
import { type HeadlessPi, startPi } from "../support/headless-pi.js";
import { scriptedModel } from "../support/scripted-model.js";

const usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };

function earlierSession(cwd: string, sessionsDir: string, word: string): string {
  const manager = SessionManager.create(cwd, sessionsDir);
  manager.appendMessage({ role: "user", content: [{ type: "text", text: `plan the ${word} migration` }], timestamp: Date.UTC(2026, 2, 1, 9) } as AgentMessage);
  manager.appendMessage({ role: "assistant", content: [{ type: "text", text: `The ${word} migration runs in three steps.` }], api: "faux", provider: "faux", model: "faux-1", usage, stopReason: "stop", timestamp: Date.UTC(2026, 2, 1, 9, 1) } as AgentMessage);
  const file = manager.getSessionFile();
  if (file === undefined) throw new Error("Pi wrote no file");
  return file;
}

function textOf(message: Record<string, unknown> | undefined): string {
  const content = message?.["content"];
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((p: { type?: string; text?: string }) => (p.type === "text" ? (p.text ?? "") : "")).join("\n");
}

/** `across <word>` → context_recall({query, scope: sessions}); `open it` → expand the first hit of the last result in its session. */
function model(messages: readonly Record<string, unknown>[], call: number): AssistantMessage {
  const last = messages[messages.length - 1];
  const text = textOf(last).trim();
  const across = /^across (\S+)$/.exec(text);
  if (last?.["role"] === "user" && across !== null) {
    return fauxAssistantMessage([fauxToolCall("context_recall", { query: across[1] ?? "", scope: "sessions" }, { id: `call_across_${String(call)}` })], { stopReason: "toolUse" });
  }
  if (last?.["role"] === "user" && text === "open it") {
    const found = [...messages].reverse().find((m) => m["role"] === "toolResult");
    const result = textOf(found);
    const hit = /^> #(\d+) /m.exec(result);
    const session = /^Sessions:\n {2}([^:]+):/m.exec(result);
    if (hit === null || session === null) return fauxAssistantMessage([fauxText("nothing to open")]);
    return fauxAssistantMessage([fauxToolCall("context_recall", { expand: [Number(hit[1])], session: session[1] ?? "" }, { id: `call_open_${String(call)}` })], { stopReason: "toolUse" });
  }
  return scriptedModel(messages);
}

function toolResults(pi: HeadlessPi): string[] {
  return pi.manager.getEntries().flatMap((e) => (e.type === "message" && e.message.role === "toolResult" ? [e.message.content.map((p) => (p.type === "text" ? p.text : "")).join("\n")] : []));
}

describe("scope sessions in a headless Pi", () => {
  let pi: HeadlessPi | undefined;
  const savedState = process.env["XDG_STATE_HOME"];
  afterEach(() => {
    pi?.dispose();
    if (savedState === undefined) delete process.env["XDG_STATE_HOME"];
    else process.env["XDG_STATE_HOME"] = savedState;
  });

  test("the tool finds an earlier session's words, names the session, and expands the hit verified against it", async () => {
    const dir = tempDir("sessions-scope-");
    process.env["XDG_STATE_HOME"] = tempDir("sessions-scope-state-");
    const sessionsDir = join(dir, "sessions");
    const earlier = earlierSession(dir, join(sessionsDir, "--earlier--"), "quokkasaurus");
    earlierSession("/some/other/project", join(sessionsDir, "--other--"), "quokkasaurus");
    pi = await startPi({ dir, contextWindow: 20_000, respond: model });
    await pi.session.prompt("across quokkasaurus");
    const [found] = toolResults(pi);
    expect(found).toContain("quokkasaurus migration");
    expect(found).toContain(`Sessions:\n  --earlier--/${earlier.slice(join(sessionsDir, "--earlier--").length + 1)}: ${dir}, 2026-`);
    expect(found).toContain("plan the quokkasaurus migration"); // the first user line names it
    expect(found).not.toContain("--other--");
    await pi.session.prompt("open it");
    const opened = toolResults(pi)[1] ?? "";
    expect(opened).toMatch(/^=== --earlier--\/\S+ #\d+ \[\w+\] turn \d+ \(verified against the block table\) ===/);
    expect(opened).toContain("quokkasaurus migration");

    await pi.session.prompt("/recall quokkasaurus scope:sessions");
    expect(pi.notices[pi.notices.length - 1]?.text).toContain("--earlier--/");
  }, 60_000);
});
