// `context-fold eval <session.jsonl>...`: how much of what matters a compaction keeps (ground truth read
// from the ledger, and hand-written truth files with --truth), how much recall brings back verified,
// sizes, times, and the same after N rounds. A file that cannot be read as a session is skipped with its
// reason and the rest are scored; with nothing scored the command fails (exit 2).
//
// A session up to STREAM_ABOVE_BYTES is read whole. A larger one evaluated once with sampled needles is
// streamed (eval/evaluate-streamed.ts): its shape, then one streamed read that compacts it and reads the
// ground truth along the way, the sampled needles read back by byte offset, so that part holds what the
// answer needs, not the session. Its recall part (a recall index over every block, each needle searched
// and expanded, verified against the ledger) is built streamed too, into a temporary folder, after the
// rest is let go (recall-engine's streamed-build.ts: postings spilled to disk and merged there), and
// searched by offset; a session that can have no block table (not v3, or a damaged line) has that part
// read whole, as `recall` does. With --needles, --rounds > 1 or a truth file a
// large session is read whole as well: needles are located in any entry by id, each round re-parses a
// byte prefix of the file, and truth scoring reads the recall index and blocks throughout.
import { performance } from "node:perf_hooks";
import { LedgerError, readSession, type Session } from "@context-fold/ledger-reader";
import { RecallError } from "@context-fold/recall-engine";
import { SummaryError } from "@context-fold/summary-formatter";
import type { Command } from "commander";
import { type EvalManifest, readEvalManifest } from "../eval/eval-manifest.js";
import { evaluateSession, type SessionEval } from "../eval/evaluate-session.js";
import { writeEvalHtml } from "../eval/html-report.js";
import { renderEval } from "../eval/render-eval.js";
import { fileSha256 } from "../eval/truth-file.js";
import { type HashedFile, pairTruths, readTruthSources, type TruthPairing } from "../eval/truth-pairing.js";
import { CliError, EXIT_FINDINGS, EXIT_USAGE, emit, setExit, warn } from "../output.js";
import { readSessionForCli, streamsSession } from "../session-input.js";

interface EvalCliOptions {
  needles: string[];
  truth: string[];
  rounds?: string;
  roundFacts?: string;
  budget?: string;
  json?: boolean;
  html?: string;
  fragment?: boolean;
}

/** A file given to `eval` that was not scored, and why. */
export interface SkippedFile {
  readonly file: string;
  readonly reason: string;
}

/** What `--json` prints. */
export interface EvalDocument {
  readonly sessions: readonly SessionEval[];
  readonly skipped: readonly SkippedFile[];
  /** Truth files found in a `--truth` directory for sessions that were not given (left out). */
  readonly truthUnused: readonly string[];
  /** At least one session scored, and every floor held in every scored session. */
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
    // An EvalInputError carries its code: the error boundary tells it (exit 2).
    const manifest = await readEvalManifest(file);
    out.set(manifest.sessionId, { file, manifest });
  }
  return out;
}

/** The message of a failure to read or score one file (it goes into `skipped`). */
function reasonOf(error: unknown): string {
  // A headerless file is what `--fragment` is for: the reason says so, where a user reads it.
  if (error instanceof LedgerError && error.code === "NO_HEADER") return `${error.message} (--fragment scores it as a fragment)`;
  return error instanceof Error ? error.message : String(error);
}

/** sha256 of every given file that can be read (a skipped file still claims its truth file). */
async function hashed(files: readonly string[]): Promise<HashedFile[]> {
  const out: HashedFile[] = [];
  for (const file of files) {
    try {
      out.push({ file, sha256: await fileSha256(file) });
    } catch {
      // unreadable: already in `skipped`, and no truth file can be for it
    }
  }
  return out;
}

async function pairing(files: readonly string[], truthArgs: readonly string[]): Promise<TruthPairing> {
  if (truthArgs.length === 0) return { bySession: new Map(), unused: [] };
  return pairTruths(await hashed(files), await readTruthSources(truthArgs));
}

export function registerEval(program: Command): void {
  program
    .command("eval")
    .description(
      "Retention evaluation: what a compaction keeps (founding request, corrections, files, commits, errors, needles), what recall recovers verified, sizes and times; with --truth, scores against hand-written truth files (decisions, files, junk, commits, open errors, questions by recall) and their floors",
    )
    .argument("<session.jsonl...>", "Pi session files (a file that cannot be read as a session is skipped with its reason)")
    .option("--needles <manifest.json>", "session-gen manifest (needles, open errors); repeat for several sessions, matched by session id", (v: string, acc: string[]) => [...acc, v], [])
    .option(
      "--truth <file|dir>",
      "hand-written truth file (../shared/fixtures/real/README.md format) or a folder of *.truth.json; each session is paired with the truth whose sha256 is the session file's. Exit 2 when a named truth file matches no session given, or a truth's session (by name) hashes differently; repeatable",
      (v: string, acc: string[]) => [...acc, v],
      [],
    )
    .option("--rounds <N>", "also compact N times at growing cut points, each merging the previous summary, and score the last", "1")
    .option("--round-facts <window|lineage>", "window: each round extracts only what is new since the last cut (older facts survive only through the merge); lineage: the whole lineage each time", "window")
    .option("--budget <tokens>", "summary budget in tokens (default: the formatter's)")
    .option("--fragment", "read files without a session header (fragments Pi refuses) as fragment-<sha256 prefix>, as facts and recall do")
    .option("--json", "print {sessions, skipped, truthUnused, floorsHeld}")
    .option("--html <file>", "also write a self-contained HTML report (SVG charts of retention per metric and per round, the summary, the misses), replaced atomically")
    .addHelpText(
      "after",
      `
Floors (exit 1 when one does not hold): founding request verbatim, every commit named or counted, every
needle found through recall; with a truth file also decisions (importance high/medium) >= 0.9, modified
files named >= 0.95, junk listed as files 0, commits named 1.0, open errors named >= 0.8, founding request
verbatim. Needles and questions are also searched by words (three rarest / five longest), reported beside.
Exit 0 floors held, 1 a floor not held, 2 usage or no session scored; skipped files are named on stderr.`,
    )
    .action(async (files: string[], options: EvalCliOptions) => {
      const rounds = wholeNumber("--rounds", options.rounds, 1) ?? 1;
      const budget = wholeNumber("--budget", options.budget, 1);
      const roundFacts = options.roundFacts ?? "window";
      if (roundFacts !== "window" && roundFacts !== "lineage") throw new CliError(`--round-facts must be window or lineage, got "${roundFacts}"`, { code: "BAD_OPTION" });
      const manifests = await manifestsById(options.needles);
      const skipped: SkippedFile[] = [];
      // A large session (see STREAM_ABOVE_BYTES) evaluated once with sampled needles is streamed when its
      // turn comes (evaluateStreamed), never held whole beside the others. With --needles (needles located
      // in any entry by id), --rounds (each round re-parses a byte prefix of the file) or a truth file
      // (scored against the recall index and blocks throughout) it is read whole.
      const streamable = manifests.size === 0 && rounds === 1;
      const sessions: { file: string; session: Session | undefined }[] = [];
      for (const file of files) {
        if (streamable && streamsSession(file)) {
          sessions.push({ file, session: undefined });
          continue;
        }
        try {
          sessions.push({ file, session: await readSessionForCli(file, { fragment: options.fragment === true }) });
        } catch (error) {
          skipped.push({ file, reason: reasonOf(error) });
        }
      }
      const truths = await pairing(files, options.truth);
      const used = new Set<string>();
      const results: SessionEval[] = [];
      const clock = (): number => performance.now();
      for (const item of sessions) {
        const { file } = item;
        const truth = truths.bySession.get(file);
        let session = item.session;
        item.session = undefined; // held no longer than its evaluation
        if (session === undefined) {
          // Loaded only here: a session read whole does not pay for the streamed path's modules.
          const { evaluateStreamed, StreamedReadError } = await import("../eval/evaluate-streamed.js");
          try {
            const streamed = truth === undefined ? await evaluateStreamed(file, { clock, fragment: options.fragment === true, ...(budget === undefined ? {} : { budget }) }) : undefined;
            if (streamed !== undefined) {
              results.push(streamed);
              continue;
            }
          } catch (error) {
            if (error instanceof StreamedReadError) skipped.push({ file, reason: reasonOf(error.reason) });
            else if (error instanceof SummaryError || error instanceof RecallError) skipped.push({ file, reason: `${error.code}: ${error.message}` });
            else throw error;
            continue;
          }
          try {
            // After a shape read (its damage and fragment already told), quietly; else as any whole read.
            const fragment = options.fragment === true ? { fragment: true } : {};
            session = truth === undefined ? await readSession(file, fragment) : await readSessionForCli(file, fragment);
          } catch (error) {
            skipped.push({ file, reason: reasonOf(error) });
            continue;
          }
        }
        const given = manifests.get(session.header.id);
        if (given !== undefined) used.add(session.header.id);
        try {
          results.push(
            await evaluateSession(session, {
              clock,
              rounds,
              roundFacts,
              ...(budget === undefined ? {} : { budget }),
              ...(given === undefined ? {} : { manifest: given.manifest }),
              ...(truth === undefined ? {} : { truth }),
            }),
          );
        } catch (error) {
          if (error instanceof SummaryError || error instanceof RecallError) skipped.push({ file, reason: `${error.code}: ${error.message}` });
          else throw error;
        }
      }
      for (const [id, { file }] of manifests) {
        if (!used.has(id)) throw new CliError(`--needles ${file} is for session ${id}, which is not among the sessions given`, { code: "MANIFEST_UNMATCHED" });
      }
      const scored = results.length > 0;
      const floorsHeld = scored && results.every((r) => r.floors.foundingRequest && r.floors.commits && r.floors.needlesViaRecall && r.floors.truth !== false);
      const doc: EvalDocument = { sessions: results, skipped, truthUnused: truths.unused, floorsHeld };
      if (options.html !== undefined) await writeEvalHtml(options.html, doc, files);
      emit(options.json === true, doc, () => renderEval(results, skipped, truths.unused));
      for (const s of skipped) warn(`context-fold: warning: ${s.file}: skipped, not scored (${s.reason})`);
      if (!scored) {
        warn(`context-fold: no session was scored (${String(skipped.length)} skipped)`);
        setExit(EXIT_USAGE);
      } else if (!floorsHeld) setExit(EXIT_FINDINGS);
    });
}
