// What Pi holds, bounded, in a real Pi with its auto-compaction on. Folds shrink what each call sends,
// never the branch Pi keeps in memory and copies before every model call; with folds the sent context
// stays under Pi's threshold, so Pi never compacts and what it holds grows with every turn. The gate
// compacts (our summary, no model) once what Pi holds passes `heldWindows` windows, so it stays bounded
// as Pi alone's is — and nothing is lost: a needle printed before the compactions is still found by
// recall, and a fold code from before them still returns its text verified against the session file.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type AssistantMessage, fauxAssistantMessage, fauxText, fauxToolCall } from "@earendil-works/pi-ai";
import { readSeedIndexFile, seedIndexPath } from "@context-fold/seed-index-format";
import { tempDir } from "@context-fold/test-support";
import { DEFAULT_COMPACTION_OPTIONS } from "../../src/compaction/compaction-options.js";
import { estimateTokens } from "../../src/fold/estimate.js";
import type { HeadlessPi } from "../support/headless-pi.js";
import { compactions, isSummaryRequest, startPiWith, textOf } from "./support/compaction-pi.js";

/**
 * A window wide next to what each turn leaves behind once folded (a stub, the prompt, the call): the
 * fold ladder's floor is far off, so only the held limit can compact here (with a narrow window the
 * floor comes first and compacts for its own reason).
 */
const WINDOW = 32_000;
/** Pi compacts by itself over WINDOW − RESERVE tokens of what it is sent. */
const RESERVE = 4000;
/** What Pi may hold, in windows (the smallest the option allows, so a short run crosses it). */
const HELD_WINDOWS = 1;
const TURNS = 20;
/** Lines each step's command prints: ~6,000 tokens a turn. */
const LINES = 360;
const TURN_TOKENS = 6000;

function needle(step: number): string {
  return `NEEDLE-${String(step)}-${(0xfade00 + step * 7919).toString(16)}`;
}

function toolResults(pi: HeadlessPi, toolName: string): string[] {
  return pi.manager.getEntries().flatMap((e) =>
    e.type === "message" && e.message.role === "toolResult" && e.message.toolName === toolName ? [e.message.content.map((p) => (p.type === "text" ? p.text : "")).join("\n")] : [],
  );
}

/** TURNS steps in a real Pi with `env`: the Pi, what it held after each turn, and the summary requests a model answered. */
async function runSteps(env: Record<string, string>, name: string): Promise<{ pi: HeadlessPi; held: number[]; summaryRequests: () => number }> {
  let summaryRequests = 0;
  /** Estimated tokens of the branch Pi holds (its built context) after each turn, once Pi is idle. */
  const held: number[] = [];
  let responses = 0;
  const reply = (content: Parameters<typeof fauxAssistantMessage>[0], toolUse: boolean): AssistantMessage =>
    fauxAssistantMessage(content, { responseId: `hresp_${String((responses += 1))}`, stopReason: toolUse ? "toolUse" : "stop" });
  const pi = await startPiWith(
    { CONTEXT_FOLD_SUMMARY_BUDGET: "600", CONTEXT_FOLD_DIGEST_BUDGET: "200", ...env },
    {
      dir: tempDir(name),
      contextWindow: WINDOW,
      tools: ["bash", "context_recall"],
      settings: { compaction: { enabled: true, reserveTokens: RESERVE, keepRecentTokens: 1500 } },
      respond: (messages) => {
        if (isSummaryRequest(messages)) {
          summaryRequests += 1;
          return reply(fauxText("## Goal\nBuild step by step."), false);
        }
        const last = messages[messages.length - 1];
        if (last?.["role"] === "toolResult") return reply(fauxText("built"), false);
        const text = textOf(last).trim();
        const step = /^step (\d+)$/.exec(text)?.[1];
        if (step !== undefined) {
          const half = LINES / 2;
          const row = `step ${step} line %g: compiled src/module.ts ok, 0 warnings, cached`;
          const command = `seq -f '${row}' 1 ${String(half)}; echo '${needle(Number(step))}'; seq -f '${row}' ${String(half + 1)} ${String(LINES)}`;
          return reply([fauxToolCall("bash", { command }, { id: `hcall_${step}` })], true);
        }
        const find = /^find (\S+)$/.exec(text)?.[1];
        if (find !== undefined) return reply([fauxToolCall("context_recall", { query: find }, { id: `hfind_${String(responses)}` })], true);
        const code = /^code ([a-z2-7]+)$/.exec(text)?.[1];
        if (code !== undefined) return reply([fauxToolCall("context_recall", { code }, { id: `hcode_${String(responses)}` })], true);
        return reply(fauxText("noted"), false);
      },
    },
  );
  for (let turn = 1; turn <= TURNS; turn++) {
    await pi.session.prompt(`step ${String(turn)}`);
    // Our compaction starts after the run ends: let it run, as the time before a user's next prompt does.
    await new Promise((resolve) => setImmediate(resolve));
    await pi.session.waitForIdle();
    held.push(estimateTokens(pi.manager.buildSessionContext().messages as never));
  }
  return { pi, held, summaryRequests: () => summaryRequests };
}

describe("the held limit: what Pi holds stays bounded under folds, by our compaction, and stays recallable", () => {
  let pi: HeadlessPi;
  let summaryRequests = 0;
  let held: number[] = [];

  beforeAll(async () => {
    const run = await runSteps({ CONTEXT_FOLD_COMPACT_HELD: String(HELD_WINDOWS) }, "pi-held-limit-");
    ({ pi, held } = run);
    summaryRequests = run.summaryRequests();
  }, 180_000);
  afterAll(() => pi.dispose());

  test("our compaction bounds what Pi holds (no model summary, Pi's own threshold never reached)", () => {
    const done = compactions(pi.manager);
    expect(done.length).toBeGreaterThanOrEqual(1);
    expect(done.every((c) => c.fromHook)).toBe(true);
    expect(summaryRequests).toBe(0);
    // The gate said why: what Pi holds, not what is sent.
    expect(pi.notices.some((n) => n.text.startsWith("context-fold: compacting (Pi holds"))).toBe(true);
    // Unbounded, Pi would hold every turn's output: TURNS × TURN_TOKENS, ~4 limits. Bounded, it never
    // ends a turn holding more than the limit plus the turn's closing answer.
    expect(held.length).toBe(TURNS);
    expect(held.at(-1)).toBeGreaterThan(0);
    expect(Math.max(...held)).toBeLessThanOrEqual(HELD_WINDOWS * WINDOW + 100);
    expect(TURNS * TURN_TOKENS).toBeGreaterThan(3 * HELD_WINDOWS * WINDOW);
    // Folds kept what was sent under the fold threshold (so Pi's own threshold was never near).
    expect(pi.notices.some((n) => n.text.includes("fold floor"))).toBe(false);
  });

  test("a needle printed before the compactions is found by recall, and an early fold code returns its verified text", async () => {
    const first = compactions(pi.manager)[0];
    expect(first).toBeDefined();
    // Step 1's output is no longer in what Pi holds…
    const context = pi.manager.buildSessionContext().messages.map((m) => textOf(m as unknown as Record<string, unknown>)).join("\n");
    expect(context).not.toContain(needle(1));
    // …but recall finds it in the session file.
    await pi.session.prompt(`find ${needle(1)}`);
    const found = toolResults(pi, "context_recall").at(-1) ?? "";
    expect(found).toContain(needle(1));
    // A fold made before the compactions: its code still returns the block, verified by sha256.
    const sessionFile = pi.manager.getSessionFile();
    if (sessionFile === undefined) throw new Error("Pi wrote no session file");
    const { outcomes } = await readSeedIndexFile(seedIndexPath(sessionFile, pi.manager.getSessionId()));
    const records = outcomes.flatMap((o) => (o.outcome === "record" && o.record.kind === "fold-index" ? [o.record] : []));
    // Fold and compact records interleave (the two sides share what the last append left of the file's
    // tail): every seq is new and in file order, one `compact` record per compaction.
    const seqs = records.map((r) => r.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(records.filter((r) => r.trigger === "compact").length).toBe(compactions(pi.manager).length);
    const folds = records.filter((r) => r.trigger !== "compact");
    const span = folds[0]?.spans[0];
    expect(span).toBeDefined();
    await pi.session.prompt(`code ${span?.code ?? ""}`);
    const recalled = toolResults(pi, "context_recall").at(-1) ?? "";
    expect(recalled).toContain("verified: sha256 matches the session file");
    expect(recalled).toMatch(/step \d+ line 1: compiled/);
  });
});

describe("the held limit once Pi's copies have paid for a compaction: a short session is compacted at paidHeldWindows windows", () => {
  let pi: HeadlessPi;
  let held: number[] = [];
  let summaryRequests = 0;

  beforeAll(async () => {
    // The default cap (heldWindows 3): only the copies' rule can compact before three windows.
    const run = await runSteps({}, "pi-held-paid-");
    ({ pi, held } = run);
    summaryRequests = run.summaryRequests();
  }, 180_000);
  afterAll(() => pi.dispose());

  test("what Pi holds stays under paidHeldWindows windows, by our compaction (no model summary)", () => {
    expect(DEFAULT_COMPACTION_OPTIONS.heldWindows).toBe(3);
    expect(DEFAULT_COMPACTION_OPTIONS.paidHeldWindows).toBe(2);
    // Unbounded by the copies' rule, Pi would hold up to three windows before the first compaction.
    expect(TURNS * TURN_TOKENS).toBeGreaterThan(3 * WINDOW);
    const done = compactions(pi.manager);
    expect(done.length).toBeGreaterThanOrEqual(1);
    expect(done.every((c) => c.fromHook)).toBe(true);
    expect(summaryRequests).toBe(0);
    expect(pi.notices.some((n) => n.text.includes("its copies since the last compaction cost what a compaction does"))).toBe(true);
    expect(Math.max(...held)).toBeLessThanOrEqual(DEFAULT_COMPACTION_OPTIONS.paidHeldWindows * WINDOW + 100);
  });
});
