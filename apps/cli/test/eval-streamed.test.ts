// `eval` of a large session streams (its shape, one streamed read that compacts it and reads the ground
// truth along, needles read back by byte offset); CONTEXT_FOLD_STREAM_ABOVE=0 takes that path on any
// session, so it is compared here with the whole read end to end, through the CLI: the same JSON (times
// aside, which are measured), stderr and exit code, on Pi-written sessions (damage, branches, compactions,
// context edits) and the shared real fixtures, with the session's seed index beside it (span recall).
import { copyFileSync } from "node:fs";
import { basename, join } from "node:path";
import { readSession, type Session } from "@context-fold/ledger-reader";
import { tempDir } from "@context-fold/test-support";
import { afterEach, describe, expect, it } from "vitest";
import type { EvalDocument } from "../src/commands/eval.js";
import { evaluateSession } from "../src/eval/evaluate-session.js";
import { evaluateStreamed } from "../src/eval/evaluate-streamed.js";
import { cli } from "./support/run-cli.js";
import { describeStreamedComparison } from "./support/streamed-compare.js";

const NOW = "2026-07-28T21:14:03.000Z";

afterEach(() => {
  delete process.env["CONTEXT_FOLD_STREAM_ABOVE"];
  delete process.env["CONTEXT_FOLD_EVAL_WITHOUT_RECALL"];
});

/** The document with every measured time (a key ending in "Ms") set to 0: all else is deterministic. */
function timeless(stdout: string): unknown {
  return JSON.parse(stdout, (key, value: unknown) => (key.endsWith("Ms") && typeof value === "number" ? 0 : value));
}

interface EvalRun {
  readonly exit: number;
  readonly doc: unknown;
  readonly stderr: string;
}

/** The run's document as printed (times included). */
const printed = new WeakMap<EvalRun, EvalDocument>();

async function evalWith(session: string, limit: string | undefined, extra: string[] = []): Promise<EvalRun> {
  if (limit === undefined) delete process.env["CONTEXT_FOLD_STREAM_ABOVE"];
  else process.env["CONTEXT_FOLD_STREAM_ABOVE"] = limit;
  const r = await cli(["eval", session, "--json", ...extra]);
  const run = { exit: r.exit, doc: timeless(r.stdout), stderr: r.stderr };
  printed.set(run, JSON.parse(r.stdout) as EvalDocument);
  return run;
}

const raw = (run: EvalRun): EvalDocument => printed.get(run) ?? { sessions: [], skipped: [], truthUnused: [], floorsHeld: false };

async function expectSameEval(original: string): Promise<EvalDocument> {
  const dir = tempDir();
  const session = join(dir, basename(original));
  copyFileSync(original, session);
  await cli(["index", session, "--now", NOW, "--json"]);
  const whole = await evalWith(session, undefined);
  const streamed = await evalWith(session, "0");
  expect(streamed).toEqual(whole);
  // A budget changes the cut: the ground truth read along the stream follows it.
  const small = await evalWith(session, "0", ["--budget", "600"]);
  expect(small).toEqual(await evalWith(session, undefined, ["--budget", "600"]));
  return raw(whole);
}

describeStreamedComparison<EvalDocument>({
  what: "eval's streamed evaluation through the CLI",
  compare: expectSameEval,
  fixtures: (files) => files.filter((f) => !f.includes("migrated")),
  onGenerated: (whole: Session, doc) => {
    // Not a comparison of two empty answers: needles sampled and recalled, commits, files, a span tally.
    const s = doc.sessions[0];
    expect(s?.entries).toBe(whole.entries.length);
    expect(s?.needles).toBeGreaterThan(3);
    expect(s?.needlesViaRecall.found).toBeGreaterThan(0);
    expect(s?.single.retention.modifiedFiles.n).toBeGreaterThan(0);
    expect(s?.needlesViaSpanRecall?.n).toBeGreaterThan(0);
  },
});

describe("eval's streamed path", () => {
  it("is taken on an undamaged session (not the whole-read fallback) and gives evaluateSession's answer", async () => {
    const dir = tempDir();
    const session = join(dir, "s.jsonl");
    const { generateSession } = await import("@context-fold/session-gen");
    await generateSession(session, { seed: 3, turns: 60, compactions: 3 });
    const clock = (): number => 0;
    const streamed = await evaluateStreamed(session, { clock, fragment: false });
    expect(streamed).toBeDefined();
    expect(streamed?.needles).toBeGreaterThan(3);
    expect(streamed).toEqual(await evaluateSession(await readSession(session), { clock }));
  });

  it("the measuring switch leaves the recall part out and says so in each needle's reason", async () => {
    const dir = tempDir();
    const session = join(dir, "s.jsonl");
    const { generateSession } = await import("@context-fold/session-gen");
    await generateSession(session, { seed: 5, turns: 30 });
    process.env["CONTEXT_FOLD_EVAL_WITHOUT_RECALL"] = "1";
    const left = await evalWith(session, "0");
    const s = raw(left).sessions[0];
    expect(s?.needles).toBeGreaterThan(0);
    expect(s?.needlesViaRecall.found).toBe(0);
    expect(s?.needlesViaRecall.results.every((r) => r.reason?.includes("CONTEXT_FOLD_EVAL_WITHOUT_RECALL") === true)).toBe(true);
    // The whole read ignores it: the switch is for measuring the streamed path only.
    const whole = await evalWith(session, undefined);
    expect(raw(whole).sessions[0]?.needlesViaRecall.found).toBeGreaterThan(0);
  });

  it("--rounds, --needles and a truth file read a large session whole: same answer as below the limit", async () => {
    const dir = tempDir();
    const session = join(dir, "s.jsonl");
    const { generateSession } = await import("@context-fold/session-gen");
    await generateSession(session, { seed: 6, turns: 40 });
    expect(await evalWith(session, "0", ["--rounds", "3"])).toEqual(await evalWith(session, undefined, ["--rounds", "3"]));
  });
});
