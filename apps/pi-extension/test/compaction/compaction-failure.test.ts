// Failure paths in a real Pi: a compaction that fails after our record was written gets a fold-retract
// for that seq and Pi keeps working; a failure of ours never reaches Pi (its own compaction runs, the user
// is told once).
import { mkdirSync, rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { ExtensionFactory } from "@earendil-works/pi-coding-agent";
import { currentView, readSeedIndexFile, seedIndexPath, validateRecord } from "@context-fold/seed-index-format";
import { tempDir } from "@context-fold/test-support";
import { artifactsPath } from "../../src/compaction/artifacts-file.js";
import { DIGEST_MESSAGE } from "../../src/compaction/compaction-events.js";
import type { HeadlessPi } from "../support/headless-pi.js";
import { compactions, customMessages, FOUNDING, jobModel, seedLines, startPiWith } from "./support/compaction-pi.js";

const WINDOW = 20_000;
const SETTINGS = { compaction: { enabled: false, keepRecentTokens: 2000 } };

describe("a compaction that fails after our hook", () => {
  const dir = tempDir("pi-compact-fail-");
  let pi: HeadlessPi;
  let refuse = false;
  // Loaded after ours: cancelling here makes Pi fail the compaction our hook already recorded.
  const saboteur: ExtensionFactory = (api) => {
    api.on("session_before_compact", () => (refuse ? { cancel: true } : undefined));
  };

  beforeAll(async () => {
    pi = await startPiWith({}, { dir, contextWindow: WINDOW, respond: jobModel, settings: SETTINGS, extensionFactories: [saboteur] });
    await pi.session.prompt(FOUNDING);
    for (let n = 1; n <= 3; n++) await pi.session.prompt(`job ${String(n)}`);
  }, 120_000);
  afterAll(() => pi.dispose());

  test("the record is retracted for its seq, nothing is re-injected, and Pi keeps working", async () => {
    const seedIndex = seedIndexPath(pi.manager.getSessionFile() ?? "", pi.manager.getSessionId());
    refuse = true;
    await expect(pi.session.compact()).rejects.toThrow(/cancel/i);
    refuse = false;
    const lines = await seedLines(seedIndex);
    const last = lines[lines.length - 1];
    const before = lines[lines.length - 2];
    expect(before?.kind).toBe("record");
    expect(before?.kind === "record" ? before.record.trigger : "").toBe("compact");
    expect(last?.kind).toBe("retract");
    expect(last?.record.seq).toBe(before?.record.seq);
    expect(validateRecord(last?.record).ok).toBe(true);
    const { outcomes } = await readSeedIndexFile(seedIndex);
    expect(currentView(outcomes).some((r) => r.seq === before?.record.seq)).toBe(false);
    expect(compactions(pi.manager)).toHaveLength(0);
    expect(customMessages(pi.manager, DIGEST_MESSAGE)).toHaveLength(0);

    // Pi keeps working, and the next compaction stands with a new seq.
    const calls = pi.calls.length;
    await pi.session.prompt("job 4");
    expect(pi.calls.length).toBe(calls + 2);
    await pi.session.compact();
    expect(compactions(pi.manager)[0]?.fromHook).toBe(true);
    const view = currentView((await readSeedIndexFile(seedIndex)).outcomes).filter((r) => r.trigger === "compact");
    expect(view).toHaveLength(1);
    expect(view[0]?.seq).toBeGreaterThan(before?.record.seq ?? Number.MAX_SAFE_INTEGER);
    expect(customMessages(pi.manager, DIGEST_MESSAGE)).toHaveLength(1);
  }, 60_000);
});

describe("a failure of ours during compaction", () => {
  const dir = tempDir("pi-compact-ours-");
  let pi: HeadlessPi;

  beforeAll(async () => {
    pi = await startPiWith({}, { dir, contextWindow: WINDOW, respond: jobModel, settings: SETTINGS });
    await pi.session.prompt(FOUNDING);
    for (let n = 1; n <= 3; n++) await pi.session.prompt(`job ${String(n)}`);
  }, 120_000);
  afterAll(() => pi.dispose());

  test("Pi's own compaction runs, the user is told once, no record stands, and Pi keeps working", async () => {
    const seedIndex = seedIndexPath(pi.manager.getSessionFile() ?? "", pi.manager.getSessionId());
    // Runs far from a compaction write no artifacts (the gate persists them only near one); whether or
    // not a file is there, a folder in its place makes the hook's rename fail.
    rmSync(artifactsPath(seedIndex), { force: true });
    mkdirSync(artifactsPath(seedIndex), { recursive: true });
    const calls = pi.calls.length;
    await pi.session.compact();
    const [entry] = compactions(pi.manager);
    expect(entry?.fromHook).toBe(false);
    expect(pi.calls.length).toBeGreaterThan(calls); // Pi asked the model for its summary
    const { outcomes } = await readSeedIndexFile(seedIndex).catch(() => ({ outcomes: [] }));
    expect(currentView(outcomes).filter((r) => r.trigger === "compact")).toHaveLength(0);
    await pi.session.prompt("job 4");
    await pi.session.compact().catch(() => undefined);
    const told = pi.notices.filter((n) => n.text.startsWith("context-fold:") && n.text.includes("failed"));
    expect(told).toHaveLength(1);
    expect(told[0]?.text).toContain("ARTIFACTS_WRITE_FAILED");
    expect(pi.calls.length).toBeGreaterThan(calls + 2);
  }, 60_000);
});

describe("Pi's leaf moved without writing (/tree back to an earlier reply)", () => {
  const dir = tempDir("pi-compact-leaf-");
  let pi: HeadlessPi;

  beforeAll(async () => {
    pi = await startPiWith({}, { dir, contextWindow: WINDOW, respond: jobModel, settings: SETTINGS });
    await pi.session.prompt(FOUNDING);
    for (let n = 1; n <= 4; n++) await pi.session.prompt(`job ${String(n)}`);
  }, 120_000);
  afterAll(() => pi.dispose());

  test("our hook steps aside (the file's leaf is not Pi's): Pi's compaction runs, no record, told once", async () => {
    const seedIndex = seedIndexPath(pi.manager.getSessionFile() ?? "", pi.manager.getSessionId());
    const replies = pi.manager.getEntries().filter((e) => e.type === "message" && e.message.role === "assistant" && e.message.stopReason === "stop");
    const target = replies[2]; // the reply that closed job 2
    if (target === undefined) throw new Error("no reply to navigate to");
    const moved = await pi.session.navigateTree(target.id, { summarize: false });
    expect(moved.cancelled).toBe(false);
    expect(pi.manager.getLeafId()).toBe(target.id);
    await pi.session.compact();
    expect(compactions(pi.manager)[0]?.fromHook).toBe(false);
    const { outcomes } = await readSeedIndexFile(seedIndex);
    expect(currentView(outcomes).filter((r) => r.trigger === "compact")).toHaveLength(0);
    const told = pi.notices.filter((n) => n.text.startsWith("context-fold: compaction failed"));
    expect(told).toHaveLength(1);
    expect(told[0]?.text).toContain("LEAF_MISMATCH");
  }, 60_000);
});
