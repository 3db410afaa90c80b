// `context-fold eval <session.jsonl>...`: how much of what matters a compaction keeps (ground truth read
// from the ledger), how much recall brings back verified, sizes, times, and the same after N rounds.
import { performance } from "node:perf_hooks";
import type { Session } from "@context-fold/ledger-reader";
import { RecallError } from "@context-fold/recall-engine";
import { SummaryError } from "@context-fold/summary-formatter";
import type { Command } from "commander";
import { type EvalManifest, EvalInputError, readEvalManifest } from "../eval/eval-manifest.js";
import { evaluateSession, type SessionEval } from "../eval/evaluate-session.js";
import { renderEval } from "../eval/render-eval.js";
import { CliError, EXIT_FINDINGS, EXIT_USAGE, emit, setExit } from "../output.js";
import { readSessionForCli } from "../session-input.js";

interface EvalCliOptions {
  needles: string[];
  rounds?: string;
  roundFacts?: string;
  budget?: string;
  json?: boolean;
}

/** What `--json` prints. */
export interface EvalDocument {
  readonly sessions: readonly SessionEval[];
  readonly skipped: readonly { readonly file: string; readonly reason: string }[];
  /** Every floor held in every evaluated session. */
  readonly floorsHeld: boolean;
}

function wholeNumber(name: string, value: string | undefined, min: number): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < min) throw new CliError(`${name} must be a whole number ≥ ${String(min)}, got "${value}"`, { code: "BAD_OPTION" });
  return Number(value);
}

async function manifestsById(files: readonly string[]): Promise<Map<string, { file: string; manifest: EvalManifest }>> {
  const out = new Map<string, { file: string; manifest: EvalManifest }>();
  for (const file of files) {
    try {
      const manifest = await readEvalManifest(file);
      out.set(manifest.sessionId, { file, manifest });
    } catch (error) {
      if (error instanceof EvalInputError) throw new CliError(error.message, { code: error.code, exitCode: EXIT_USAGE, cause: error });
      throw error;
    }
  }
  return out;
}

export function registerEval(program: Command): void {
  program
    .command("eval")
    .description("Retention evaluation: what a compaction keeps (founding request, corrections, files, commits, errors, needles), what recall recovers verified, sizes and times")
    .argument("<session.jsonl...>", "Pi session files")
    .option("--needles <manifest.json>", "session-gen manifest (needles, open errors); repeat for several sessions, matched by session id", (v: string, acc: string[]) => [...acc, v], [])
    .option("--rounds <N>", "also compact N times at growing cut points, each merging the previous summary, and score the last", "1")
    .option("--round-facts <window|lineage>", "window: each round extracts only what is new since the last cut (older facts survive only through the merge); lineage: the whole lineage each time", "window")
    .option("--budget <tokens>", "summary budget in tokens (default: the formatter's)")
    .option("--json", "print {sessions, skipped, floorsHeld}")
    .action(async (files: string[], options: EvalCliOptions) => {
      const rounds = wholeNumber("--rounds", options.rounds, 1) ?? 1;
      const budget = wholeNumber("--budget", options.budget, 1);
      const roundFacts = options.roundFacts ?? "window";
      if (roundFacts !== "window" && roundFacts !== "lineage") throw new CliError(`--round-facts must be window or lineage, got "${roundFacts}"`, { code: "BAD_OPTION" });
      const manifests = await manifestsById(options.needles);
      const sessions: Session[] = [];
      for (const file of files) sessions.push(await readSessionForCli(file));
      const used = new Set<string>();
      const results: SessionEval[] = [];
      const skipped: { file: string; reason: string }[] = [];
      for (const [i, session] of sessions.entries()) {
        const given = manifests.get(session.header.id);
        if (given !== undefined) used.add(session.header.id);
        try {
          results.push(
            await evaluateSession(session, {
              clock: () => performance.now(),
              rounds,
              roundFacts,
              ...(budget === undefined ? {} : { budget }),
              ...(given === undefined ? {} : { manifest: given.manifest }),
            }),
          );
        } catch (error) {
          if (error instanceof SummaryError && error.code === "NOTHING_TO_COMPACT") skipped.push({ file: files[i] ?? session.path, reason: error.message });
          else if (error instanceof SummaryError || error instanceof RecallError) throw new CliError(error.message, { code: error.code, exitCode: EXIT_USAGE, cause: error });
          else throw error;
        }
      }
      for (const [id, { file }] of manifests) {
        if (!used.has(id)) throw new CliError(`--needles ${file} is for session ${id}, which is not among the sessions given`, { code: "MANIFEST_UNMATCHED" });
      }
      const floorsHeld = results.every((r) => r.floors.foundingRequest && r.floors.commits && r.floors.needlesViaRecall);
      const doc: EvalDocument = { sessions: results, skipped, floorsHeld };
      emit(options.json === true, doc, () => renderEval(results, skipped));
      if (!floorsHeld) setExit(EXIT_FINDINGS);
    });
}
