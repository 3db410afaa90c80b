// `index` and `verify` hold no span: index hands each span to a spool as its block goes by and appends
// the record's line in pieces; verify reads records whose spans stay in the seed index's file and checks
// the ledger from a stream. The bytes must be today's: the record line `appendRecord` writes for the
// record `buildCompactRecordStreamed` builds (codes kept from earlier records), the `--json` document
// `JSON.stringify(record, null, 2)`, and verify's answer the whole read's — on every shared fixture and
// on Pi-written sessions, the streamed paths forced on (CONTEXT_FOLD_STREAM_ABOVE=0) and off.
import { copyFileSync, readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { buildCompactRecordStreamed, verifySpans, verifySpansStreamed } from "@context-fold/extractors";
import { readSession, readSessionShape } from "@context-fold/ledger-reader";
import { appendRecord, CodeAssigner, type FoldIndexRecord, readSeedIndexFileLean, type Span } from "@context-fold/seed-index-format";
import { tempDir } from "@context-fold/test-support";
import { afterEach, expect } from "vitest";
import { cli } from "./support/run-cli.js";
import { describeStreamedComparison } from "./support/streamed-compare.js";

const NOW = "2026-07-28T21:14:03.000Z";

afterEach(() => {
  delete process.env["CONTEXT_FOLD_STREAM_ABOVE"];
});

/** Today's `index`: the whole record built, appended in one line (seq given or next), printed whole. */
async function expectedIndex(session: string, file: string, seq: number): Promise<{ stdout: string }> {
  const shape = await readSessionShape(session);
  // Codes already in the file stay with their blocks, as index keeps them.
  let existing: [string, string][] = [];
  try {
    existing = readFileSync(file, "utf8")
      .split("\n")
      .filter((line) => line.length > 0)
      .flatMap((line) => (JSON.parse(line) as FoldIndexRecord).spans.map((s): [string, string] => [s.blockId, s.code]));
  } catch {
    existing = [];
  }
  const record = await buildCompactRecordStreamed(shape, { seq, at: NOW, trigger: "compact", codes: new CodeAssigner(existing), scope: "lineage" });
  await appendRecord(file, record);
  return { stdout: `${JSON.stringify(record, null, 2)}\n` };
}

/** Returns the spans verified, so the generated sessions are seen to have some. */
async function expectSame(original: string): Promise<number> {
  const dir = tempDir();
  const session = join(dir, basename(original));
  copyFileSync(original, session);
  const expectedFile = join(dir, "expected.jsonl");
  const first = await expectedIndex(session, expectedFile, 0);
  const second = await expectedIndex(session, expectedFile, 1);
  const expectedBytes = readFileSync(expectedFile, "utf8");
  let verified = 0;
  for (const limit of [undefined, "0"]) {
    if (limit === undefined) delete process.env["CONTEXT_FOLD_STREAM_ABOVE"];
    else process.env["CONTEXT_FOLD_STREAM_ABOVE"] = limit;
    const out = join(dir, `seed-${limit ?? "default"}.jsonl`);
    const runFirst = await cli(["index", session, "--out", out, "--seq", "0", "--now", NOW, "--json"]);
    expect(runFirst.exit).toBe(0);
    expect(runFirst.stdout).toBe(first.stdout);
    // The second run keeps the first's codes (read back from the file) and takes the next seq.
    const runSecond = await cli(["index", session, "--out", out, "--now", NOW, "--json"]);
    expect(runSecond.stdout).toBe(second.stdout);
    expect(readFileSync(out, "utf8")).toBe(expectedBytes);
    expect(readdirSync(dir).filter((name) => name.endsWith(".tmp"))).toEqual([]);
    const human = await cli(["index", session, "--out", join(dir, `human-${limit ?? "default"}.jsonl`), "--now", NOW]);
    expect(human.stdout).toContain(`${String((JSON.parse(first.stdout) as FoldIndexRecord).spans.length)} span(s)`);

    // verify over the streamed index answers what the whole read answers over the whole records.
    const whole = await readSession(session);
    const records = expectedBytes
      .split("\n")
      .filter((line) => line.length > 0)
      .map((line) => JSON.parse(line) as FoldIndexRecord);
    const expected = verifySpans(whole, records);
    const run = await cli(["verify", out, "--session", session, "--json"]);
    expect(run.stdout).toBe(`${JSON.stringify(expected, null, 2)}\n`);
    verified = expected.verified;
  }
  // Spans the ledger cannot match (a changed hash and extent, unknown anchors and edits), checked by the
  // streamed passes with the spans left in the file, against verifySpans over the held records.
  const whole = await readSession(session);
  const record = JSON.parse(expectedBytes.split("\n")[0] ?? "") as FoldIndexRecord;
  const [one] = record.spans;
  const odd: Span[] =
    one === undefined
      ? []
      : [
          { ...one, sha256: "0".repeat(64) },
          { ...one, log: { bytes: one.log.bytes + 1, lines: one.log.lines } },
          { ...one, blockId: "r:no-such-call" },
          { blockId: `${one.blockId.replace(/:edit:.*$/, "")}:edit:0123abcd`, code: one.code, turn: one.turn, log: one.log, ...(one.sha256 === undefined ? {} : { sha256: one.sha256 }) },
          { blockId: one.blockId, code: one.code, turn: one.turn, log: one.log },
        ];
  const tampered: FoldIndexRecord = { ...record, seq: 5, spans: [...record.spans, ...odd] };
  const tamperedFile = join(dir, "tampered.jsonl");
  await appendRecord(tamperedFile, tampered);
  const { outcomes } = await readSeedIndexFileLean(tamperedFile, { holdLineUpTo: 0 });
  const lean = outcomes[0];
  if (lean?.outcome !== "record") throw new Error("the tampered record did not read back");
  expect(lean.spansInFile?.count).toBe(tampered.spans.length);
  const streamed = await verifySpansStreamed(await readSessionShape(session), [{ record: lean.record, spansInFile: lean.spansInFile }]);
  expect(JSON.stringify(streamed)).toBe(JSON.stringify(verifySpans(whole, [tampered])));
  return verified;
}

describeStreamedComparison({
  what: "index's streamed spans and verify's streamed check",
  compare: expectSame,
  onGenerated: (_whole, verified) => expect(verified).toBeGreaterThan(10),
});
