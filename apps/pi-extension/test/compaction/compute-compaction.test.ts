// The hook's compaction from incrementally accumulated facts equals the from-scratch compaction of the
// same session (summary, cut, digest, record), on sessions written by Pi's own SessionManager; a branch
// switch starts the accumulators over; artifacts files are atomic; the next step follows its order.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, test } from "vitest";
import { SessionManager } from "@earendil-works/pi-coding-agent";
import { createSeedAccumulator, extractArtifacts, extractFacts, lastEntryTime, recordBlocks } from "@context-fold/extractors";
import { lineageBlocks, readSession, type Session } from "@context-fold/ledger-reader";
import { CodeAssigner, validateRecord } from "@context-fold/seed-index-format";
import { compactSession } from "@context-fold/summary-formatter";
import { LINEAR_TIME_MS, tempDir } from "@context-fold/test-support";
import { ArtifactsFileError, readArtifactsFile, writeArtifactsFile } from "../../src/compaction/artifacts-file.js";
import { CompactionFacts } from "../../src/compaction/compaction-facts.js";
import { DEFAULT_COMPACTION_OPTIONS } from "../../src/compaction/compaction-options.js";
import { CompactionSession, type SeqSource } from "../../src/compaction/compaction-session.js";
import { LedgerTracker } from "../../src/ledger-tracker.js";
import { computeHookCompaction } from "../../src/compaction/compute-compaction.js";
import { NEXT_STEP_MAX, nextStep } from "../../src/compaction/next-step.js";
import { appendJob } from "../support/pi-written-session.js";

const FOUNDING = "Port the ledger to Rust and keep the JSON format byte-identical (ticket LEDG-42).";
const CORRECTION = "No, don't touch the CLI flags; only the library.";

function userText(manager: SessionManager, text: string, at: number): void {
  manager.appendMessage({ role: "user", content: [{ type: "text", text }], timestamp: at });
}

function assistantText(manager: SessionManager, text: string, at: number, id: string): void {
  manager.appendMessage({
    role: "assistant",
    content: [{ type: "text", text }],
    api: "faux",
    provider: "faux",
    model: "faux-1",
    responseId: id,
    usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
    stopReason: "stop",
    timestamp: at,
  });
}

/** A Pi-written session, read after every job with the facts fed as the extension does between runs. */
async function growSession(jobs: number): Promise<{ session: Session; facts: CompactionFacts; manager: SessionManager; file: string }> {
  const dir = tempDir("compute-compaction-");
  const manager = SessionManager.create(dir, join(dir, "sessions"));
  let t = Date.UTC(2026, 10, 29, 9, 0, 0);
  userText(manager, FOUNDING, (t += 1000));
  assistantText(manager, "On it.", (t += 1000), "resp_found");
  const file = manager.getSessionFile() ?? "";
  const facts = new CompactionFacts(dir);
  let session = await readSession(file);
  for (let n = 1; n <= jobs; n++) {
    if (n === 3) {
      userText(manager, CORRECTION, (t += 1000));
      assistantText(manager, "Understood. Next, re-run the job script.", (t += 1000), `resp_corr_${String(n)}`);
    }
    appendJob(manager, n, (t += 60_000), { thinkingChars: 300, rows: 60 });
    session = await readSession(file);
    facts.feedSettled(session);
  }
  return { session, facts, manager, file };
}

describe("the hook's compaction from accumulated facts", () => {
  test("equals the from-scratch compaction: summary, cut, digest; the record matches a fresh extraction", async () => {
    const { session, facts } = await growSession(8);
    const fedBefore = facts.lastIndex;
    expect(fedBefore).toBeGreaterThan(0);
    const hook = computeHookCompaction({ session, facts, sessionId: session.header.id, seq: 5, summaryBudget: 2000, digestBudget: 600 });
    const scratch = compactSession(session, { budget: 2000, digestBudget: 600 });
    expect(hook.result.summary).toBe(scratch.summary);
    expect(hook.result.firstKeptEntryId).toBe(scratch.firstKeptEntryId);
    expect(hook.result.digest).toBe(scratch.digest);
    expect(hook.result.summary).toContain(FOUNDING);
    expect(hook.result.digest).toContain(CORRECTION);

    const firstKept = session.byId.get(hook.result.firstKeptEntryId);
    const before = recordBlocks(session, { scope: "lineage" }).filter((b) => b.entryPosition < (firstKept?.position ?? 0));
    const fresh = createSeedAccumulator({ cwd: session.header.cwd })
      .add(before)
      .record({ sessionId: session.header.id, seq: 5, at: lastEntryTime(session), trigger: "compact", favourRecent: true, codes: new CodeAssigner() });
    expect(hook.record).toEqual(fresh);
    expect(validateRecord(hook.record).ok).toBe(true);
    expect(hook.record.trigger).toBe("compact");
    expect(hook.details).toMatchObject({ harness: "pi-context-fold", seq: 5 });

    const lineageBefore = lineageBlocks(session).filter((b) => b.entryPosition < (firstKept?.position ?? 0));
    expect(hook.artifacts.artifacts).toEqual(extractArtifacts(lineageBefore, { cwd: session.header.cwd }));
    expect(hook.artifacts.lastIndex).toBe(lineageBefore[lineageBefore.length - 1]?.index);
    expect(hook.artifacts.at).toBe(lastEntryTime(session));
  });

  test("a branch switch starts the accumulators over from the new lineage", async () => {
    const { manager, file, facts } = await growSession(5);
    // Branch from the founding exchange and continue there: the blocks fed earlier leave the lineage.
    const entries = manager.getEntries();
    const foundingReply = entries.find((e) => e.type === "message" && e.message.role === "assistant");
    manager.branch(foundingReply?.id ?? "");
    let t = Date.UTC(2026, 10, 29, 18, 0, 0);
    for (let n = 20; n <= 23; n++) appendJob(manager, n, (t += 60_000), { thinkingChars: 300, rows: 60 });
    const session = await readSession(file);
    facts.feedSettled(session);
    expect(facts.rebuilds).toBe(1);
    const settled = lineageBlocks(session);
    const lastUser = settled.filter((b) => b.role === "user").pop();
    const expected = extractFacts(
      settled.filter((b) => b.entryPosition < (lastUser?.entryPosition ?? 0)),
      { cwd: session.header.cwd },
    );
    expect(facts.accumulator.facts()).toEqual(expected);
    expect(JSON.stringify(facts.accumulator.facts())).not.toContain("job 4");
  });
});

describe("a compaction computed ahead", () => {
  test("is reused by the hook when nothing was appended since, with the hook's seq and usage; else recomputed", async () => {
    const { session, file } = await growSession(6);
    const seqs = (codes: CodeAssigner): SeqSource => {
      let next = 3;
      return { get nextSeq() { return next; }, codes, claim: (record) => void (next = record.seq + 1) };
    };
    const open = (tag: string): CompactionSession =>
      new CompactionSession({ sessionId: session.header.id, seedIndex: join(dirname(file), tag, "seed-index.jsonl"), cwd: session.header.cwd, ledger: new LedgerTracker(file) }, seqs(new CodeAssigner()), DEFAULT_COMPACTION_OPTIONS);
    const ahead = open("ahead");
    await ahead.prepareAhead();
    const usage = { tokens: 15_000, contextWindow: 20_000, fraction: 0.75 };
    const hit = await ahead.prepare(usage);
    expect(ahead.draftHits).toBe(1);
    const cold = await open("cold").prepare(usage);
    expect(hit?.record).toEqual(cold?.record);
    expect(hit?.record.usage).toEqual(usage);
    expect(hit?.result.summary).toBe(cold?.result.summary);
    expect(hit?.details.seq).toBe(3);
    // A draft for an older state of the session is never used.
    const stale = open("stale");
    await stale.prepareAhead();
    appendJob(SessionManager.open(file, dirname(file)), 40, Date.UTC(2026, 10, 30), { thinkingChars: 300, rows: 60 });
    const fresh = await stale.prepare(undefined);
    expect(stale.draftHits).toBe(0);
    expect(fresh?.record.usage).toBeUndefined();
    expect(fresh?.result.summary).toContain("job 6");

    // Artifacts already durable on disk are not rewritten by the hook; a file gone missing is.
    const again = open("again");
    await again.sync();
    const inode = statSync(again.artifactsFile).ino;
    await again.prepare(undefined);
    expect(statSync(again.artifactsFile).ino).toBe(inode);
    rmSync(again.artifactsFile);
    await again.prepare(undefined);
    expect((await readArtifactsFile(again.artifactsFile))?.artifacts.initialPrompts[0]?.text).toBe(FOUNDING);
  });

  test("the artifacts are written only when asked (near a compaction) and only when the facts grew", async () => {
    const { session, file } = await growSession(4);
    const seedIndex = join(dirname(file), "persist", "seed-index.jsonl");
    const compaction = new CompactionSession(
      { sessionId: session.header.id, seedIndex, cwd: session.header.cwd, ledger: new LedgerTracker(file) },
      { nextSeq: 0, codes: new CodeAssigner(), claim: () => undefined },
      DEFAULT_COMPACTION_OPTIONS,
    );
    // A run far from a compaction (the gate's sync(false)): the facts are fed, nothing is written.
    const read = await compaction.sync(false);
    expect(compaction.facts.lastIndex).toBeGreaterThan(-1);
    expect(existsSync(compaction.artifactsFile)).toBe(false);
    if (read === undefined) throw new Error("the session was not read");
    // Near one: written once; persisting again with no new facts rewrites nothing (same file).
    await compaction.persist(read);
    const inode = statSync(compaction.artifactsFile).ino;
    await compaction.persist(read);
    expect(statSync(compaction.artifactsFile).ino).toBe(inode);
    // New facts: the next persist writes them.
    appendJob(SessionManager.open(file, dirname(file)), 41, Date.UTC(2026, 10, 30), { thinkingChars: 300, rows: 60 });
    const grown = await compaction.sync(false);
    if (grown === undefined) throw new Error("the session was not read");
    await compaction.persist(grown);
    expect((await readArtifactsFile(compaction.artifactsFile))?.lastIndex).toBe(compaction.facts.lastIndex);
    expect(statSync(compaction.artifactsFile).ino).not.toBe(inode);
  });
});

describe("a damaged session: the hook acts on Pi's view", () => {
  test("a torn last line (two objects glued): Pi's leaf and branch are ours, the cut is on Pi's branch", async () => {
    const { session, file } = await growSession(4);
    const lines = readFileSync(file, "utf8").split("\n").filter((l) => l !== "");
    const damaged = join(dirname(file), "torn.jsonl");
    writeFileSync(damaged, `${[...lines.slice(0, -2), `${lines.at(-2) ?? ""}${lines.at(-1) ?? ""}`].join("\n")}\n`);
    const copy = join(dirname(file), "pi-copy.jsonl");
    writeFileSync(copy, readFileSync(damaged));
    const pi = SessionManager.open(copy, dirname(file));
    const branchIds = new Set(pi.getBranch().map((e) => e.id));
    const seqs: SeqSource = { nextSeq: 0, codes: new CodeAssigner(), claim: () => undefined };
    const hook = new CompactionSession({ sessionId: session.header.id, seedIndex: join(dirname(file), "torn", "seed-index.jsonl"), cwd: session.header.cwd, ledger: new LedgerTracker(damaged) }, seqs, DEFAULT_COMPACTION_OPTIONS);
    // Before the two views, our leaf was the recovered last object: LeafMismatchError, Pi's own compaction ran.
    const computed = await hook.prepare(undefined, branchIds, pi.getLeafId());
    expect(computed).toBeDefined();
    expect(branchIds.has(computed?.result.firstKeptEntryId ?? "")).toBe(true);
  });
});

describe("the artifacts file", () => {
  const artifacts = { initialPrompts: [{ text: FOUNDING, turn: 1, index: 0 }], corrections: [], errorLedger: [], workingCommands: [], hexConstants: [], files: ["src/a.rs"] };

  test("round-trips, leaves no temp file, and replaces the previous version whole", async () => {
    const file = join(tempDir("artifacts-"), "context-fold", "s1", "durable-artifacts.json");
    await writeArtifactsFile(file, { v: 1, session: "s1", at: "2026-11-29T09:00:00.000Z", lastIndex: 3, artifacts });
    await writeArtifactsFile(file, { v: 1, session: "s1", at: "2026-11-29T09:05:00.000Z", lastIndex: 9, artifacts });
    expect(await readArtifactsFile(file)).toEqual({ v: 1, session: "s1", at: "2026-11-29T09:05:00.000Z", lastIndex: 9, artifacts });
    expect(readdirSync(dirname(file))).toEqual(["durable-artifacts.json"]);
    expect(await readArtifactsFile(join(dirname(file), "none.json"))).toBeUndefined();
  });

  test("a damaged file is a typed error naming the file; a failed write leaves no temp file", async () => {
    const dir = tempDir("artifacts-bad-");
    const bad = join(dir, "durable-artifacts.json");
    writeFileSync(bad, "{not json");
    await expect(readArtifactsFile(bad)).rejects.toMatchObject({ code: "ARTIFACTS_INVALID", file: bad });
    writeFileSync(bad, JSON.stringify({ v: 1, session: "s", at: "x", lastIndex: 0, artifacts: { files: [] } }));
    await expect(readArtifactsFile(bad)).rejects.toBeInstanceOf(ArtifactsFileError);
    const blocked = join(dir, "blocked", "durable-artifacts.json");
    mkdirSync(blocked, { recursive: true });
    await expect(writeArtifactsFile(blocked, { v: 1, session: "s", at: "x", lastIndex: 0, artifacts })).rejects.toMatchObject({ code: "ARTIFACTS_WRITE_FAILED" });
    expect(readdirSync(dirname(blocked))).toEqual(["durable-artifacts.json"]);
    expect(existsSync(join(blocked))).toBe(true);
  });
});

describe("the next step", () => {
  const emptyArtifacts = { initialPrompts: [], corrections: [], errorLedger: [], workingCommands: [], hexConstants: [], files: [] };
  const facts = extractFacts([]);

  test("pending work, then the last user task, then the last correction", () => {
    const withPlan = { ...facts, status: { ...facts.status, nextSteps: ["run the migration tests"], focus: "port it", focusIndex: 4 } };
    expect(nextStep(withPlan, emptyArtifacts)).toEqual({ text: "run the migration tests", source: "pending" });
    const withTask = { ...facts, status: { ...facts.status, focus: "port the ledger", focusIndex: 4 } };
    expect(nextStep(withTask, emptyArtifacts)).toEqual({ text: "port the ledger", source: "task" });
    const corrections = [{ text: "first", turn: 1, index: 1 }, { text: CORRECTION, turn: 2, index: 7 }];
    expect(nextStep(facts, { ...emptyArtifacts, corrections })).toEqual({ text: CORRECTION, source: "correction" });
    expect(nextStep(facts, emptyArtifacts)).toBeUndefined();
  });

  test("one line, clipped; linear on a 1 MB line of one character and of whitespace", { timeout: LINEAR_TIME_MS }, () => {
    const long = { ...facts, status: { ...facts.status, nextSteps: ["x".repeat(1_000_000)] } };
    const step = nextStep(long, emptyArtifacts);
    expect(step?.text.length).toBe(NEXT_STEP_MAX);
    const spaces = { ...facts, status: { ...facts.status, nextSteps: [`a${" \t\n".repeat(350_000)}b`] } };
    // A super-linear pattern would hang here until the test times out.
    expect(nextStep(spaces, emptyArtifacts)?.text).toBe("a b");
  });
});
