// The next step after a compaction, as seed 001 has it (default `auto`), in a real headless Pi: after an
// automatic compaction in interactive mode a turn starts on it (autonomous); after a compaction the user
// asked for, or in print mode, it is only shown (advisory); an explicit mode still wins.
import { afterEach, describe, expect, test } from "vitest";
import { tempDir } from "@context-fold/test-support";
import { DIGEST_MESSAGE } from "../../src/compaction/compaction-events.js";
import type { HeadlessOptions, HeadlessPi } from "../support/headless-pi.js";
import { compactions, customMessages, FOUNDING, jobModel, startPiWith, waitFor } from "./support/compaction-pi.js";

const WINDOW = 20_000;
const SETTINGS = { compaction: { enabled: false, keepRecentTokens: 2000 } };
/** Folding off and a low global threshold: our gate compacts by itself after a few jobs. */
const AUTOMATIC = { CONTEXT_FOLD_ENABLED: "0", CONTEXT_FOLD_THRESHOLDS: JSON.stringify({ globalThreshold: { compactPercent: 30 } }) };
const RESUME = "Continue with the next step.";

async function runUntilCompacted(pi: HeadlessPi): Promise<void> {
  await pi.session.prompt(FOUNDING);
  for (let n = 1; n <= 8 && compactions(pi.manager).length === 0; n++) {
    await pi.session.prompt(`job ${String(n)}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
    await waitFor(() => !pi.session.isCompacting, "a running compaction");
  }
  await waitFor(() => customMessages(pi.manager, DIGEST_MESSAGE).length > 0, "the digest");
}

function start(env: Record<string, string>, mode: HeadlessOptions["mode"], dir: string): Promise<HeadlessPi> {
  return startPiWith(env, { dir: tempDir(dir), contextWindow: WINDOW, respond: jobModel, settings: SETTINGS, ...(mode === undefined ? {} : { mode }) });
}

describe("next step after compaction (auto) in a headless Pi", () => {
  let pi: HeadlessPi | undefined;
  afterEach(() => pi?.dispose());

  test("automatic compaction, interactive mode: a turn starts on the next step", async () => {
    pi = await start(AUTOMATIC, "tui", "pi-next-auto-tui-");
    await runUntilCompacted(pi);
    const [digest] = customMessages(pi.manager, DIGEST_MESSAGE);
    expect(digest?.content).toContain(RESUME);
    const resumed = (): boolean => (pi?.calls ?? []).some((c) => JSON.stringify(c.messages).includes(RESUME));
    await waitFor(resumed, "the autonomous turn");
  }, 90_000);

  test("a compaction the user asked for, interactive mode: shown, no turn", async () => {
    pi = await start({ CONTEXT_FOLD_ENABLED: "0" }, "tui", "pi-next-manual-tui-");
    await pi.session.prompt(FOUNDING);
    for (let n = 1; n <= 3; n++) await pi.session.prompt(`job ${String(n)}`);
    const calls = pi.calls.length;
    await pi.session.prompt("/context-fold compact");
    await waitFor(() => customMessages(pi?.manager ?? ({} as never), DIGEST_MESSAGE).length === 1, "the digest");
    expect(customMessages(pi.manager, DIGEST_MESSAGE)[0]?.content).not.toContain(RESUME);
    expect(pi.notices.some((n) => n.text.startsWith("context-fold: Next step ("))).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(pi.calls.length).toBe(calls);
  }, 90_000);

  test("automatic compaction in print mode: shown, no turn", async () => {
    pi = await start(AUTOMATIC, "print", "pi-next-auto-print-");
    await runUntilCompacted(pi);
    expect(customMessages(pi.manager, DIGEST_MESSAGE)[0]?.content).not.toContain(RESUME);
    expect(pi.calls.some((c) => JSON.stringify(c.messages).includes(RESUME))).toBe(false);
  }, 90_000);

  test("configurable: advisory stays advisory after an automatic compaction in interactive mode", async () => {
    pi = await start({ ...AUTOMATIC, CONTEXT_FOLD_NEXT_STEP: "advisory" }, "tui", "pi-next-advisory-");
    await runUntilCompacted(pi);
    expect(customMessages(pi.manager, DIGEST_MESSAGE)[0]?.content).not.toContain(RESUME);
  }, 90_000);
});
