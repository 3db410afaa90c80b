// Runs the five phases in order, resuming from the last finished phase when `outDir` already holds
// the files of an interrupted run with the same inputs. With apply, the run ledger (outside `outDir`)
// is opened and its run begun before any phase: a ledger that cannot be read or written refuses apply.
import type { HindsightApi } from "../client/types.js";
import { resolveCap, runApplyPhase } from "./apply.js";
import type { Judge } from "./judge.js";
import { runJudgePhase } from "./judge-phase.js";
import { runManifestPhase, validateSampling } from "./manifest.js";
import { isVersionedObject, phasePaths, readJsonIfExists, writeJsonAtomic } from "./phase-files.js";
import { runReportPhase } from "./report.js";
import { defaultLedgerDir, ledgerFileFor, RunLedger } from "./run-ledger.js";
import { runShardPhase, shardIndexExists } from "./shards.js";
import { GardenerOptionsError, GardenerStateError, type ActionsFile, type GardenerReport, type ManifestFile, type SamplingMode } from "./types.js";

export interface GardenerOptions {
  readonly bankId: string;
  /** Where the phase files go; re-running with the same directory resumes. */
  readonly outDir: string;
  readonly mode?: SamplingMode;
  readonly probes?: readonly string[];
  readonly from?: string;
  readonly to?: string;
  /** The clock (ISO): ephemera age against it and the ledger records it. The caller passes the wall clock
   * (or an override); the gardener itself never reads the system clock. */
  readonly now: string;
  /** `now` is the wall clock, not a chosen instant: resuming an `outDir` keeps the instant it was made with. */
  readonly nowFromClock?: boolean;
  /** Required with apply: where the run ledger lives (default dir: `defaultLedgerDir()`) and the server it is keyed by. */
  readonly ledger?: { readonly serverUrl: string; readonly dir?: string; readonly file?: string; readonly newRun?: boolean };
  readonly apply?: boolean;
  /** Lower the per-run cap of 25 (never raises it). */
  readonly maxApply?: number;
  readonly shardSize?: number;
  readonly concurrency?: number;
  readonly judge?: Judge;
  /** Stop sampling after this many memories. */
  readonly limit?: number;
  readonly onProgress?: (event: GardenerProgress) => void | Promise<void>;
}

export type GardenerProgress =
  | { readonly phase: "manifest" | "shards" | "judge" | "apply" | "report"; readonly status: "done" | "resumed" }
  | { readonly phase: "apply"; readonly status: "batch"; readonly batch: number; readonly attempted: number; readonly applied: number };

interface RunFile {
  readonly version: 1;
  readonly bankId: string;
  readonly mode: SamplingMode;
  readonly probes: readonly string[];
  readonly from: string | null;
  readonly to: string | null;
  readonly now: string;
  readonly shardSize: number | null;
  readonly limit: number | null;
}

function fingerprint(options: GardenerOptions): RunFile {
  return {
    version: 1,
    bankId: options.bankId,
    mode: options.mode ?? "recent",
    probes: [...(options.probes ?? [])],
    from: options.from ?? null,
    to: options.to ?? null,
    now: options.now,
    shardSize: options.shardSize ?? null,
    limit: options.limit ?? null,
  };
}

/** Run (or resume) the gardener; returns the report. Report-only unless `apply: true`. */
export async function runGardener(api: HindsightApi, options: GardenerOptions): Promise<GardenerReport> {
  if (Number.isNaN(Date.parse(options.now))) throw new GardenerOptionsError("now", `"${options.now}" is not an ISO-8601 date`);
  const mode = options.mode ?? "recent";
  validateSampling({ mode, ...pick(options) });
  const cap = resolveCap(options.maxApply);
  if (options.concurrency !== undefined && (!Number.isInteger(options.concurrency) || options.concurrency < 1)) {
    throw new GardenerOptionsError("concurrency", "must be an integer ≥ 1");
  }
  const paths = phasePaths(options.outDir);
  let wanted = fingerprint(options);
  const existing = readJsonIfExists(paths.run, isVersionedObject<RunFile>);
  // A wall-clock `now` moves between a run and its resume: the output directory keeps the first one.
  if (existing !== undefined && options.nowFromClock === true) wanted = { ...wanted, now: existing.now };
  if (existing !== undefined && JSON.stringify(existing) !== JSON.stringify(wanted)) {
    throw new GardenerStateError(paths.run, "this output directory holds a run with different inputs (bank, mode, probes, window, now or shard size); use another --out or delete it");
  }
  // Open the ledger and begin (or resume) its run before any work: no apply without a durable count.
  let ledger: RunLedger | undefined;
  let resumed = false;
  if (options.apply === true) {
    if (options.ledger === undefined) throw new GardenerOptionsError("ledger", "apply needs a run ledger (the server URL it is keyed by)");
    const target = { serverUrl: options.ledger.serverUrl, bankId: options.bankId };
    ledger = RunLedger.open(options.ledger.file ?? ledgerFileFor(options.ledger.dir ?? defaultLedgerDir(), target), target);
    resumed = ledger.begin({ now: options.now, cap, ...(options.ledger.newRun === undefined ? {} : { newRun: options.ledger.newRun }) }).resumed;
  }
  if (existing === undefined) writeJsonAtomic(paths.run, wanted);
  const now = wanted.now;
  const progress = async (event: GardenerProgress): Promise<void> => {
    await options.onProgress?.(event);
  };

  if (readJsonIfExists(paths.manifest, isVersionedObject<ManifestFile>) === undefined) {
    await runManifestPhase(api, {
      bankId: options.bankId, outDir: options.outDir, mode, ...pick(options),
      ...(options.limit === undefined ? {} : { limit: options.limit }),
    });
    await progress({ phase: "manifest", status: "done" });
  } else await progress({ phase: "manifest", status: "resumed" });

  if (!shardIndexExists(options.outDir)) {
    await runShardPhase(api, {
      bankId: options.bankId, outDir: options.outDir, now,
      ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
    });
    await progress({ phase: "shards", status: "done" });
  } else await progress({ phase: "shards", status: "resumed" });

  if (readJsonIfExists(paths.actions, isVersionedObject<ActionsFile>) === undefined) {
    await runJudgePhase({
      outDir: options.outDir, now,
      ...(options.judge === undefined ? {} : { judge: options.judge }),
      ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
    });
    await progress({ phase: "judge", status: "done" });
  } else await progress({ phase: "judge", status: "resumed" });

  if (options.apply === true) {
    // The ledger's run carries the count across a kill: a resumed run finishes without exceeding its cap.
    await runApplyPhase(api, {
      bankId: options.bankId, outDir: options.outDir, now, maxApply: cap, ledger: ledger as RunLedger, resumed,
      onApplyBatch: (p) => progress({ phase: "apply", status: "batch", ...p }),
    });
    await progress({ phase: "apply", status: "done" });
  }

  const report = runReportPhase({ outDir: options.outDir, bankId: options.bankId, mode, now, apply: options.apply === true, cap });
  await progress({ phase: "report", status: "done" });
  return report;
}

function pick(options: GardenerOptions): { probes?: readonly string[]; from?: string; to?: string; shardSize?: number } {
  return {
    ...(options.probes === undefined ? {} : { probes: options.probes }),
    ...(options.from === undefined ? {} : { from: options.from }),
    ...(options.to === undefined ? {} : { to: options.to }),
    ...(options.shardSize === undefined ? {} : { shardSize: options.shardSize }),
  };
}
