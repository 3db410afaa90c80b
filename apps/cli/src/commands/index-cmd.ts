// `context-fold index <session.jsonl>`: append one seed-index v2 record for the session's active lineage
// (context_edit replacements and omissions applied), with codes kept stable against earlier records.
// Two reads, neither holding the session's text: its shape (tree, lineage, edits), then a stream whose
// lineage blocks are scanned into the record's running fields as they go by.
//
// The record is one JSON line with a span per anchorable lineage block (1,052,213 spans, 213 MB, on the
// 1 GB bench session), so its spans are never held as objects: each is made as its block goes by
// (hashed then, its text dropped), checked, and spooled as JSON (in memory when small, else a temp file
// beside the seed index); under the seed index's lock the line is then appended in pieces (head, spans,
// end), byte for byte the line a whole-record append writes. Codes already handed out go into a code
// assigner that keeps numbers, not anchors; for a streamed session they are read from the existing index
// span by span (`readSeedIndexLean`), so a second run does not parse the first run's 213 MB line whole.
import { lastEntryTime, planRecordStream, type RecordStreamPlan, streamPlannedRecord } from "@context-fold/extractors";
import {
  appendNextRecordStreamed,
  appendRecordStreamed,
  archivalUnion,
  CompactCodeAssigner,
  type FoldIndexRecord,
  forEachSpan,
  SeedIndexError,
  seedIndexPath,
  type SeedTrigger,
  SpanSpool,
} from "@context-fold/seed-index-format";
import { Command, InvalidArgumentError, Option } from "commander";
import { freeHeapPages } from "../free-heap-pages.js";
import { CliError, EXIT_USAGE, printJsonPieces, printText } from "../output.js";
import { readIndexOutcomes, spansInFileOf } from "../seed-view.js";
import { readSessionShapeForCli, refuseSessionTarget, streamsSession } from "../session-input.js";

const ISO_8601 = /^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]{1,9})?(?:Z|[+-][0-9]{2}:[0-9]{2})$/;

/**
 * What the record needs of the session: where it goes and the plan of the streamed read. The session's
 * shape is read and let go here, before the existing index's codes are read and before the long stream,
 * so it is never in memory beside either (a second run's codes are a million spans on the 1 GB bench
 * session: read beside the shape, they made its peak).
 */
async function prepareRecord(sessionFile: string, options: IndexOptions): Promise<{ out: string; streams: boolean; plan: RecordStreamPlan }> {
  const shape = await readSessionShapeForCli(sessionFile);
  const session = shape.session;
  const out = options.out ?? seedIndexPath(sessionFile, session.header.id);
  refuseSessionTarget(out, sessionFile, "--out");
  const streams = streamsSession(sessionFile);
  const at = options.now ?? lastEntryTime(session);
  if (at === undefined) {
    throw new CliError(`${sessionFile} has no entry timestamp to date the record; pass --now <iso>`, { code: "NO_TIME", exitCode: EXIT_USAGE });
  }
  // The record is built once (seq 0) outside the lock, then numbered under it: the streamed read is
  // too long to hold the append lock for, and the seq changes nothing else in the record.
  return { out, streams, plan: planRecordStream(shape, { seq: options.seq ?? 0, at, trigger: options.trigger, scope: "lineage" }) };
}

/**
 * Codes already handed out in the index at `out` stay with their blocks (read before the lock: a code is
 * a function of its block, so a record appended meanwhile cannot change it).
 */
async function codesHandedOut(out: string, streams: boolean): Promise<CompactCodeAssigner> {
  const { outcomes } = await readIndexOutcomes(out, streams);
  const codes = new CompactCodeAssigner();
  const where = spansInFileOf(outcomes);
  for (const record of archivalUnion(outcomes)) forEachSpan(record, where.get(record), (span) => codes.keep(span.blockId, span.code));
  return codes;
}

/** The record of the session's lineage without its spans (seq 0 unless --seq), and its spans spooled. */
async function spooledRecord(sessionFile: string, options: IndexOptions): Promise<{ out: string; built: FoldIndexRecord; spool: SpanSpool }> {
  const { out, streams, plan } = await prepareRecord(sessionFile, options);
  // The shape is let go with prepareRecord: its pages go back before the codes and the stream (free-heap-pages.ts).
  if (streams) freeHeapPages();
  const codes = await codesHandedOut(out, streams);
  // A streamed session's spans go to the temp file from the first (what a 1 GB session needs anyway).
  const spool = new SpanSpool({ target: out, ...(streams ? { holdBytes: 0 } : {}) });
  try {
    return { out, built: await streamPlannedRecord(plan, codes, (span) => spool.add(span)), spool };
  } catch (error) {
    spool.dispose();
    throw error;
  }
}

/** Stands in for the spans while the rest of the record is printed (a string no record holds). */
const SPANS_MARK = "\u0000context-fold: spans go here\u0000";

/** `JSON.stringify(record, null, 2)` of the record with the spooled spans, written piece by piece. */
function printRecord(record: FoldIndexRecord, spool: SpanSpool): void {
  printJsonPieces((write) => {
    // The mark takes the spans' place in the key order; the spans go where it stands, as JSON.stringify puts them.
    const text = JSON.stringify({ ...record, spans: SPANS_MARK }, null, 2);
    const token = `"spans": ${JSON.stringify(SPANS_MARK)}`;
    const at = text.indexOf(token);
    if (at === -1 || text.includes(token, at + 1)) throw new Error("the record holds the spans mark in its own fields");
    write(`${text.slice(0, at)}"spans": [`);
    spool.forEach((span, i) => write(`${i === 0 ? "" : ","}\n    ${JSON.stringify(span, null, 2).replaceAll("\n", "\n    ")}`));
    write(spool.count === 0 ? "]" : "\n  ]");
    write(text.slice(at + token.length));
  });
}

function parseSeq(value: string): number {
  if (!/^(?:0|[1-9][0-9]{0,14})$/.test(value)) throw new InvalidArgumentError("must be an integer ≥ 0");
  return Number(value);
}

function parseNow(value: string): string {
  if (!ISO_8601.test(value)) throw new InvalidArgumentError("must be an ISO-8601 time, e.g. 2026-07-28T21:14:03.000Z");
  return value;
}

interface IndexOptions {
  out?: string;
  trigger: SeedTrigger;
  seq?: number;
  now?: string;
  json?: boolean;
}

export function registerIndex(program: Command): void {
  program
    .command("index")
    .description("Append one seed-index v2 record for the session's active lineage (edits applied).")
    .argument("<session>", "Pi session file (.jsonl)")
    .option("--out <seed-index>", "seed index to append to (default: <session dir>/context-fold/<session id>/seed-index.jsonl)")
    .addOption(new Option("--trigger <trigger>", "why the record is written").choices(["compact", "threshold", "cap"]).default("compact"))
    .option("--seq <n>", "record seq (default: one past the highest in the file)", parseSeq)
    .option("--now <iso>", "record time (default: the timestamp of the last entry)", parseNow)
    .option("--json", "print the record as JSON")
    .action(async (sessionFile: string, options: IndexOptions) => {
      const { out, built, spool } = await spooledRecord(sessionFile, options);
      try {
        // The seq is assigned under the seed index's append lock, from the file's tail: concurrent runs (and
        // the extension) never share one. An explicit --seq is taken as given.
        let record: FoldIndexRecord;
        try {
          if (options.seq === undefined) record = await appendNextRecordStreamed(out, (seq) => ({ ...built, seq }), spool);
          else {
            record = built;
            await appendRecordStreamed(out, record, spool);
          }
        } catch (error) {
          // InvalidRecordError is a SeedIndexError: both carry their code and are told by the error boundary.
          if (error instanceof SeedIndexError) throw error;
          if (error instanceof Error && (error as { code?: unknown }).code === "DURABLE_LOCK_TIMEOUT") {
            throw new CliError(`${error.message}; if no context-fold process is running, delete that lock file`, { code: "LOCKED", exitCode: EXIT_USAGE });
          }
          if (error instanceof Error && "code" in error) throw new CliError(`cannot write ${out}: ${error.message}`, { code: "WRITE_FAILED", exitCode: EXIT_USAGE });
          throw error;
        }
        if (options.json === true) printRecord(record, spool);
        else {
          printText(
            [
              `appended seq ${String(record.seq)} (${record.trigger}, at ${record.at}) to ${out}`,
              `  ${String(spool.count)} span(s), ${String(record.files.length)} file(s), ${String(record.commands.length)} command(s), ${String(record.errors.length)} error line(s), ${String(record.identifiers.length)} identifier(s), ${String(record.userMessages.length)} user message(s)`,
            ].join("\n"),
          );
        }
      } finally {
        spool.dispose();
      }
    });
}
