// `context-fold records validate|show <seed-index.jsonl>`: every line's outcome, and the union view of a
// seed index, read with the tolerant reader of @context-fold/seed-index-format.
import {
  archivalUnion,
  currentView,
  type FoldIndexRecord,
  type ReadOutcome,
  readSeedIndexFile,
} from "@context-fold/seed-index-format";
import type { Command } from "commander";
import { CliError, EXIT_FINDINGS, EXIT_USAGE, emit, setExit, style, warn } from "../output.js";

async function readOrFail(file: string): Promise<ReadOutcome[]> {
  const result = await readSeedIndexFile(file);
  if (!result.exists) throw new CliError(`no such seed index: ${file}`, { code: "SEED_INDEX_MISSING", exitCode: EXIT_USAGE });
  return result.outcomes;
}

/** One line's outcome as printed by `validate --json`. */
function outcomeJson(o: ReadOutcome): Record<string, unknown> {
  const base = { line: o.line, byteOffset: o.byteOffset, outcome: o.outcome };
  switch (o.outcome) {
    case "record":
      return { ...base, kind: "fold-index", v: o.upgradedFrom?.v ?? o.record.v, seq: o.record.seq, trigger: o.record.trigger, spans: o.record.spans.length };
    case "retract":
      return { ...base, kind: "fold-retract", v: o.record.v, seq: o.record.seq };
    case "invalid":
      return o.errors === undefined ? { ...base, reason: o.reason } : { ...base, reason: o.reason, errors: o.errors };
    case "skipped":
    case "torn-tail":
      return { ...base, reason: o.reason };
  }
}

function outcomeText(o: ReadOutcome): string {
  const where = `line ${o.line} (byte ${o.byteOffset})`;
  switch (o.outcome) {
    case "record":
      return `${where}: ${style("record", "green")} fold-index v${o.upgradedFrom?.v ?? o.record.v} seq ${o.record.seq} ${o.record.trigger}, ${o.record.spans.length} span(s)`;
    case "retract":
      return `${where}: ${style("retract", "cyan")} seq ${o.record.seq}`;
    case "skipped":
      return `${where}: ${style("skipped", "dim")} ${o.reason}`;
    case "torn-tail":
      return `${where}: ${style("torn-tail", "yellow")} ${o.reason}`;
    case "invalid": {
      const details = (o.errors ?? []).map((e) => `\n    ${e.path === "" ? "/" : e.path}: ${e.message}`).join("");
      return `${where}: ${style("invalid", "red")} ${o.reason}${details}`;
    }
  }
}

function counts(outcomes: readonly ReadOutcome[]): Record<ReadOutcome["outcome"], number> {
  const c = { record: 0, retract: 0, skipped: 0, invalid: 0, "torn-tail": 0 };
  for (const o of outcomes) c[o.outcome] += 1;
  return c;
}

function diagnostics(outcomes: readonly ReadOutcome[]): { line: number; reason: string }[] {
  const out: { line: number; reason: string }[] = [];
  for (const o of outcomes) {
    if (o.outcome === "skipped" || o.outcome === "invalid" || o.outcome === "torn-tail") out.push({ line: o.line, reason: `${o.outcome}: ${o.reason}` });
  }
  return out;
}

function recordText(record: FoldIndexRecord): string {
  const usage = record.usage === undefined ? "" : ` usage ${record.usage.tokens}/${record.usage.contextWindow}`;
  const lines = [
    `${style(`seq ${record.seq}`, "bold")} ${record.trigger} at ${record.at}${usage} session ${record.session}`,
    `  files ${record.files.length}, commands ${record.commands.length}, errors ${record.errors.length}, identifiers ${record.identifiers.length}, user messages ${record.userMessages.length}`,
  ];
  for (const span of record.spans) {
    const tool = span.tool === undefined ? "" : ` ${span.tool}`;
    const sha = span.sha256 === undefined ? " (no sha256: unverified)" : "";
    lines.push(`  ${style(span.code, "cyan")} ${span.blockId}${tool} turn ${span.turn} ${span.log.bytes} B / ${span.log.lines} lines${sha}`);
  }
  return lines.join("\n");
}

export function registerRecords(program: Command): void {
  const records = program.command("records").description("Check and read seed-index files (seed-index.jsonl, contract v2).");

  records
    .command("validate")
    .description("Print every line's outcome (record, retract, skipped, invalid, torn-tail) with its reason; exit 1 when any line is invalid.")
    .argument("<seed-index>", "path to a seed-index.jsonl")
    .option("--json", "print one JSON document")
    .action(async (file: string, options: { json?: boolean }) => {
      const outcomes = await readOrFail(file);
      const tally = counts(outcomes);
      emit(options.json === true, { file, lines: outcomes.length, counts: tally, valid: tally.invalid === 0, outcomes: outcomes.map(outcomeJson) }, () =>
        [
          ...outcomes.map(outcomeText),
          `${file}: ${outcomes.length} line(s): ${tally.record} record, ${tally.retract} retract, ${tally.skipped} skipped, ${tally.invalid} invalid, ${tally["torn-tail"]} torn-tail`,
        ].join("\n"),
      );
      if (tally.invalid > 0) setExit(EXIT_FINDINGS);
    });

  records
    .command("show")
    .description("Print the current union view (latest record per seq, retractions applied), or with --archival every standing record in file order.")
    .argument("<seed-index>", "path to a seed-index.jsonl")
    .option("--archival", "every record not voided by a retraction, superseded ones included, in file order")
    .option("--json", 'print {"records": [...as stored...], "diagnostics": [{"line", "reason"}]}')
    .action(async (file: string, options: { json?: boolean; archival?: boolean }) => {
      const outcomes = await readOrFail(file);
      const view = options.archival === true ? archivalUnion(outcomes) : currentView(outcomes);
      // "As stored": a v1 line is printed as it is in the file, not as its v2 reading.
      const stored = new Map<FoldIndexRecord, unknown>();
      for (const o of outcomes) if (o.outcome === "record" && o.upgradedFrom !== undefined) stored.set(o.record, o.upgradedFrom);
      const problems = diagnostics(outcomes);
      if (options.json === true) {
        emit(true, { records: view.map((r) => stored.get(r) ?? r), diagnostics: problems }, () => "");
      } else {
        for (const p of problems) warn(`${file}:${p.line}: ${p.reason}`);
        const title = `${view.length} record(s) in the ${options.archival === true ? "archival union" : "current view"} of ${file}`;
        emit(false, null, () => [title, ...view.map(recordText)].join("\n"));
      }
      if (outcomes.some((o) => o.outcome === "invalid")) setExit(EXIT_FINDINGS);
    });
}
