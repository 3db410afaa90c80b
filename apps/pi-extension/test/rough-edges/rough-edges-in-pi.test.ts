// Rough edges in a real, headless Pi: `/recall` before Pi has written the session file is a warning, not
// an error about a missing file; disposing a session while a compaction we started runs leaves no
// unhandled rejection (the failure report must not touch the disposed session's UI).
import { afterEach, describe, expect, test } from "vitest";
import { tempDir } from "@context-fold/test-support";
import { FOUNDING, jobModel, startPiWith } from "../compaction/support/compaction-pi.js";
import type { HeadlessPi } from "../support/headless-pi.js";

const WINDOW = 20_000;
const SETTINGS = { compaction: { enabled: false, keepRecentTokens: 2000 } };

describe("rough edges in a headless Pi", () => {
  let pi: HeadlessPi | undefined;
  afterEach(() => pi?.dispose());

  test("/recall and /pi-vcc-recall on a fresh session: a warning that nothing is written yet, no error", async () => {
    pi = await startPiWith({}, { dir: tempDir("pi-rough-recall-"), contextWindow: WINDOW, respond: jobModel, settings: SETTINGS });
    await pi.session.prompt("/recall foo");
    await pi.session.prompt("/pi-vcc-recall foo");
    const told = pi.notices.filter((n) => /^\/(recall|pi-vcc-recall)[: ]/.test(n.text));
    expect(told.map((n) => n.level)).toEqual(["warning", "warning"]);
    for (const n of told) {
      expect(n.text).toContain("nothing to recall yet");
      expect(n.text).not.toMatch(/ENOENT|no such file/i);
    }
  }, 60_000);

  test("disposing the session while our compaction runs: no unhandled rejection", async () => {
    const rejections: unknown[] = [];
    const onRejection = (reason: unknown): void => {
      rejections.push(reason);
    };
    process.on("unhandledRejection", onRejection);
    try {
      const started = await startPiWith({}, { dir: tempDir("pi-rough-dispose-"), contextWindow: WINDOW, respond: jobModel, settings: SETTINGS });
      await started.session.prompt(FOUNDING);
      for (let n = 1; n <= 3; n++) await started.session.prompt(`job ${String(n)}`);
      // Starts a compaction without awaiting it (as Pi's ctx.compact does), then the session goes away.
      await started.session.prompt("/context-fold compact");
      started.dispose();
      await new Promise((resolve) => setTimeout(resolve, 1500));
    } finally {
      process.off("unhandledRejection", onRejection);
    }
    expect(rejections.map((r) => (r instanceof Error ? r.message : String(r)))).toEqual([]);
  }, 60_000);
});
