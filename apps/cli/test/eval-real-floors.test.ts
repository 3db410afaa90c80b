// The retention floors of issue 17 on every real session with hand-written truth, the headerless
// fragment included (read as a fragment, as `eval --fragment` does), at the default budget: decisions
// (importance high or medium) ≥ 0.9, modified files ≥ 0.95, junk 0, commits 1.0, open errors ≥ 0.8,
// founding request verbatim.
//
// The youtube fragment holds them with what the part of its branch before its damaged line 60 wrote
// (lines 1-59 are off Pi's branch) and what its kept tail wrote; its one file missing was written by
// `fs.writeFileSync` inside code a browser tool ran.
//
// raddit holds them through two statements outside Pi's branch (extractors' saidElsewhere): a user
// message before its damaged line 31, which cuts lines 2-30 off Pi's branch, and a prompt kept only by a
// custom entry that a compaction separated from its answer.
import { basename, join } from "node:path";
import { readSession } from "@context-fold/ledger-reader";
import { describeShared, sharedFixture } from "@context-fold/test-support";
import { expect, it } from "vitest";
import { evaluateSession } from "../src/eval/evaluate-session.js";
import { fileSha256, readTruthFile } from "../src/eval/truth-file.js";

const PROJECT_TRUTH = join(import.meta.dirname, "../../../tools/eval/truth");

const CASES = [
  { session: () => sharedFixture("real", "castai-kimchi-dev-910d402__session.jsonl"), truth: () => sharedFixture("real", "castai-kimchi-dev-910d402__session.truth.json") },
  {
    session: () => sharedFixture("real", "pinion05-act-3ae80f5__03-raddit-dashboard-pr.jsonl"),
    truth: () => sharedFixture("real", "pinion05-act-3ae80f5__03-raddit-dashboard-pr.truth.json"),
  },
  {
    session: () => sharedFixture("real", "pinion05-act-3ae80f5__01-youtube-noheader.jsonl"),
    truth: () => sharedFixture("real", "pinion05-act-3ae80f5__01-youtube-noheader.truth.json"),
    fragment: true,
  },
  { session: () => sharedFixture("sessions", "pi-mono-history__session.jsonl"), truth: () => join(PROJECT_TRUTH, "pi-mono-history__session.truth.json") },
  { session: () => sharedFixture("sessions", "pi-mono__large-session.jsonl"), truth: () => join(PROJECT_TRUTH, "pi-mono__large-session.truth.json") },
].map((c) => ({ fragment: false, ...c, name: basename(c.truth()) }));

describeShared("retention floors on real sessions with truth (issue 17)", () => {
  it.each(CASES)("$name", async ({ session, truth, fragment }) => {
    const t = await readTruthFile(truth());
    expect(await fileSha256(session())).toBe(t.sha256);
    const e = await evaluateSession(await readSession(session(), fragment ? { fragment: true } : {}), { truth: t, clock: () => 0 });
    const s = e.truth;
    if (s === null) throw new Error("no truth score");
    const detail = JSON.stringify(
      {
        decisions: s.decisions.missing.filter((m) => m.importance !== "low"),
        files: s.modifiedFiles.missing,
        junk: s.junk,
        commits: s.commits.missing,
        openErrors: s.openErrors.missing,
        founding: s.foundingRequest,
      },
      null,
      1,
    );
    expect(s.decisions.highMedium.score, detail).toBeGreaterThanOrEqual(0.9);
    expect(s.modifiedFiles.score, detail).toBeGreaterThanOrEqual(0.95);
    expect(s.junk.count, detail).toBe(0);
    expect(s.commits.score, detail).toBe(1);
    expect(s.openErrors.score, detail).toBeGreaterThanOrEqual(0.8);
    expect(s.foundingRequest.expected && !s.foundingRequest.verbatim, detail).toBe(false);
    expect(s.floors.held).toBe(true);
  });
});
