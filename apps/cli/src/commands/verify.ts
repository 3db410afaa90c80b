// `context-fold verify <seed-index.jsonl> --session <session.jsonl>`: re-locate every span of the index's
// current view in the ledger and check its sha256; exit 1 when any span is mismatched or missing.
//
// A large session (over STREAM_ABOVE_BYTES) is checked in streamed passes that hold no span and no block
// text: the seed index is read without the spans of its long lines (the `index` record of the 1 GB bench
// session is one 213 MB line of 1,052,213 spans), which are read again span by span from the file; the
// ledger is streamed once, keeping for each block a span names only its sha256, log and place.
import { planSpanVerification, type SeedVerification, type SpanProblem, type SpanVerificationPlan, verifyPlannedSpans, verifySpans } from "@context-fold/extractors";
import { currentView, type FoldIndexRecord, forEachSpan, type Span } from "@context-fold/seed-index-format";
import type { Command } from "commander";
import { freeHeapPages } from "../free-heap-pages.js";
import { CliError, EXIT_FINDINGS, EXIT_USAGE, emit, setExit, style, warn } from "../output.js";
import { readIndexOutcomes, spansInFileOf } from "../seed-view.js";
import { damageFound, readSessionForCli, readSessionShapeForCli, streamsSession } from "../session-input.js";

interface VerifyOptions {
  session: string;
  json?: boolean;
}

/** The record with its spans, read back when they were left in the file (a small session with a huge record). */
function held(record: FoldIndexRecord, spansInFile: Parameters<typeof forEachSpan>[1]): FoldIndexRecord {
  if (spansInFile === undefined) return record;
  const spans: Span[] = [];
  forEachSpan(record, spansInFile, (span) => spans.push(span));
  return { ...record, spans };
}

function problemText(label: string, p: SpanProblem): string {
  return `  ${label} seq ${String(p.seq)} ${p.blockId} (code ${p.code}): ${p.reason}`;
}

export function registerVerify(program: Command): void {
  program
    .command("verify")
    .description("Check every span of a seed index's current view against the session ledger (sha256).")
    .argument("<seed-index>", "seed index (.jsonl)")
    .requiredOption("--session <session>", "the Pi session file the index points into")
    .option("--json", "print {spans, verified, mismatched, missing, unverified} as JSON")
    .action(async (indexFile: string, options: VerifyOptions) => {
      const checked = await prepareCheck(indexFile, options);
      // The shape is let go with prepareCheck: its pages go back before the streamed passes (free-heap-pages.ts).
      if (checked.plan !== undefined) freeHeapPages();
      const result = checked.plan === undefined ? checked.result : await verifyPlannedSpans(checked.plan);
      const failed = result.mismatched.length + result.missing.length > 0;
      // verify checks: a damaged ledger is a finding (named on stderr by the read), as in inspect.
      if (failed || checked.damaged) setExit(EXIT_FINDINGS);
      emit(options.json === true, result, () => {
        const head = `${String(result.verified)}/${String(result.spans)} span(s) verified in ${String(checked.records)} record(s)`;
        const lines = [failed ? style(head, "red") : style(head, "green")];
        for (const p of result.mismatched) lines.push(problemText("mismatched", p));
        for (const p of result.missing) lines.push(problemText("missing", p));
        for (const p of result.unverified) lines.push(problemText("unverified", p));
        return lines.join("\n");
      });
    });
}

/**
 * Reads the seed index and the session, says what is wrong with either, and checks the spans of a small
 * session (read whole) or plans the check of a large one (over STREAM_ABOVE_BYTES: read as its shape,
 * which is let go here, before the streamed passes, so the two are never in memory at once).
 */
async function prepareCheck(
  indexFile: string,
  options: VerifyOptions,
): Promise<{ records: number; damaged: boolean } & ({ plan: SpanVerificationPlan; result?: undefined } | { plan?: undefined; result: SeedVerification })> {
  const streams = streamsSession(options.session);
  const { outcomes, exists } = await readIndexOutcomes(indexFile, streams);
  if (!exists) throw new CliError(`no such seed index: ${indexFile}`, { code: "SEED_INDEX_MISSING", exitCode: EXIT_USAGE });
  for (const o of outcomes) {
    if (o.outcome === "invalid" || o.outcome === "torn-tail") warn(`${indexFile}:${String(o.line)}: ${o.outcome}: ${o.reason}`);
  }
  const shape = streams ? await readSessionShapeForCli(options.session) : undefined;
  const session = shape?.session ?? (await readSessionForCli(options.session));
  const view = currentView(outcomes);
  if (view.length === 0) {
    const foreign = outcomes.filter((o) => o.outcome === "invalid" || o.outcome === "skipped").length;
    if (foreign > 0) {
      throw new CliError(`${indexFile} holds no seed-index record (${String(foreign)} line(s) of something else); is it a seed index? The Pi session goes in --session`, { code: "NOT_A_SEED_INDEX", exitCode: EXIT_USAGE });
    }
    warn(`${indexFile}: no record yet, nothing to verify`);
  }
  // Only this session's records can be checked against its ledger.
  const records = view.filter((r) => r.session === session.header.id);
  const others = [...new Set(view.map((r) => r.session).filter((id) => id !== session.header.id))];
  if (view.length > 0 && records.length === 0) {
    throw new CliError(`${indexFile} indexes session ${others.join(", ")}, not ${session.header.id} (${options.session}); pass the session it was written for`, { code: "OTHER_SESSION", exitCode: EXIT_USAGE });
  }
  if (others.length > 0) warn(`${indexFile}: ${String(view.length - records.length)} record(s) of session(s) ${others.join(", ")} skipped; only ${session.header.id} is checked`);
  const where = spansInFileOf(outcomes);
  const damaged = damageFound(session).length > 0;
  if (shape === undefined) return { records: records.length, damaged, result: verifySpans(session, records.map((record) => held(record, where.get(record)))) };
  return { records: records.length, damaged, plan: planSpanVerification(shape, records.map((record) => ({ record, spansInFile: where.get(record) }))) };
}
