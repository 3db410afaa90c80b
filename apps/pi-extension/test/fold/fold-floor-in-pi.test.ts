// The fold ladder's floor in a real Pi with its auto-compaction on: every fold leaves a stub, and the
// stubs plus the small messages of each turn grow with the session. Once they and the protected tail
// fill the fold threshold by themselves, no fold brings the context back under it; our deterministic
// compaction must run then, well before Pi's own threshold (where Pi alone compacts), and no model may
// be asked for a summary. Without that rung the folded context grew until Pi's threshold: as large as
// Pi alone's, only later.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type AssistantMessage, fauxAssistantMessage, fauxText, fauxToolCall } from "@earendil-works/pi-ai";
import { tempDir } from "@context-fold/test-support";
import type { HeadlessPi } from "../support/headless-pi.js";
import { isSummaryRequest, startPiWith, textOf } from "../compaction/support/compaction-pi.js";

const WINDOW = 8000;
/** Pi compacts by itself over WINDOW − RESERVE tokens (its `shouldCompact`). */
const RESERVE = 1000;
const TURNS = 60;
/** Lines each step's command prints: ~600 tokens, enough for a fold to be worth it at this window. */
const LINES = 40;

/** The prompt tokens an assistant message was billed for (the faux provider: role and text, chars / 4). */
function promptTokens(message: unknown): number {
  const m = message as { role?: unknown; usage?: { input?: number; cacheRead?: number; cacheWrite?: number } };
  if (m.role !== "assistant" || m.usage === undefined) return 0;
  return (m.usage.input ?? 0) + (m.usage.cacheRead ?? 0) + (m.usage.cacheWrite ?? 0);
}

describe("the fold floor: stubs that fill the threshold lead to our compaction, before Pi's", () => {
  let pi: HeadlessPi;
  let summaryRequests = 0;

  beforeAll(async () => {
    let responses = 0;
    const reply = (content: Parameters<typeof fauxAssistantMessage>[0], toolUse: boolean): AssistantMessage =>
      fauxAssistantMessage(content, { responseId: `resp_${String((responses += 1))}`, stopReason: toolUse ? "toolUse" : "stop" });
    // Summary and digest budgets sized for this small window (the defaults are for real ones). What Pi
    // holds is bounded at the cap only (3 windows, the paid limit raised to it): a lower paid limit (one
    // window) compacts a short session long before the stubs fill the threshold, and this rung is what
    // the test is about, whatever the paid limit's default.
    pi = await startPiWith({ CONTEXT_FOLD_SUMMARY_BUDGET: "600", CONTEXT_FOLD_DIGEST_BUDGET: "200", CONTEXT_FOLD_COMPACT_HELD_PAID: "3" }, {
      dir: tempDir("pi-fold-floor-"),
      contextWindow: WINDOW,
      tools: ["bash"],
      settings: { compaction: { enabled: true, reserveTokens: RESERVE, keepRecentTokens: 1500 } },
      respond: (messages) => {
        if (isSummaryRequest(messages)) {
          summaryRequests += 1;
          return reply(fauxText("## Goal\nBuild step by step."), false);
        }
        const last = messages[messages.length - 1];
        if (last?.["role"] === "toolResult") return reply(fauxText("built"), false);
        const step = /^step (\d+)$/.exec(textOf(last).trim())?.[1];
        if (step === undefined) return reply(fauxText("noted"), false);
        const command = `seq -f 'step ${step} line %g: compiled src/module.ts ok, 0 warnings, cached' 1 ${String(LINES)}`;
        return reply([fauxToolCall("bash", { command }, { id: `call_${step}` })], true);
      },
    });
    for (let turn = 1; turn <= TURNS; turn++) {
      await pi.session.prompt(`step ${String(turn)}`);
      // Our compaction starts after the run ends: let it run, as the time before a user's next prompt does.
      await new Promise((resolve) => setImmediate(resolve));
      await pi.session.waitForIdle();
    }
  }, 180_000);
  afterAll(() => pi.dispose());

  test("our compaction runs (no model summary) and the context peaks under 0.7× Pi's own threshold", () => {
    const entries = pi.manager.getEntries();
    const compactions = entries.filter((e) => e.type === "compaction");
    expect(compactions.length).toBeGreaterThanOrEqual(1);
    expect(compactions.every((c) => c.fromHook === true)).toBe(true);
    expect(summaryRequests).toBe(0);
    expect(pi.notices.some((n) => n.text.includes("threshold (fold floor)"))).toBe(true);
    let peak = 0;
    for (const entry of entries) if (entry.type === "message") peak = Math.max(peak, promptTokens(entry.message));
    // Pi alone peaks over WINDOW − RESERVE (it compacts only once a call's context is over it).
    expect(peak).toBeGreaterThan(0);
    expect(peak).toBeLessThanOrEqual(0.7 * (WINDOW - RESERVE));
  });
});
