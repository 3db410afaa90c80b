// `context-fold garden`: run the memory gardener against a Hindsight bank — report-only unless
// --apply, capped and verified when applying. Each --apply run is counted in a run ledger in the user's
// state folder, so a killed run resumes with its count; phase files are kept only with --out.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Command } from "commander";
import {
  defaultLedgerDir,
  HindsightClient,
  HindsightError,
  MAX_APPLY_CAP,
  renderReport,
  reportJson,
  runGardener,
  type SamplingMode,
} from "@context-fold/memory-gardener-client";
import { CliError, EXIT_FINDINGS, EXIT_USAGE, emit, setExit } from "../output.js";
import { GARDEN_PHASES, withProgress } from "../progress.js";

interface GardenOptions {
  url: string;
  bank: string;
  mode?: string;
  probe: string[];
  from?: string;
  to?: string;
  now?: string;
  apply?: boolean;
  newRun?: boolean;
  maxApply?: string;
  out?: string;
  apiKey?: string;
  json?: boolean;
}

const MODES: readonly SamplingMode[] = ["recent", "probe", "window"];

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function parseMaxApply(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d{1,3}$/.test(text)) throw new CliError(`--max-apply must be an integer from 0 to ${MAX_APPLY_CAP}, got "${text}"`, { code: "USAGE", exitCode: EXIT_USAGE });
  const n = Number.parseInt(text, 10);
  if (n > MAX_APPLY_CAP) throw new CliError(`--max-apply ${n} is above the hard cap of ${MAX_APPLY_CAP} memories per run`, { code: "USAGE", exitCode: EXIT_USAGE });
  return n;
}

function checkIso(option: string, value: string | undefined): void {
  if (value !== undefined && Number.isNaN(Date.parse(value))) throw new CliError(`${option} must be an ISO-8601 date, got "${value}"`, { code: "USAGE", exitCode: EXIT_USAGE });
}

async function garden(options: GardenOptions): Promise<void> {
  // Without --mode, --probe implies probe sampling and --from/--to imply a window.
  const modeText = options.mode ?? (options.probe.length > 0 ? "probe" : options.from !== undefined || options.to !== undefined ? "window" : "recent");
  if (!(MODES as readonly string[]).includes(modeText)) throw new CliError(`--mode must be one of ${MODES.join(", ")}, got "${modeText}"`, { code: "USAGE", exitCode: EXIT_USAGE });
  const mode = modeText as SamplingMode;
  checkIso("--now", options.now);
  checkIso("--from", options.from);
  checkIso("--to", options.to);
  const maxApply = parseMaxApply(options.maxApply);
  let url: URL | undefined;
  try {
    url = new URL(options.url);
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== "http:" && url.protocol !== "https:")) {
    throw new CliError(`--url must be an http(s) URL, got "${options.url}"`, { code: "USAGE", exitCode: EXIT_USAGE });
  }
  // The sampling options are checked before the bank is contacted.
  if (mode === "probe" && options.probe.length === 0) throw new CliError("--mode probe needs at least one --probe <query>", { code: "USAGE", exitCode: EXIT_USAGE });
  if (mode === "window" && options.from === undefined && options.to === undefined) throw new CliError("--mode window needs --from and/or --to", { code: "USAGE", exitCode: EXIT_USAGE });
  if (options.from !== undefined && options.to !== undefined && options.from.slice(0, 10) > options.to.slice(0, 10)) {
    throw new CliError(`--from ${options.from} is after --to ${options.to}`, { code: "USAGE", exitCode: EXIT_USAGE });
  }
  if (mode !== "probe" && options.probe.length > 0) throw new CliError(`--probe only applies to --mode probe (the mode is ${mode})`, { code: "USAGE", exitCode: EXIT_USAGE });
  if (mode !== "window" && (options.from !== undefined || options.to !== undefined)) throw new CliError(`--from/--to only apply to --mode window (the mode is ${mode})`, { code: "USAGE", exitCode: EXIT_USAGE });
  if (options.newRun === true && options.apply !== true) throw new CliError("--new-run only applies with --apply", { code: "USAGE", exitCode: EXIT_USAGE });
  const serverUrl = url.toString().replace(/\/$/, "");
  const client = new HindsightClient({ baseUrl: serverUrl, ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }) });
  // The clock is the wall clock unless --now says otherwise; never a memory's date, which apply can change.
  const now = options.now ?? new Date().toISOString();
  // Without --out the phases run in a scratch directory removed afterwards: nothing lands in the cwd.
  const outDir = options.out === undefined ? mkdtempSync(join(tmpdir(), "context-fold-garden-")) : resolve(options.out);
  try {
    const report = await withProgress("gardening", "items", (bar) => runGardener(client, {
      onProgress: (event) => bar.update(GARDEN_PHASES.indexOf(event.phase) + 1, GARDEN_PHASES.length),
      bankId: options.bank,
      outDir,
      mode,
      now,
      nowFromClock: options.now === undefined,
      apply: options.apply === true,
      ...(options.apply === true ? { ledger: { serverUrl, dir: defaultLedgerDir(), newRun: options.newRun === true } } : {}),
      ...(options.probe.length > 0 ? { probes: options.probe } : {}),
      ...(options.from === undefined ? {} : { from: options.from }),
      ...(options.to === undefined ? {} : { to: options.to }),
      ...(maxApply === undefined ? {} : { maxApply }),
    }));
    emit(Boolean(options.json), reportJson(report), () => `${renderReport(report)}${options.out === undefined ? "" : `\nPhase files: ${outDir}\n`}`);
    // Findings a human must act on: disputes to review, invalidations that did not stick.
    if (report.contradictions.length > 0 || report.failedApply.length > 0) setExit(EXIT_FINDINGS);
  } catch (error) {
    // GardenerOptionsError, GardenerStateError and GardenerLedgerError carry their code: the error boundary tells them.
    if (error instanceof HindsightError) {
      const detail = typeof error.detail === "string" ? error.detail : error.detail === null || error.detail === undefined ? "" : JSON.stringify(error.detail);
      throw new CliError(`the bank answered ${error.status === 0 ? "nothing" : `HTTP ${error.status}`} to ${error.method} ${error.url}${detail === "" ? "" : `: ${detail}`}`, { code: error.code, exitCode: EXIT_USAGE, cause: error });
    }
    throw error;
  } finally {
    if (options.out === undefined) rmSync(outDir, { recursive: true, force: true });
  }
}

export function registerGarden(program: Command): void {
  program
    .command("garden")
    .description("Audit a Hindsight memory bank for near-duplicates, contradictions and expired CI/PR state; report-only unless --apply.")
    .requiredOption("--url <u>", "Hindsight base URL (e.g. http://127.0.0.1:8888)")
    .requiredOption("--bank <id>", "memory bank id")
    .option("--mode <m>", "sampling: recent | probe | window (default: probe with --probe, window with --from/--to, else recent)")
    .option("--probe <q>", "a recall query to sample by (mode probe; repeatable)", collect, [])
    .option("--from <iso>", "window start, inclusive (mode window)")
    .option("--to <iso>", "window end, inclusive; a date-only value covers that day (mode window)")
    .option("--now <iso>", "the clock ephemera age against (default: the wall clock)")
    .option("--apply", "soft-invalidate superseded and expired memories (capped per run, verified by re-GET; an interrupted run resumes)")
    .option("--new-run", "with --apply: start a new run even if the last one did not finish")
    .option("--max-apply <n>", `lower the per-run cap of ${MAX_APPLY_CAP} memories`)
    .option("--out <dir>", "keep the phase files in this directory; re-running with the same one resumes its phases")
    .option("--api-key <key>", "bearer token when the server enables auth")
    .option("--json", "print the report as one JSON document")
    .action(async (options: GardenOptions) => {
      await garden(options);
    });
}
