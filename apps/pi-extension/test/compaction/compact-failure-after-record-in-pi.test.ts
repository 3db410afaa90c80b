// A compaction that fails after our `compact` record was appended, through a real seam: a folder where
// Pi's session file must be, so Pi's write of the compaction entry fails (EISDIR) and Pi reports
// `session_compact_failed` with an error (not a cancel). Our record must be retracted for its seq and
// Pi must keep working once the file is back.
import { mkdirSync, renameSync, rmdirSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { ExtensionFactory } from "@earendil-works/pi-coding-agent";
import { currentView, readSeedIndexFile, seedIndexPath, validateRecord } from "@context-fold/seed-index-format";
import { tempDir } from "@context-fold/test-support";
import { DIGEST_MESSAGE } from "../../src/compaction/compaction-events.js";
import type { HeadlessPi } from "../support/headless-pi.js";
import { compactions, customMessages, FOUNDING, jobModel, seedLines, startPiWith } from "./support/compaction-pi.js";

const WINDOW = 20_000;
const SETTINGS = { compaction: { enabled: false, keepRecentTokens: 2000 } };

describe("Pi fails to write the compaction our hook already recorded (session file replaced by a folder)", () => {
  const dir = tempDir("pi-compact-fail-");
  let pi: HeadlessPi;
  let sessionFile = "";
  let armed = false;
  const failures: { errorMessage: string | undefined; aborted: boolean }[] = [];
  // Loaded after ours: by the time it runs our record is on disk; it moves the session file aside and
  // puts a folder in its place, so Pi's append of the compaction entry fails.
  const saboteur: ExtensionFactory = (api) => {
    api.on("session_before_compact", () => {
      if (!armed) return undefined;
      armed = false;
      renameSync(sessionFile, `${sessionFile}.aside`);
      mkdirSync(sessionFile);
      return undefined;
    });
    api.on("session_compact_failed", (event) => {
      failures.push({ errorMessage: event.errorMessage, aborted: event.aborted });
    });
  };
  const restore = (): void => {
    rmdirSync(sessionFile);
    renameSync(`${sessionFile}.aside`, sessionFile);
  };

  beforeAll(async () => {
    pi = await startPiWith({}, { dir, contextWindow: WINDOW, respond: jobModel, settings: SETTINGS, extensionFactories: [saboteur] });
    await pi.session.prompt(FOUNDING);
    for (let n = 1; n <= 3; n++) await pi.session.prompt(`job ${String(n)}`);
    sessionFile = pi.manager.getSessionFile() ?? "";
  }, 120_000);
  afterAll(() => pi.dispose());

  test("a fold-retract for that seq follows the record, Pi keeps working, the next compaction stands", async () => {
    const seedIndex = seedIndexPath(sessionFile, pi.manager.getSessionId());
    armed = true;
    await expect(pi.session.compact()).rejects.toThrow(/EISDIR|directory/i);
    restore();
    // Pi failed (an error, not a cancel) after our hook had appended its record.
    expect(failures).toHaveLength(1);
    expect(failures[0]?.aborted).toBe(false);
    expect(failures[0]?.errorMessage).toMatch(/EISDIR/);

    const lines = await seedLines(seedIndex);
    const last = lines[lines.length - 1];
    const before = lines[lines.length - 2];
    expect(before?.kind === "record" ? before.record.trigger : "").toBe("compact");
    expect(last?.kind).toBe("retract");
    expect(last?.record.seq).toBe(before?.record.seq);
    expect(validateRecord(last?.record).ok).toBe(true);
    expect(last?.kind === "retract" ? last.record.reason : "").toMatch(/EISDIR/);
    const { outcomes } = await readSeedIndexFile(seedIndex);
    expect(currentView(outcomes).some((r) => r.seq === before?.record.seq)).toBe(false);
    expect(compactions(pi.manager)).toHaveLength(0);
    expect(customMessages(pi.manager, DIGEST_MESSAGE)).toHaveLength(0);
    // The retraction itself went through (reading the session file was not needed for it): no failure of ours to tell.
    expect(pi.notices.filter((n) => n.text.startsWith("context-fold:") && n.text.includes("failed"))).toHaveLength(0);

    // With the file back, Pi keeps working, and the next compaction stands with a new seq.
    const calls = pi.calls.length;
    await pi.session.prompt("job 4");
    expect(pi.calls.length).toBe(calls + 2);
    await pi.session.compact();
    expect(compactions(pi.manager)).toHaveLength(1);
    expect(compactions(pi.manager)[0]?.fromHook).toBe(true);
    const view = currentView((await readSeedIndexFile(seedIndex)).outcomes).filter((r) => r.trigger === "compact");
    expect(view).toHaveLength(1);
    expect(view[0]?.seq).toBeGreaterThan(before?.record.seq ?? Number.MAX_SAFE_INTEGER);
    expect(customMessages(pi.manager, DIGEST_MESSAGE)).toHaveLength(1);
    await pi.session.prompt("job 5");
    expect(pi.calls.length).toBe(calls + 4);
  }, 60_000);
});
