// `facts` and `handoff` read the session's shape and stream its lineage once, feeding the facts
// accumulator entry by entry. Their output must be byte-identical to the whole read's (extractFacts over
// lineageBlocks, sessionHandoff on readSession), on every shared fixture and on Pi-written sessions.
import { copyFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { extractFacts } from "@context-fold/extractors";
import { lineageBlocks, lineageInFileOrder, readSessionShape, type Session, streamLineage } from "@context-fold/ledger-reader";
import type { Span } from "@context-fold/seed-index-format";
import { generateSession } from "@context-fold/session-gen";
import { type SeedSpanWalk, sessionHandoff, sessionHandoffStreamed } from "@context-fold/summary-formatter";
import { describeShared, sharedFixture, tempDir } from "@context-fold/test-support";
import { describe, expect, it } from "vitest";
import { factsText, streamedFacts } from "../src/commands/facts.js";
import { describeStreamedComparison, readBoth } from "./support/streamed-compare.js";

const NOW = "2026-03-01T10:00:00.000Z";

async function expectSameFacts(file: string, fragment = false): Promise<void> {
  const { whole, shape } = await readBoth(file, fragment ? { fragment: true } : {});
  const expected = extractFacts(lineageBlocks(whole), whole.header.cwd === undefined ? {} : { cwd: whole.header.cwd });
  const got = await streamedFacts(shape);
  expect(JSON.stringify(got)).toBe(JSON.stringify(expected));
  expect(factsText(got)).toBe(factsText(expected));
}

/**
 * A walked seed view (as the CLI gives a large one) naming every anchored lineage block, twice over the
 * lineage's last ones; `log` records when it is walked.
 */
function seedWalk(whole: Session, log: string[]): SeedSpanWalk {
  const anchored = lineageBlocks(whole).filter((b) => b.anchor !== undefined);
  const spans: Span[] = [...anchored, ...anchored.slice(-3)].map((b, i) => ({ code: `c${String(i)}`, blockId: b.anchor as string, turn: b.turn, log: { bytes: b.text.length, lines: 1 } }) as Span);
  return {
    count: spans.length,
    forEach(onSpan) {
      log.push("walk");
      spans.forEach(onSpan);
    },
  };
}

async function expectSameHandoff(file: string): Promise<void> {
  const { whole, shape } = await readBoth(file);
  for (const options of [{}, { now: NOW, maxSpans: 2, goal: "finish the port" }]) {
    const expected = sessionHandoff(whole, { ...options, sessionFile: "/s.jsonl", seedIndexFile: "/seed.jsonl" });
    const got = await sessionHandoffStreamed(shape, { ...options, sessionFile: "/s.jsonl", seedIndexFile: "/seed.jsonl" });
    expect(got.markdown).toBe(expected.markdown);
    expect(JSON.stringify(got.doc)).toBe(JSON.stringify(expected.doc));
  }
  // Options given by a function (the CLI reads the seed index once the shape is let go): asked for before
  // the stream, the walked view's fold spans picked then too, not after the stream; same output.
  if (!lineageInFileOrder(whole)) return;
  const log: string[] = [];
  const expected = sessionHandoff(whole, { seedSpans: seedWalk(whole, []), sessionFile: "/s.jsonl" });
  const got = await sessionHandoffStreamed(
    shape,
    () => {
      log.push("options");
      return Promise.resolve({ seedSpans: seedWalk(whole, log), sessionFile: "/s.jsonl" });
    },
    () => {
      if (log.at(-1) !== "entry") log.push("entry");
    },
  );
  expect(got.markdown).toBe(expected.markdown);
  expect(JSON.stringify(got.doc)).toBe(JSON.stringify(expected.doc));
  expect(log).toEqual(["options", "walk", "entry"]);
}

describeStreamedComparison({
  what: "facts and handoff streamed",
  compare: async (file) => {
    await expectSameFacts(file);
    await expectSameHandoff(file);
  },
  // Facts worth comparing: the generated session has a goal, files and errors on its lineage.
  onGenerated: (whole) => {
    const facts = extractFacts(lineageBlocks(whole), {});
    expect(facts.goal).not.toBeNull();
    expect(facts.files.length).toBeGreaterThan(0);
  },
});

describeShared("facts streamed of a headerless fragment (--fragment)", () => {
  it("equals the whole read's", async () => {
    await expectSameFacts(sharedFixture("real", "pinion05-act-3ae80f5__01-youtube-noheader.jsonl"), true);
  });
});

describe("a lineage that runs backwards in the file (hand-edited)", () => {
  it("cannot be met in order in one pass: the streamed commands read it whole, with the same output", async () => {
    const dir = tempDir();
    const file = join(dir, "backwards.jsonl");
    const at = (s: number): string => `2026-03-01T10:00:${String(s).padStart(2, "0")}.000Z`;
    const user = (id: string, parentId: string | null, s: number, text: string): string =>
      JSON.stringify({ type: "message", id, parentId, timestamp: at(s), message: { role: "user", content: [{ type: "text", text }], timestamp: s } });
    const assistant = (id: string, parentId: string, s: number, text: string): string =>
      JSON.stringify({ type: "message", id, parentId, timestamp: at(s), message: { role: "assistant", content: [{ type: "text", text }], timestamp: s } });
    // b's parent a comes after it in the file; the leaf c hangs off b.
    const lines = [
      JSON.stringify({ type: "session", version: 3, id: "backwards-1", timestamp: at(0), cwd: "/home/dev/project" }),
      assistant("b", "a", 2, "I will edit src/app.ts to add the retry loop."),
      user("a", null, 1, "Add a retry loop to src/app.ts and keep the public API unchanged."),
      user("c", "b", 3, "No, keep the retry count at three, not five."),
    ];
    writeFileSync(file, `${lines.join("\n")}\n`);
    const shape = await readSessionShape(file);
    expect(shape.session.lineage.map((e) => e.id)).toEqual(["a", "b", "c"]);
    await expectSameFacts(file);
    await expectSameHandoff(file);
    expect(lineageInFileOrder(shape.session)).toBe(false);
    await expect(streamLineage(shape.session).next()).rejects.toThrow(/runs backwards/);
  });
});

describe("a session replaced between the two reads", () => {
  it("is refused with LEDGER_CHANGED, never answered from a mix of two files", async () => {
    const dir = tempDir();
    const file = join(dir, "s.jsonl");
    await generateSession(file, { seed: 8, turns: 12, compactions: 0 });
    const shape = await readSessionShape(file);
    await generateSession(join(dir, "other.jsonl"), { seed: 9, turns: 12, compactions: 0 });
    copyFileSync(join(dir, "other.jsonl"), file);
    await expect(streamedFacts(shape)).rejects.toMatchObject({ code: "LEDGER_CHANGED" });
    await expect(sessionHandoffStreamed(shape)).rejects.toMatchObject({ code: "LEDGER_CHANGED" });
  });
});
