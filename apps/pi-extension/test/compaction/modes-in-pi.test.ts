// Modes in a real Pi: with overrideDefaultCompaction off Pi's LLM summary runs while our record, artifacts
// and digest still apply; the autonomous next step starts a turn after compaction; advisory tells the user.
import { afterEach, describe, expect, test } from "vitest";
import { currentView, readSeedIndexFile, seedIndexPath } from "@context-fold/seed-index-format";
import { isOwnSummary } from "@context-fold/summary-formatter";
import { tempDir } from "@context-fold/test-support";
import { DIGEST_MESSAGE } from "../../src/compaction/compaction-events.js";
import type { HeadlessPi } from "../support/headless-pi.js";
import { compactions, customMessages, FOUNDING, jobModel, startPiWith, waitFor } from "./support/compaction-pi.js";

const WINDOW = 20_000;
const SETTINGS = { compaction: { enabled: false, keepRecentTokens: 2000 } };

describe("compaction modes in a headless Pi", () => {
  let pi: HeadlessPi | undefined;
  afterEach(() => pi?.dispose());

  test("overrideDefaultCompaction off: Pi's own summary, our record and digest still apply; next step autonomous starts a turn", async () => {
    pi = await startPiWith(
      { CONTEXT_FOLD_OVERRIDE_COMPACTION: "off", CONTEXT_FOLD_NEXT_STEP: "autonomous" },
      { dir: tempDir("pi-mode-off-"), contextWindow: WINDOW, respond: jobModel, settings: SETTINGS },
    );
    await pi.session.prompt(FOUNDING);
    for (let n = 1; n <= 3; n++) await pi.session.prompt(`job ${String(n)}`);
    const calls = pi.calls.length;
    await pi.session.compact();
    const [entry] = compactions(pi.manager);
    expect(entry?.fromHook).toBe(false);
    expect(isOwnSummary(entry?.summary ?? "")).toBe(false);
    const seedIndex = seedIndexPath(pi.manager.getSessionFile() ?? "", pi.manager.getSessionId());
    expect(currentView((await readSeedIndexFile(seedIndex)).outcomes).filter((r) => r.trigger === "compact")).toHaveLength(1);
    const [digest] = customMessages(pi.manager, DIGEST_MESSAGE);
    expect(digest?.content).toContain(FOUNDING);
    expect(digest?.content).toContain("Next step (");
    expect(digest?.content).toContain("Continue with the next step.");
    // The digest started a turn by itself: the model was called once more with the digest in its context.
    const resumed = (): boolean => (pi?.calls.slice(calls) ?? []).some((c) => JSON.stringify(c.messages).includes("Continue with the next step."));
    await waitFor(resumed, "the autonomous turn");
    expect(resumed()).toBe(true);
  }, 60_000);

  test("next step advisory: told to the user, not sent as an instruction", async () => {
    pi = await startPiWith({}, { dir: tempDir("pi-mode-adv-"), contextWindow: WINDOW, respond: jobModel, settings: SETTINGS });
    await pi.session.prompt(FOUNDING);
    for (let n = 1; n <= 3; n++) await pi.session.prompt(`job ${String(n)}`);
    const calls = pi.calls.length;
    await pi.session.compact();
    expect(pi.notices.some((n) => n.text.startsWith("context-fold: Next step ("))).toBe(true);
    expect(customMessages(pi.manager, DIGEST_MESSAGE)[0]?.content).not.toContain("Continue with the next step.");
    expect(pi.calls.length).toBe(calls);
  }, 60_000);
});
