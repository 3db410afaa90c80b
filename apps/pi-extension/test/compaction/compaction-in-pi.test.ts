// Compaction through our hook inside a real, headless Pi: `/compact` and `/context-fold compact` produce a
// compaction entry from our hook and one valid `compact` record; the digest arrives once after it with the
// founding request verbatim; the durable artifacts are on disk before it and survive a restart.
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { currentView, readSeedIndexFile, seedIndexPath, validateRecord } from "@context-fold/seed-index-format";
import { isOwnSummary } from "@context-fold/summary-formatter";
import { tempDir } from "@context-fold/test-support";
import { DIGEST_MESSAGE } from "../../src/compaction/compaction-events.js";
import { artifactsPath, readArtifactsFile } from "../../src/compaction/artifacts-file.js";
import type { HeadlessPi } from "../support/headless-pi.js";
import { compactions, customMessages, FOUNDING, jobModel, seedLines, startPiWith, waitFor } from "./support/compaction-pi.js";

const WINDOW = 20_000;
const SETTINGS = { compaction: { enabled: false, keepRecentTokens: 2000 } };

function callText(call: { messages: Record<string, unknown>[] } | undefined): string {
  return JSON.stringify(call?.messages ?? []);
}

function occurrences(text: string, needle: string): number {
  let count = 0;
  for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + needle.length)) count += 1;
  return count;
}

describe("compaction through our hook in a headless Pi", () => {
  const dir = tempDir("pi-compact-");
  let pi: HeadlessPi;
  let sessionFile: string;
  let seedIndex: string;
  let callsBeforeCompact = 0;
  let artifactsBeforeRestart = "";

  beforeAll(async () => {
    pi = await startPiWith({}, { dir, contextWindow: WINDOW, respond: jobModel, settings: SETTINGS });
    await pi.session.prompt(FOUNDING);
    for (let n = 1; n <= 4; n++) await pi.session.prompt(`job ${String(n)}`);
    callsBeforeCompact = pi.calls.length;
    await pi.session.compact();
    await pi.session.prompt("job 5");
    sessionFile = pi.manager.getSessionFile() ?? "";
    seedIndex = seedIndexPath(sessionFile, pi.manager.getSessionId());
  }, 120_000);
  afterAll(() => pi.dispose());

  test("/compact: a compaction entry from our hook, our summary, a cut on Pi's branch, no model call", () => {
    const [entry] = compactions(pi.manager);
    expect(entry?.fromHook).toBe(true);
    expect(isOwnSummary(entry?.summary ?? "")).toBe(true);
    expect(entry?.summary).toContain(FOUNDING);
    expect(entry?.details?.["harness"]).toBe("pi-context-fold");
    expect(pi.manager.getEntries().some((e) => e.id === entry?.firstKeptEntryId)).toBe(true);
    // The summary came from us: the calls after compaction are the ones `job 5` made (2: bash, then text).
    expect(pi.calls.length - callsBeforeCompact).toBe(2);
  });

  test("one valid compact record, its seq in the entry's details, covering the compacted jobs", async () => {
    const lines = await seedLines(seedIndex);
    const compacts = lines.flatMap((l) => (l.kind === "record" && l.record.trigger === "compact" ? [l.record] : []));
    expect(compacts).toHaveLength(1);
    const record = compacts[0];
    expect(validateRecord(record).ok).toBe(true);
    expect(record?.seq).toBe(compactions(pi.manager)[0]?.details?.["seq"]);
    expect(record?.usage?.contextWindow).toBe(WINDOW);
    expect(record?.userMessages[0]?.firstLine).toBe(FOUNDING);
    expect(record?.spans.some((s) => s.blockId.startsWith("r:cjob_1_"))).toBe(true);
    expect(record?.commands.some((c) => c.includes("job 1 row"))).toBe(true);
  });

  test("the digest is re-injected once, hidden, after the compaction, with the founding request verbatim", () => {
    const digests = customMessages(pi.manager, DIGEST_MESSAGE);
    expect(digests).toHaveLength(1);
    expect(digests[0]?.display).toBe(false);
    expect(digests[0]?.content).toContain("[Durable Artifacts]");
    expect(digests[0]?.content).toContain(FOUNDING);
    // The digest entry follows the compaction entry in the session.
    const entries = pi.manager.getEntries();
    const compactionAt = entries.findIndex((e) => e.type === "compaction");
    const digestAt = entries.findIndex((e) => e.type === "custom_message" && e.customType === DIGEST_MESSAGE);
    expect(digestAt).toBeGreaterThan(compactionAt);
    // And the model receives it: the first call after compaction carries the digest once, founding request verbatim.
    const sent = callText(pi.calls[callsBeforeCompact]);
    expect(occurrences(sent, "[Durable Artifacts]")).toBe(1);
    expect(sent).toContain(JSON.stringify(FOUNDING).slice(1, -1));
    expect(pi.notices.some((n) => n.text.includes("digest re-injected"))).toBe(true);
  });

  test("the durable artifacts are on disk beside the seed index, founding request verbatim", async () => {
    const file = artifactsPath(seedIndex);
    const doc = await readArtifactsFile(file);
    expect(doc?.session).toBe(pi.manager.getSessionId());
    expect(doc?.artifacts.initialPrompts.map((p) => p.text)).toContain(FOUNDING);
    artifactsBeforeRestart = readFileSync(file, "utf8");
  });

  test("a restart keeps the artifacts; /context-fold compact compacts again, with a new record and digest", async () => {
    pi.dispose();
    pi = await startPiWith({}, { dir, open: sessionFile, contextWindow: WINDOW, respond: jobModel, settings: SETTINGS });
    expect(readFileSync(artifactsPath(seedIndex), "utf8")).toBe(artifactsBeforeRestart);
    for (let n = 6; n <= 8; n++) await pi.session.prompt(`job ${String(n)}`);
    await pi.session.prompt("/context-fold compact");
    await waitFor(() => compactions(pi.manager).length === 2 && customMessages(pi.manager, DIGEST_MESSAGE).length === 2, "the second compaction and digest");
    const second = compactions(pi.manager)[1];
    expect(second?.fromHook).toBe(true);
    const { outcomes } = await readSeedIndexFile(seedIndex);
    const view = currentView(outcomes).filter((r) => r.trigger === "compact");
    expect(view.map((r) => r.seq)).toEqual([compactions(pi.manager)[0]?.details?.["seq"], second?.details?.["seq"]]);
    for (const r of view) expect(validateRecord(r).ok).toBe(true);
    // The second compact record re-extracts all compacted history: job 1 (compacted before) is still in it.
    expect(view[1]?.spans.some((s) => s.blockId.startsWith("r:cjob_1_"))).toBe(true);
    const digest = customMessages(pi.manager, DIGEST_MESSAGE)[1];
    expect(digest?.content).toContain(FOUNDING);
    // The second summary merged the first: the founding request survives two compactions.
    expect(second?.summary).toContain(FOUNDING);
  }, 120_000);
});
