// The usage tracker gives the figure Pi's own `AgentSession.getContextUsage()` gives, entry by entry,
// through everything that changes it (usage, aborted and failed replies, custom messages, branch
// summaries, compactions, context edits, a move back in the tree), while a call walks only the entries
// appended since the one before and never asks Pi where the tail decides the figure.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type AgentSession, type ContextUsage, createAgentSession, DefaultResourceLoader, ModelRuntime, SessionManager, SettingsManager } from "@earendil-works/pi-coding-agent";
import { fauxProvider } from "@earendil-works/pi-ai";
import { tempDir } from "@context-fold/test-support";
import { ContextUsageTracker, type UsageContext } from "../../src/fold/context-usage.js";

const WINDOW = 50_000;

function usage(input: number, output = 40): object {
  return { input, output, cacheRead: 0, cacheWrite: 0, totalTokens: input + output, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
}

let seq = 0;
function assistant(text: string, input: number, stopReason = "stop"): never {
  seq += 1;
  return { role: "assistant", content: [{ type: "text", text }, { type: "toolCall", id: `call_${String(seq)}`, name: "bash", arguments: { command: `echo ${text}` } }], api: "faux", provider: "faux", model: "faux-usage", usage: usage(input), stopReason, timestamp: seq } as never;
}
function user(text: string): never {
  seq += 1;
  return { role: "user", content: text, timestamp: seq } as never;
}
function toolResult(lines: number): never {
  seq += 1;
  const text = Array.from({ length: lines }, (_, i) => `line ${String(i)} of output ${String(seq)}`).join("\n");
  return { role: "toolResult", toolCallId: `call_${String(seq)}`, toolName: "bash", content: [{ type: "text", text }], isError: false, timestamp: seq } as never;
}

describe("the context usage tracker", () => {
  const dir = tempDir("pi-context-usage-");
  let session: AgentSession;
  let manager: SessionManager;
  let asked = 0;
  let entryReads = 0;
  let ctx: UsageContext;

  beforeAll(async () => {
    const faux = fauxProvider({ models: [{ id: "faux-usage", contextWindow: WINDOW, reasoning: false, maxTokens: 4096 }] });
    const runtime = await ModelRuntime.create({ authPath: join(dir, "auth.json"), modelsPath: null });
    runtime.registerNativeProvider(faux.provider);
    await runtime.setRuntimeApiKey(faux.provider.id, "faux-key");
    const loader = new DefaultResourceLoader({ cwd: dir, agentDir: dir });
    await loader.reload();
    manager = SessionManager.create(dir, join(dir, "sessions"));
    ({ session } = await createAgentSession({
      cwd: dir,
      agentDir: dir,
      model: faux.getModel(),
      thinkingLevel: "off",
      modelRuntime: runtime,
      resourceLoader: loader,
      sessionManager: manager,
      settingsManager: SettingsManager.inMemory({ compaction: { enabled: false }, retry: { enabled: false } }),
      tools: ["bash"],
    }));
    // The context an extension gets: the same session manager (its parent lookups counted) and Pi's own call (counted).
    const counted = new Proxy(manager, {
      get(target, key) {
        if (key === "getEntry") {
          return (id: string) => {
            entryReads += 1;
            return target.getEntry(id);
          };
        }
        const value = Reflect.get(target, key, target) as unknown;
        return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    ctx = {
      sessionManager: counted,
      get model() {
        return session.model;
      },
      getContextUsage: () => {
        asked += 1;
        return session.getContextUsage();
      },
    };
  });
  afterAll(() => session.dispose());

  /** The tracker's figure and Pi's, and whether the tracker had to ask Pi. */
  function both(tracker: ContextUsageTracker): { ours: ContextUsage | undefined; pis: ContextUsage | undefined; askedPi: boolean } {
    const before = asked;
    const ours = tracker.usage(ctx);
    const askedPi = asked !== before;
    return { ours, pis: session.getContextUsage(), askedPi };
  }

  test("equals Pi's figure after every kind of entry, asking Pi only after a context edit or with no usage on the branch", () => {
    const tracker = new ContextUsageTracker();
    const steps: { what: string; expectAsk: boolean; append: () => unknown }[] = [
      { what: "a user message, no usage yet", expectAsk: true, append: () => manager.appendMessage(user("set up the build")) },
      { what: "a reply with zero usage", expectAsk: true, append: () => manager.appendMessage({ ...(assistant("zero", 0) as object), usage: usage(0, 0) } as never) },
      { what: "a reply with usage", expectAsk: false, append: () => manager.appendMessage(assistant("first", 1200)) },
      { what: "a tool result", expectAsk: false, append: () => manager.appendMessage(toolResult(200)) },
      { what: "an aborted reply (its usage does not count)", expectAsk: false, append: () => manager.appendMessage(assistant("aborted", 9000, "aborted")) },
      { what: "a failed reply (its usage does not count)", expectAsk: false, append: () => manager.appendMessage(assistant("failed", 9000, "error")) },
      { what: "a custom message", expectAsk: false, append: () => manager.appendCustomMessageEntry("note", "a custom message the model sees ".repeat(20), false) },
      { what: "entries outside the context", expectAsk: false, append: () => [manager.appendCustomEntry("state", { a: 1 }), manager.appendThinkingLevelChange("off"), manager.appendSessionInfo("named")] },
      { what: "a second reply with usage", expectAsk: false, append: () => manager.appendMessage(assistant("second", 3000)) },
      { what: "two tool results", expectAsk: false, append: () => [manager.appendMessage(toolResult(50)), manager.appendMessage(toolResult(80))] },
      { what: "a compaction", expectAsk: false, append: () => manager.appendCompaction("Earlier: the build was set up.", manager.getLeafId(), 4000) },
      { what: "a user message after the compaction", expectAsk: false, append: () => manager.appendMessage(user("go on")) },
      { what: "a reply after the compaction", expectAsk: false, append: () => manager.appendMessage(assistant("third", 700)) },
      { what: "a tool result after it", expectAsk: false, append: () => manager.appendMessage(toolResult(120)) },
      {
        what: "a context edit of an earlier entry",
        expectAsk: true,
        append: () => manager.appendContextEdit(manager.getBranch().findLast((e) => e.type === "message" && e.message.role === "toolResult")?.id ?? "", { content: "[edited]" }),
      },
      { what: "a reply after the edit", expectAsk: false, append: () => manager.appendMessage(assistant("fourth", 900)) },
    ];
    for (const { what, expectAsk, append } of steps) {
      append();
      const { ours, pis, askedPi } = both(tracker);
      expect(ours, what).toEqual(pis);
      expect(askedPi, what).toBe(expectAsk);
    }
    // The usage cases carry a number, the compaction case a null: the comparisons above were not all alike.
    expect(both(tracker).ours?.tokens).toBeTypeOf("number");
  });

  test("follows a move back in the tree and a branch summary, and a call reads only the entries appended since the last", () => {
    const tracker = new ContextUsageTracker();
    const start = both(tracker);
    expect(start.ours).toEqual(start.pis);
    // A long stretch of turns, read once.
    for (let i = 0; i < 300; i++) {
      manager.appendMessage(user(`step ${String(i)}`));
      manager.appendMessage(assistant(`step ${String(i)}`, 2000 + i));
      manager.appendMessage(toolResult(20));
    }
    expect(both(tracker).ours).toEqual(session.getContextUsage());
    // Three entries appended: the next call reads three parents, not the branch.
    manager.appendMessage(toolResult(10));
    manager.appendMessage(user("and then"));
    manager.appendCustomMessageEntry("note", "noted", false);
    entryReads = 0;
    const next = both(tracker);
    expect(entryReads).toBeLessThanOrEqual(3);
    expect(next.askedPi).toBe(false);
    expect(next.ours).toEqual(next.pis);

    // Back to an earlier reply (an ancestor of the last leaf), then on from there with a summary of the abandoned branch.
    const earlier = manager.getBranch().findLast((e) => e.type === "message" && e.message.role === "user" && e.message.content === "step 150");
    expect(earlier).toBeDefined();
    manager.branch(earlier?.id ?? "");
    const back = both(tracker);
    expect(back.ours).toEqual(back.pis);
    manager.branchWithSummary(manager.getLeafId(), "Tried another approach; it failed.");
    const summarized = both(tracker);
    expect(summarized.ours).toEqual(summarized.pis);
    manager.appendMessage(toolResult(30));
    const after = both(tracker);
    expect(after.ours).toEqual(after.pis);
    expect(after.askedPi).toBe(false);
  });
});
