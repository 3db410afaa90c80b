// Memory across sessions in a real headless Pi (faux model) against hindsight-local on loopback:
// session A states a decision and commits; a new session B on the same project gets the decision in
// its first prompt's context although asked in other words, and through the model's `recall` tool;
// `reflect` on the local bank says no model was used; a session on another project with the same bank
// id gets nothing; a secret never reaches the bank; with the bank stopped the retains wait in the
// outbox and arrive exactly once when it is back, also when the answer to a send is lost; a tool name
// another extension took is skipped with one notice.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { type AssistantMessage, fauxAssistantMessage, fauxText, fauxToolCall } from "@earendil-works/pi-ai";
import { NO_MODEL_LINE, startLocalBank, type LocalBank } from "@context-fold/hindsight-local";
import { HindsightClient, type Memory } from "@context-fold/memory-gardener-client";
import { MEMORY_MESSAGE_TYPE } from "@context-fold/recall-engine";
import { seedIndexPath } from "@context-fold/seed-index-format";
import { tempDir } from "@context-fold/test-support";
import { FOOTER_STATUS } from "../../src/footer-status.js";
import { OUTBOX_FILE } from "../../src/memory/outbox.js";
import { startRuntimePi } from "../support/runtime-pi.js";
import { type HeadlessPi, startPi } from "../support/headless-pi.js";

const WINDOW = 200_000;
const BANK = "team-bank";
const FOUNDING = "Set up the session cache layer for the alpha service.";
const DECISION = "Always store the session cache in SQLite, never in JSON files.";
const SECRET = "sk-ant-api03-SECRETSECRETSECRET1234";
const WITH_SECRET = `Never paste the deploy key ${SECRET} into logs.`;
const SUBJECT = "Store the session cache in SQLite";
const ASK = "Where should cached sessions be stored?";
const TOOLS = ["bash", "context_recall", "retain", "recall", "reflect"];
// The footer (footer-status.ts) with memory's part after the fold parts.
const FOOTER_WITH_MEMORY = /^folded \d+ · ~\d+ tokens masked · (?:\d+% of window · )?next fold at 45% · (.+)$/;

/** The memory part of the footer as last shown (undefined: no memory part); memory has no status key of its own. */
function memoryPart(pi: HeadlessPi): string | undefined {
  expect([...pi.statuses.keys()]).toEqual([FOOTER_STATUS]);
  return FOOTER_WITH_MEMORY.exec(pi.statuses.get(FOOTER_STATUS)?.at(-1) ?? "")?.[1];
}

function lastText(message: Record<string, unknown> | undefined): string {
  const content = message?.["content"];
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const texts = content.filter((p: { type?: string }) => p.type === "text") as { text?: string }[];
  return texts[texts.length - 1]?.text ?? "";
}

function allText(message: Record<string, unknown> | undefined): string {
  const content = message?.["content"];
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((p: { type?: string; text?: string }) => (p.type === "text" ? (p.text ?? "") : "")).join("\n");
}

/** `commit: <subject>` → git commit; `use <tool>: <query>` → that tool; a tool result → "done"; else "ok". */
function responder(): (messages: readonly Record<string, unknown>[]) => AssistantMessage {
  let n = 0;
  return (messages) => {
    n += 1;
    const id = `memresp_${String(n).padStart(4, "0")}`;
    const last = messages[messages.length - 1];
    if (last?.["role"] === "toolResult") return fauxAssistantMessage(fauxText("done"), { responseId: id, stopReason: "stop" });
    const text = lastText(last).trim();
    const commit = /^commit: (.+)$/.exec(text);
    if (commit !== null) {
      const command = `git -c user.name=Tester -c user.email=tester@example.com commit --allow-empty -m "${commit[1] ?? ""}"`;
      return fauxAssistantMessage([fauxToolCall("bash", { command }, { id: `call_commit_${String(n)}` })], { responseId: id, stopReason: "toolUse" });
    }
    const use = /^use (recall|reflect): (.+)$/.exec(text);
    if (use !== null) return fauxAssistantMessage([fauxToolCall(use[1] ?? "", { query: use[2] ?? "" }, { id: `call_${use[1] ?? ""}_${String(n)}` })], { responseId: id, stopReason: "toolUse" });
    return fauxAssistantMessage(fauxText("ok"), { responseId: id, stopReason: "stop" });
  };
}

async function waitFor(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const start = performance.now();
  while (!(await check())) {
    if (performance.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function memories(url: string, bankId = BANK): Promise<Memory[]> {
  const client = new HindsightClient({ baseUrl: url, retries: 0 });
  const out: Memory[] = [];
  for await (const m of client.listAll(bankId)) out.push(m);
  return out;
}

/** Memories per document id. */
function perDocument(list: readonly Memory[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const m of list) counts.set(m.documentId ?? "", (counts.get(m.documentId ?? "") ?? 0) + 1);
  return counts;
}

function gitProject(name: string): string {
  const dir = tempDir(`cf-mem-${name}-`);
  execFileSync("git", ["init", "-q", dir]);
  execFileSync("git", ["-C", dir, "remote", "add", "origin", `https://example.com/acme/${name}.git`]);
  return dir;
}

function toolResults(pi: HeadlessPi, tool: string): string[] {
  return pi.calls.flatMap((c) => c.messages.filter((m) => m["role"] === "toolResult" && m["toolName"] === tool).map((m) => allText(m)));
}

const saved = new Map<string, string | undefined>();
function setEnv(values: Record<string, string>): void {
  for (const [k, v] of Object.entries(values)) {
    if (!saved.has(k)) saved.set(k, process.env[k]);
    process.env[k] = v;
  }
}

describe("memory across sessions in a headless Pi", () => {
  const banks: LocalBank[] = [];
  beforeEach(() => {
    saved.clear();
  });
  afterEach(async () => {
    for (const [k, v] of saved) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    for (const bank of banks.splice(0)) await bank.close();
  });

  test("A's decision and commit reach B on the same project (auto-recall in other words, the recall tool, reflect without a model); another project gets nothing; the secret never reaches the bank", async () => {
    const data = tempDir("cf-mem-bank-");
    const bank = await startLocalBank({ dataDir: data });
    banks.push(bank);
    setEnv({ CONTEXT_FOLD_HINDSIGHT_URL: bank.url, CONTEXT_FOLD_HINDSIGHT_BANK: BANK });
    const alpha = gitProject("alpha");

    const a = await startPi({ dir: alpha, contextWindow: WINDOW, respond: responder(), tools: TOOLS });
    try {
      await a.session.prompt(FOUNDING);
      await a.session.prompt(DECISION);
      await a.session.prompt(WITH_SECRET);
      await a.session.prompt(`commit: ${SUBJECT}`);
      await waitFor(async () => {
        const texts = (await memories(bank.url)).map((m) => m.text);
        return texts.includes(DECISION) && texts.some((t) => t.includes(SUBJECT)) && texts.some((t) => t.includes("deploy key"));
      }, "A's memories in the bank");
    } finally {
      a.dispose();
    }
    const stored = await memories(bank.url);
    for (const m of stored) expect(m.tags).toContain("project:alpha");
    expect(stored.find((m) => m.text === DECISION)?.tags).toEqual(expect.arrayContaining(["source:context-fold", "kind:preference"]));
    expect(stored.find((m) => m.text === DECISION)?.metadata["entry"]).toMatch(/^[0-9a-f]{8}$/);
    expect(stored.some((m) => m.text === FOUNDING)).toBe(true);
    expect(stored.find((m) => m.text.includes(SUBJECT))?.text).toMatch(/^Commit [0-9a-f]{7,40}( on \S+)?: Store the session cache in SQLite$/);
    // The secret was redacted before it left: not in any memory, not in the bank's files.
    expect(stored.find((m) => m.text.includes("deploy key"))?.text).toBe("Never paste the deploy key [REDACTED] into logs.");
    for (const file of readdirSync(data)) expect(readFileSync(join(data, file), "utf8")).not.toContain(SECRET);

    const b = await startPi({ dir: alpha, contextWindow: WINDOW, respond: responder(), tools: TOOLS });
    try {
      await b.session.prompt(ASK);
      const first = b.calls[0]?.messages ?? [];
      const prompt = first.filter((m) => m["role"] === "user").map((m) => allText(m));
      expect(prompt.join("\n")).toContain("<memories");
      expect(prompt.join("\n")).toContain(DECISION);
      // The footer counts what the prompt got.
      const recalled = /^(\d+) memor(?:y|ies) recalled$/.exec(memoryPart(b) ?? "");
      expect(Number(recalled?.[1])).toBeGreaterThan(0);
      // Ephemeral: the session file holds the prompt as typed.
      const persisted = b.manager.getEntries().flatMap((e) => (e.type === "message" && e.message.role === "user" ? [JSON.stringify(e.message.content)] : []));
      expect(persisted.join("\n")).not.toContain("<memories");
      await b.session.prompt("use recall: storing session caches");
      expect(toolResults(b, "recall").join("\n")).toContain(DECISION);
      await b.session.prompt("use reflect: how do we store session caches?");
      const reflected = toolResults(b, "reflect").join("\n");
      expect(reflected.split("\n")[0]).toBe(NO_MODEL_LINE);
      expect(reflected).toContain(DECISION);
    } finally {
      b.dispose();
    }

    const beta = tempDir("cf-mem-beta-");
    const c = await startPi({ dir: beta, contextWindow: WINDOW, respond: responder(), tools: TOOLS });
    try {
      await c.session.prompt(ASK);
      const first = (c.calls[0]?.messages ?? []).map((m) => allText(m)).join("\n");
      expect(first).not.toContain(DECISION);
      expect(first).not.toContain("<memories");
      expect(memoryPart(c)).toBe("0 memories recalled");
      await c.session.prompt("use recall: storing session caches");
      expect(toolResults(c, "recall").join("\n")).not.toContain(DECISION);
    } finally {
      c.dispose();
    }
    // Nothing was retained twice across the three sessions.
    for (const [doc, count] of perDocument(await memories(bank.url))) expect(count, doc).toBe(1);
  }, 240_000);

  test("bank stopped: retains wait in the outbox (one notice) and arrive exactly once after it restarts, also when a send's answer is lost", async () => {
    const data = tempDir("cf-mem-outage-");
    let bank = await startLocalBank({ dataDir: data });
    const port = bank.port;
    setEnv({ CONTEXT_FOLD_HINDSIGHT_URL: bank.url, CONTEXT_FOLD_HINDSIGHT_BANK: BANK, CONTEXT_FOLD_HINDSIGHT_TIMEOUT_MS: "2000" });
    const dir = gitProject("gamma");
    const pi = await startPi({ dir, contextWindow: WINDOW, respond: responder(), tools: TOOLS });
    try {
      await pi.session.prompt(FOUNDING);
      await waitFor(async () => (await memories(bank.url)).some((m) => m.text === FOUNDING), "the founding request");
      await bank.close();
      const later = ["Never commit generated files; prefer regenerating them.", "Always run the linter before pushing."];
      for (const text of later) await pi.session.prompt(text);
      const outbox = join(dirname(seedIndexPath(pi.manager.getSessionFile() ?? "", pi.manager.getSessionId())), OUTBOX_FILE);
      await waitFor(() => existsSync(outbox) && later.every((t) => readFileSync(outbox, "utf8").includes(t)), "the outbox holding the retains");
      await pi.session.prompt("ok");
      const outageNotices = pi.notices.filter((n) => n.text.includes("unreachable"));
      expect(outageNotices, JSON.stringify(pi.notices)).toHaveLength(1);
      expect(outageNotices[0]?.text).toContain(OUTBOX_FILE);
      expect(memoryPart(pi)).toBe("memory bank unreachable");

      // Back, with the answer to the first retain lost on the way.
      bank = await startLocalBank({ port, dataDir: data, faults: { loseAnswer: 1 } });
      banks.push(bank);
      await pi.session.prompt("Prefer small commits over big ones.");
      await waitFor(async () => {
        const texts = (await memories(bank.url)).map((m) => m.text);
        return later.every((t) => texts.includes(t)) && texts.includes("Prefer small commits over big ones.");
      }, "the queued retains after the restart");
      await pi.session.prompt("ok again");
      await waitFor(() => !readFileSync(outbox, "utf8").includes('"state"'), "an empty outbox");
      expect(bank.faults.counters().answersLost).toBe(1);
      const counts = perDocument(await memories(bank.url));
      for (const [doc, count] of counts) expect(count, doc).toBe(1);
      expect(counts.size).toBe((await memories(bank.url)).length);
    } finally {
      pi.dispose();
    }
  }, 240_000);

  test("persisted mode: the block is written once as a message and a memory is never persisted twice; a slow bank: the prompt goes without memories, told once; /memory forget and restore", async () => {
    const bank = await startLocalBank();
    banks.push(bank);
    const dir = gitProject("delta");
    const client = new HindsightClient({ baseUrl: bank.url, retries: 0 });
    await client.retain("cf::delta", [{ content: DECISION, documentId: "seeded-1", tags: ["project:delta"] }]);
    const [seeded] = await memories(bank.url, "cf::delta");
    setEnv({ CONTEXT_FOLD_HINDSIGHT_URL: bank.url, CONTEXT_FOLD_MEMORY_RECALL_PERSIST: "true", CONTEXT_FOLD_MEMORY_AUTO_RETAIN: "false" });
    const pi = await startPi({ dir, contextWindow: WINDOW, respond: responder(), tools: TOOLS });
    try {
      const persisted = (): unknown[] => pi.manager.getEntries().filter((e) => e.type === "custom_message" && e.customType === MEMORY_MESSAGE_TYPE);
      await pi.session.prompt(ASK);
      expect(persisted()).toHaveLength(1);
      expect(JSON.stringify(persisted()[0])).toContain(DECISION);
      await pi.session.prompt("And where are cached sessions stored again?");
      expect(persisted()).toHaveLength(1);
      // Still in context: the persisted message is part of the conversation.
      expect((pi.calls[pi.calls.length - 1]?.messages ?? []).map((m) => allText(m)).join("\n")).toContain(DECISION);

      bank.faults.set({ delayMs: 1500 });
      const before = pi.calls.length;
      await pi.session.prompt("Which store holds the session caches?");
      await pi.session.prompt("Which database keeps session caches?");
      bank.faults.clear();
      const slow = pi.notices.filter((n) => n.text.includes("went without memories"));
      expect(slow).toHaveLength(1);
      expect(memoryPart(pi)).toBe("memory recall timed out");
      expect(persisted()).toHaveLength(1);
      expect(pi.calls.length).toBeGreaterThan(before);

      await pi.session.prompt(`/memory forget ${seeded?.id ?? ""}`);
      expect((await client.getMemory("cf::delta", seeded?.id ?? "")).state).toBe("invalidated");
      await pi.session.prompt(`/memory restore ${seeded?.id ?? ""}`);
      expect((await client.getMemory("cf::delta", seeded?.id ?? "")).state).toBe("valid");
    } finally {
      pi.dispose();
    }
  }, 120_000);

  test("what a session left in its outbox (Pi gone while the bank was down) is sent by the next session on the project, once", async () => {
    const data = tempDir("cf-mem-orphan-");
    const down = await startLocalBank({ dataDir: data });
    const port = down.port;
    await down.close();
    setEnv({ CONTEXT_FOLD_HINDSIGHT_URL: `http://127.0.0.1:${String(port)}`, CONTEXT_FOLD_MEMORY_SHUTDOWN_FLUSH_MS: "0" });
    const dir = gitProject("zeta");
    const a = await startPi({ dir, contextWindow: WINDOW, respond: responder(), tools: TOOLS });
    let outbox = "";
    try {
      await a.session.prompt(DECISION);
      outbox = join(dirname(seedIndexPath(a.manager.getSessionFile() ?? "", a.manager.getSessionId())), OUTBOX_FILE);
      await waitFor(() => existsSync(outbox) && readFileSync(outbox, "utf8").includes(DECISION), "the decision in A's outbox");
      await new Promise((resolve) => setTimeout(resolve, 300));
    } finally {
      a.dispose();
    }
    const bank = await startLocalBank({ port, dataDir: data });
    banks.push(bank);
    const b = await startPi({ dir, contextWindow: WINDOW, respond: responder(), tools: TOOLS });
    try {
      await b.session.prompt("ok");
      await waitFor(async () => (await memories(bank.url, "cf::zeta")).some((m) => m.text === DECISION), "A's decision sent by B");
      await waitFor(() => !readFileSync(outbox, "utf8").includes('"state"'), "A's outbox emptied");
      await b.session.prompt("ok again");
      for (const [doc, count] of perDocument(await memories(bank.url, "cf::zeta"))) expect(count, doc).toBe(1);
    } finally {
      b.dispose();
    }
  }, 120_000);

  test("shutdown flushes the outbox (bounded): retains queued while the bank was down reach it when Pi exits", async () => {
    const data = tempDir("cf-mem-shutdown-");
    const down = await startLocalBank({ dataDir: data });
    const port = down.port;
    await down.close();
    const dir = gitProject("epsilon");
    const pi = await startRuntimePi({ dir, contextWindow: WINDOW, env: { CONTEXT_FOLD_HINDSIGHT_URL: `http://127.0.0.1:${String(port)}`, CONTEXT_FOLD_MEMORY_SHUTDOWN_FLUSH_MS: "5000" } });
    let bank: LocalBank | undefined;
    try {
      await pi.session.prompt(DECISION);
      const file = pi.session.sessionManager.getSessionFile() ?? "";
      const outbox = join(dirname(seedIndexPath(file, pi.session.sessionManager.getSessionId())), OUTBOX_FILE);
      await waitFor(() => existsSync(outbox) && readFileSync(outbox, "utf8").includes(DECISION), "the decision in the outbox");
      // Let the turn's own flush fail against the dead port before the bank comes back.
      await new Promise((resolve) => setTimeout(resolve, 500));
      bank = await startLocalBank({ port, dataDir: data });
      banks.push(bank);
      // Nothing reaches the bank until shutdown: only the shutdown flush can deliver it.
      expect(bank.faults.counters().requests).toBe(0);
    } finally {
      await pi.dispose();
    }
    expect((await memories(bank.url, "cf::epsilon")).map((m) => m.text)).toContain(DECISION);
  }, 120_000);

  test("a tool name another extension registered is left to it, with one notice; /memory reports it", async () => {
    const bank = await startLocalBank();
    banks.push(bank);
    setEnv({ CONTEXT_FOLD_HINDSIGHT_URL: bank.url });
    const dir = tempDir("cf-mem-taken-");
    const pi = await startPi({
      dir,
      contextWindow: WINDOW,
      respond: responder(),
      tools: TOOLS,
      extensionFactories: [
        (api) => {
          api.registerTool({ name: "recall", label: "other recall", description: "another extension's recall", parameters: { type: "object", properties: {} } as never, execute: () => Promise.resolve({ content: [{ type: "text", text: "theirs" }], details: {} }) });
        },
      ],
    });
    try {
      const skipped = pi.notices.filter((n) => n.text.includes("not registered"));
      expect(skipped).toHaveLength(1);
      expect(skipped[0]?.text).toContain("recall");
      await pi.session.prompt("/memory");
      const status = pi.notices.map((n) => n.text).join("\n");
      expect(status).toContain("Tools: retain, reflect; skipped (name taken by another extension): recall.");
      expect(status).toContain(`bank cf::${dir.split("/").pop() ?? ""}`);
    } finally {
      pi.dispose();
    }
  }, 120_000);
});
