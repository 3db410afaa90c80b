// `context-fold compact <session.jsonl>`: the structured summary a compaction of the session's active
// lineage would write (no model call), with the cut Pi's hook expects and the durable-artifact digest.
import { readFile } from "node:fs/promises";
import { readSession, type SessionShape } from "@context-fold/ledger-reader";
import { type CompactOptions, type CompactResult, compactSession, compactSessionStreamed, type KeepTail } from "@context-fold/summary-formatter";
import type { Command } from "commander";
import { CliError, emit, warn } from "../output.js";
import { branchCutShort, readSessionForCli, readSessionShapeForCli, refuseCutOffPiBranch, streamsSession, warnOrphanedFounding } from "../session-input.js";

interface CompactCliOptions {
  budget?: string;
  format?: string;
  previous?: string;
  keepTail?: string;
  now?: string;
  json?: boolean;
}

function parseBudget(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new CliError(`--budget must be a whole number of tokens, got "${value}"`, { code: "BAD_OPTION" });
  return Number(value);
}

function parseKeepTail(value: string | undefined): KeepTail | undefined {
  if (value === undefined || value === "auto") return value === undefined ? undefined : "auto";
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new CliError(`--keep-tail must be "auto" or a whole number ≥ 1, got "${value}"`, { code: "BAD_OPTION" });
  return Number(value);
}

/**
 * A large session: its shape (no text, every block's size), then one streamed read for the lineage's
 * text, so memory holds the window and tail, not the session; the shape itself is let go once the cut
 * is planned (nothing here holds it across the stream). A branch cut short by damage is read whole,
 * since its warning quotes the founding requests on both sides of the break.
 */
async function compactLarge(file: string, options: CompactOptions): Promise<CompactResult> {
  const streamed = startStreamed(await readSessionShapeForCli(file, { blockBytes: true }), options);
  if (streamed !== undefined) return await streamed;
  const whole = await readSession(file);
  warnOrphanedFounding(whole, "compact");
  const result = compactSession(whole, options);
  refuseCutOffPiBranch(whole, result.firstKeptEntryId);
  return result;
}

/** The streamed compaction under way (the shape goes no further), or undefined: damage cut the branch short. */
function startStreamed(shape: SessionShape, options: CompactOptions): Promise<CompactResult> | undefined {
  if (branchCutShort(shape.session) !== undefined) return undefined;
  return compactSessionStreamed(shape, options, refuseCutOffPiBranch);
}

export function registerCompact(program: Command): void {
  program
    .command("compact")
    .description("Compact a session's lineage into a structured summary (no model call); merges with the previous summary")
    .argument("<session.jsonl>", "Pi session file")
    .option("--budget <tokens>", "summary budget in tokens, estimated as ceil(UTF-8 bytes / 4) (default 4000)")
    .option("--format <format>", "brackets (context-fold sections) or pi (Pi's ## Goal … layout)", "brackets")
    .option("--previous <summary.txt>", "previous summary to merge with (default: the compactions on the lineage)")
    .option("--keep-tail <auto|N>", "auto (last user turn, split when too long) or the least number of messages to keep", "auto")
    .option("--now <iso>", "time printed in the footer (default: the last entry's timestamp)")
    .option("--json", "print {summary, firstKeptEntryId, tokensBefore, estimatedTokensAfter, digest, stats}")
    .action(async (file: string, options: CompactCliOptions) => {
      const format = options.format ?? "brackets";
      if (format !== "brackets" && format !== "pi") throw new CliError(`--format must be brackets or pi, got "${format}"`, { code: "BAD_OPTION" });
      const budget = parseBudget(options.budget);
      const keepTail = parseKeepTail(options.keepTail);
      let previous: string | undefined;
      if (options.previous !== undefined) {
        let bytes: Buffer;
        try {
          bytes = await readFile(options.previous);
        } catch (error) {
          throw new CliError(`cannot read --previous ${options.previous}: ${(error as Error).message}`, { code: "UNREADABLE", cause: error });
        }
        try {
          previous = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
        } catch {
          throw new CliError(`--previous ${options.previous} is not UTF-8 text (an earlier summary is); nothing was compacted`, { code: "BAD_OPTION" });
        }
        const nul = previous.indexOf("\u0000");
        if (nul !== -1) throw new CliError(`--previous ${options.previous} holds a NUL byte at character ${String(nul)}: binary, not an earlier summary`, { code: "BAD_OPTION" });
      }
      const compactOptions = {
        format,
        ...(budget === undefined ? {} : { budget }),
        ...(keepTail === undefined ? {} : { keepTail }),
        ...(previous === undefined ? {} : { previous }),
        ...(options.now === undefined ? {} : { now: options.now }),
      } as const;
      // A large session is streamed (compactLarge). A SummaryError carries its code; NOTHING_TO_COMPACT exits 1 through the error boundary's map.
      let result: CompactResult;
      if (streamsSession(file)) result = await compactLarge(file, compactOptions);
      else {
        const session = await readSessionForCli(file);
        warnOrphanedFounding(session, "compact");
        result = compactSession(session, compactOptions);
        refuseCutOffPiBranch(session, result.firstKeptEntryId);
      }
      emit(options.json === true, result, () => result.summary);
      if (!result.stats.summary.withinBudget) {
        // Verbatim items take at most half the budget, so only what no step trims (the footer, the recall
        // hint, the omission counts, the newest previous summaries' opening lines) can overrun a small one.
        warn(`context-fold: the summary is ~${String(result.stats.summary.estimatedTokens)} tokens, over the ${String(result.stats.summary.budget)}-token budget: what is never trimmed (footer, recall hint, omission counts) does not fit in it (raise --budget)`);
      }
    });
}
