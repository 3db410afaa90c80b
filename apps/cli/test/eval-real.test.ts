// `eval --truth` on the real sessions with hand-written truth (../shared/fixtures/real and the project's
// tools/eval/truth): the report's structure, every score a number in [0, 1], and every miss listed. The
// floors themselves are asserted in eval-real-floors.test.ts.
import { join } from "node:path";
import { describeShared, sharedFixture } from "@context-fold/test-support";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { EvalDocument } from "../src/commands/eval.js";
import type { SessionEval } from "../src/eval/evaluate-session.js";
import type { Share } from "../src/eval/score-truth.js";
import { cli } from "./support/run-cli.js";

afterEach(() => {
  process.exitCode = 0;
});

const PROJECT_TRUTH = join(import.meta.dirname, "../../../tools/eval/truth");

/** The real sessions with truth: three in fixtures/real (one headerless), three in fixtures/sessions. */
function realSessions(): string[] {
  return [
    sharedFixture("real", "castai-kimchi-dev-910d402__session.jsonl"),
    sharedFixture("real", "pinion05-act-3ae80f5__03-raddit-dashboard-pr.jsonl"),
    sharedFixture("real", "pinion05-act-3ae80f5__01-youtube-noheader.jsonl"),
    sharedFixture("sessions", "pi-mono-history__session.jsonl"),
    sharedFixture("sessions", "pi-mono__large-session.jsonl"),
    sharedFixture("sessions", "pi-mono__before-compaction.jsonl"),
  ];
}

function expectShare(s: Share, what: string): void {
  expect(Number.isInteger(s.n) && Number.isInteger(s.kept), what).toBe(true);
  expect(s.kept, what).toBeLessThanOrEqual(s.n);
  expect(s.score, what).toBeGreaterThanOrEqual(0);
  expect(s.score, what).toBeLessThanOrEqual(1);
  expect(s.score, what).toBeCloseTo(s.n === 0 ? 1 : s.kept / s.n, 3);
}

describeShared("eval --truth on the real sessions", () => {
  let doc: EvalDocument;
  let exit = -1;
  beforeAll(async () => {
    const r = await cli(["eval", ...realSessions(), "--truth", sharedFixture("real"), "--truth", PROJECT_TRUTH, "--json"]);
    exit = r.exit;
    doc = JSON.parse(r.stdout) as EvalDocument;
  }, 120_000);

  it("scores every session with a header against its truth; the headerless fragment is skipped with its reason", () => {
    expect([0, 1]).toContain(exit);
    expect(doc.sessions.map((s) => s.file)).toEqual(realSessions().filter((f) => !f.includes("noheader")));
    expect(doc.skipped.map((s) => s.file)).toEqual([sharedFixture("real", "pinion05-act-3ae80f5__01-youtube-noheader.jsonl")]);
    expect(doc.skipped[0]?.reason).toMatch(/header/);
    expect(doc.truthUnused).toEqual([]);
    expect(doc.floorsHeld).toBe(exit === 0);
    for (const s of doc.sessions) expect(s.truth?.truthFile, s.file).toMatch(/\.truth\.json$/);
  });

  describe.each(realSessions().filter((f) => !f.includes("noheader")))("%s", (file) => {
    const session = (): SessionEval => {
      const s = doc.sessions.find((x) => x.file === file);
      if (s === undefined) throw new Error(`${file} not scored`);
      return s;
    };

    it("every score is a number in [0, 1] and agrees with its counts", () => {
      const t = session().truth;
      if (t === null) throw new Error("no truth score");
      const shares: [string, Share][] = [
        ["decisions", t.decisions.all],
        ["decisions high/medium", t.decisions.highMedium],
        ["decisions high", t.decisions.high],
        ["decisions medium", t.decisions.medium],
        ["decisions low", t.decisions.low],
        ["files", t.modifiedFiles],
        ["commits", t.commits],
        ["open errors", t.openErrors],
        ["questions by question", t.questionsByQuestion],
        ["questions by answer", t.questionsByAnswer],
      ];
      for (const [what, s] of shares) expectShare(s, what);
      expect(t.decisions.all.n).toBe(t.decisions.high.n + t.decisions.medium.n + t.decisions.low.n);
      expect(t.decisions.all.n).toBeGreaterThan(0);
      expect(t.questionsByQuestion.n).toBeGreaterThan(0);
    });

    it("every miss is listed", () => {
      const t = session().truth;
      if (t === null) throw new Error("no truth score");
      expect(t.decisions.missing).toHaveLength(t.decisions.all.n - t.decisions.all.kept);
      for (const m of t.decisions.missing) expect(m.missingWords.length).toBeGreaterThan(0);
      expect(t.modifiedFiles.missing).toHaveLength(t.modifiedFiles.n - t.modifiedFiles.kept);
      expect(t.commits.missing).toHaveLength(t.commits.n - t.commits.kept);
      expect(t.openErrors.missing).toHaveLength(t.openErrors.n - t.openErrors.kept);
      for (const q of [t.questionsByQuestion, t.questionsByAnswer]) {
        expect(q.results).toHaveLength(q.n);
        expect(q.results.filter((r) => r.found)).toHaveLength(q.kept);
        for (const r of q.results) expect(r.query.split(" ").length).toBeLessThanOrEqual(5);
      }
      const junk = new Set([...t.junk.facts, ...(t.junk.summaryFiles ?? []), ...t.junk.seedIndexFiles]);
      expect(t.junk.count).toBe(junk.size);
    });

    it("floors are reported held or not held, and the session's truth floor follows them", () => {
      const s = session();
      const f = s.truth?.floors;
      if (f === undefined) throw new Error("no truth floors");
      for (const c of [f.decisions, f.modifiedFiles, f.junk, f.commits, f.openErrors, f.foundingRequest]) {
        expect(typeof c.held).toBe("boolean");
        expect(c.held).toBe(c.op === ">=" ? c.value >= c.floor : c.value <= c.floor);
      }
      expect(s.floors.truth).toBe(f.held);
      expect(s.needlesViaWords.n).toBe(s.needlesViaRecall.n);
    });
  });
});
