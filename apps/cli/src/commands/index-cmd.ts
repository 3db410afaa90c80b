// `context-fold index <session.jsonl>`: append one seed-index v2 record for the session's active lineage
// (context_edit replacements and omissions applied), with codes kept stable against earlier records.
// Two reads, neither holding the session's text: its shape (tree, lineage, edits), then a stream whose
// lineage blocks are scanned into the record's running fields as they go by.
//
// Not yet within 512 MB on a 1 GB session (3.5 GB peak on the bench's): the record is one JSON line with
// a span per anchorable lineage block (1,052,213 spans, 213 MB), built whole and written in one append
// under the seed index's lock; the seed accumulator keeps each span's block, text included, until the
// record asks for its sha256 (computed late on purpose: a fold record spans only the blocks it chose);
// and the code assigner maps every span's anchor. Bounded memory needs a record writer that streams the
// spans (they come last in the record) and an accumulator that hashes a span as its block goes by.
import { buildCompactRecordStreamed, lastEntryTime } from "@context-fold/extractors";
import {
  appendNextRecord,
  appendRecord,
  archivalUnion,
  CodeAssigner,
  type FoldIndexRecord,
  type ReadOutcome,
  readSeedIndexFile,
  SeedIndexError,
  seedIndexPath,
  type SeedTrigger,
} from "@context-fold/seed-index-format";
import { Command, InvalidArgumentError, Option } from "commander";
import { CliError, EXIT_USAGE, emit } from "../output.js";
import { readSessionShapeForCli, refuseSessionTarget } from "../session-input.js";

const ISO_8601 = /^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]{1,9})?(?:Z|[+-][0-9]{2}:[0-9]{2})$/;

/** Outcomes of an existing seed index ([] when it does not exist yet). */
export async function readIndexOutcomes(file: string): Promise<{ outcomes: ReadOutcome[]; exists: boolean }> {
  return await readSeedIndexFile(file);
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
      const shape = await readSessionShapeForCli(sessionFile);
      const session = shape.session;
      const out = options.out ?? seedIndexPath(sessionFile, session.header.id);
      refuseSessionTarget(out, sessionFile, "--out");
      // Codes already handed out in this index stay with their blocks (read before the lock: a code is a
      // function of its block, so a record appended meanwhile cannot change it).
      const { outcomes } = await readIndexOutcomes(out);
      const existing: [string, string][] = [];
      for (const record of archivalUnion(outcomes)) for (const span of record.spans) existing.push([span.blockId, span.code]);
      const at = options.now ?? lastEntryTime(session);
      if (at === undefined) {
        throw new CliError(`${sessionFile} has no entry timestamp to date the record; pass --now <iso>`, { code: "NO_TIME", exitCode: EXIT_USAGE });
      }
      const codes = new CodeAssigner(existing);
      // The record is built once (seq 0) outside the lock, then numbered under it: the streamed read is
      // too long to hold the append lock for, and the seq changes nothing else in the record.
      const built = await buildCompactRecordStreamed(shape, { seq: options.seq ?? 0, at, trigger: options.trigger, codes, scope: "lineage" });
      const build = (seq: number): FoldIndexRecord => ({ ...built, seq });
      // The seq is assigned under the seed index's append lock, from the file's tail: concurrent runs (and
      // the extension) never share one. An explicit --seq is taken as given.
      let record: FoldIndexRecord;
      try {
        if (options.seq === undefined) record = await appendNextRecord(out, build);
        else {
          record = built;
          await appendRecord(out, record);
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
      emit(options.json === true, record, () =>
        [
          `appended seq ${String(record.seq)} (${record.trigger}, at ${record.at}) to ${out}`,
          `  ${String(record.spans.length)} span(s), ${String(record.files.length)} file(s), ${String(record.commands.length)} command(s), ${String(record.errors.length)} error line(s), ${String(record.identifiers.length)} identifier(s), ${String(record.userMessages.length)} user message(s)`,
        ].join("\n"),
      );
    });
}
