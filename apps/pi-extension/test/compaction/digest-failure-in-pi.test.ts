// Our digest step fails after Pi's compaction stood (the durable-artifacts file is replaced by a folder
// between our hook and `session_compact`): the compaction happened, so its `compact` record stands (a
// retraction voids only a compaction that failed); no digest is re-injected, the user is told once, and
// Pi keeps working.
import { mkdirSync, rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { ExtensionFactory } from "@earendil-works/pi-coding-agent";
import { currentView, readSeedIndexFile, seedIndexPath } from "@context-fold/seed-index-format";
import { tempDir } from "@context-fold/test-support";
import { artifactsPath } from "../../src/compaction/artifacts-file.js";
import { DIGEST_MESSAGE } from "../../src/compaction/compaction-events.js";
import type { HeadlessPi } from "../support/headless-pi.js";
import { compactions, customMessages, FOUNDING, jobModel, seedLines, startPiWith } from "./support/compaction-pi.js";

const WINDOW = 20_000;
const SETTINGS = { compaction: { enabled: false, keepRecentTokens: 2000 } };

describe("our digest step fails after the compaction stood", () => {
  const dir = tempDir("pi-digest-fail-");
  let pi: HeadlessPi;
  let artifacts = "";
  let armed = false;
  // Loaded after ours: our hook has written the artifacts and appended its record; a folder now takes
  // the artifacts file's place, so reading it back for the digest fails.
  const saboteur: ExtensionFactory = (api) => {
    api.on("session_before_compact", () => {
      if (!armed) return undefined;
      armed = false;
      rmSync(artifacts);
      mkdirSync(artifacts);
      return undefined;
    });
  };

  beforeAll(async () => {
    pi = await startPiWith({}, { dir, contextWindow: WINDOW, respond: jobModel, settings: SETTINGS, extensionFactories: [saboteur] });
    await pi.session.prompt(FOUNDING);
    for (let n = 1; n <= 3; n++) await pi.session.prompt(`job ${String(n)}`);
  }, 120_000);
  afterAll(() => pi.dispose());

  test("the record stands with Pi's compaction, no digest, the user is told once, later turns complete", async () => {
    const seedIndex = seedIndexPath(pi.manager.getSessionFile() ?? "", pi.manager.getSessionId());
    artifacts = artifactsPath(seedIndex);
    armed = true;
    await pi.session.compact();
    const [entry] = compactions(pi.manager);
    expect(entry?.fromHook).toBe(true);
    const lines = await seedLines(seedIndex);
    expect(lines.some((l) => l.kind === "retract")).toBe(false);
    const view = currentView((await readSeedIndexFile(seedIndex)).outcomes).filter((r) => r.trigger === "compact");
    expect(view).toHaveLength(1);
    expect(view[0]?.seq).toBe(entry?.details?.["seq"]);
    expect(customMessages(pi.manager, DIGEST_MESSAGE)).toHaveLength(0);

    const calls = pi.calls.length;
    await pi.session.prompt("job 4");
    await pi.session.prompt("job 5");
    expect(pi.calls.length).toBe(calls + 4);
    const told = pi.notices.filter((n) => n.text.startsWith("context-fold:") && n.text.includes("failed"));
    expect(told).toHaveLength(1);
    expect(told[0]?.text).toContain("re-injecting the digest failed");
    expect(told[0]?.text).toContain("ARTIFACTS_UNREADABLE");

    // With the folder gone, the next compaction stands too and its digest arrives.
    rmSync(artifacts, { recursive: true });
    await pi.session.compact();
    expect(compactions(pi.manager)).toHaveLength(2);
    expect(customMessages(pi.manager, DIGEST_MESSAGE)).toHaveLength(1);
    expect(customMessages(pi.manager, DIGEST_MESSAGE)[0]?.content).toContain(FOUNDING);
  }, 60_000);
});
