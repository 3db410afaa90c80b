// Pi has no token count at the moment of the `context` call: right after a compaction Pi's
// `getContextUsage()` returns `tokens: null` until an assistant replies after it. The extension then
// folds on its own estimate (chars / 4 of the outgoing messages plus the system prompt).
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { ContextUsage, ExtensionFactory } from "@earendil-works/pi-coding-agent";
import { currentView, readSeedIndexFile, seedIndexPath, validateRecord } from "@context-fold/seed-index-format";
import { tempDir } from "@context-fold/test-support";
import { STUB_PREFIX } from "../../src/fold/stub.js";
import type { HeadlessPi } from "../support/headless-pi.js";
import { compactions, FOUNDING, jobModel, startPiWith } from "../compaction/support/compaction-pi.js";

const WINDOW = 20_000;

function contentText(message: Record<string, unknown>): string {
  const content = message["content"];
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((p: { type?: string; text?: string }) => (p.type === "text" ? (p.text ?? "") : "")).join("\n");
}

describe("a fold while Pi reports no token count (right after a compaction)", () => {
  const dir = tempDir("pi-null-usage-");
  let pi: HeadlessPi;
  /** What Pi's `ctx.getContextUsage()` said at each `context` event (recorded by an extension after ours). */
  const usages: (ContextUsage | undefined)[] = [];
  const recorder: ExtensionFactory = (api) => {
    api.on("context", (_event, ctx) => {
      usages.push(ctx.getContextUsage());
    });
  };

  beforeAll(async () => {
    // Pi's own compaction keeps a long recent tail (so the kept context still holds job outputs).
    pi = await startPiWith(
      { CONTEXT_FOLD_OVERRIDE_COMPACTION: "false" },
      { dir, contextWindow: WINDOW, respond: jobModel, settings: { compaction: { enabled: false, keepRecentTokens: 5600 } }, extensionFactories: [recorder] },
    );
    await pi.session.prompt(FOUNDING);
    for (let n = 1; n <= 4; n++) await pi.session.prompt(`job ${String(n)}`);
  }, 120_000);
  afterAll(() => pi.dispose());

  test("Pi's tokens are null at the call, the fold fires on the estimate, records are valid, the turn completes", async () => {
    const seedIndex = seedIndexPath(pi.manager.getSessionFile() ?? "", pi.manager.getSessionId());
    const folds = async () => currentView((await readSeedIndexFile(seedIndex).catch(() => ({ outcomes: [] }))).outcomes).filter((r) => r.trigger !== "compact");
    // Before the compaction Pi always had a count, and it stayed below the fold threshold.
    expect(usages.length).toBeGreaterThan(0);
    expect(usages.every((u) => typeof u?.tokens === "number" && u.tokens < 0.45 * WINDOW)).toBe(true);
    expect(await folds()).toHaveLength(0);

    await pi.session.compact();
    expect(compactions(pi.manager)).toHaveLength(1);
    const firstCall = pi.calls.length;
    const firstUsage = usages.length;
    const notes = Array.from({ length: 300 }, (_, i) => `note ${String(i)}: keep the frobnicator API stable and log every retry`).join("\n");
    await pi.session.prompt(`Context for the next step, read it all:\n${notes}`);

    // Pi had no count at that call (no assistant has replied since the compaction).
    const atCall = usages[firstUsage];
    expect(atCall).toEqual({ tokens: null, contextWindow: WINDOW, percent: null });
    // The fold fired on our estimate: one valid record, its usage an estimate over the threshold.
    const made = await folds();
    expect(made).toHaveLength(1);
    const record = made[0];
    expect(validateRecord(record).ok).toBe(true);
    expect(record?.usage?.contextWindow).toBe(WINDOW);
    expect(record?.usage?.tokens ?? 0).toBeGreaterThanOrEqual(0.45 * WINDOW);
    expect(record?.spans.length ?? 0).toBeGreaterThan(0);
    // The very call made with tokens null already carried the record's stubs.
    const sent = pi.calls[firstCall]?.messages ?? [];
    const stubs = sent.filter((m) => m["role"] === "toolResult" && contentText(m).startsWith(STUB_PREFIX)).map((m) => contentText(m));
    expect(stubs.length).toBe(record?.spans.length);
    for (const span of record?.spans ?? []) expect(stubs.some((text) => text.includes(span.code))).toBe(true);

    // The turn completed (one model call, Pi's reply recorded), and the next turn runs with Pi's count back.
    expect(pi.calls.length).toBe(firstCall + 1);
    const last = pi.manager.getEntries().at(-1);
    expect(last?.type === "message" && last.message.role === "assistant" && last.message.stopReason === "stop").toBe(true);
    await pi.session.prompt("job 5");
    expect(pi.calls.length).toBe(firstCall + 3);
    expect(typeof usages.at(-1)?.tokens).toBe("number");
    for (const span of record?.spans ?? []) expect(pi.calls.at(-1)?.messages.some((m) => contentText(m).includes(span.code))).toBe(true);
  }, 60_000);
});
