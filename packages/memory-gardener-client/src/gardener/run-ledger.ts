// The run ledger: what each `apply` run of one bank on one server invalidated, kept in the user's state
// folder so a run killed midway resumes with its count instead of starting over with a fresh cap. Keyed
// by server URL and bank id — never by a date, which apply itself can change.
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { stateDir } from "@context-fold/durable-fs";
import { writeFileAtomic } from "./phase-files.js";
import type { FailedApply } from "./types.js";

export type ApplyOutcome = { readonly applied: true } | { readonly applied: false; readonly failure: FailedApply };

export interface LedgerRun {
  /** 1-based, per bank and server. */
  readonly run: number;
  /** Wall-clock time the run started. */
  readonly startedAt: string;
  /** The cap the run started with; a resume never raises it. */
  readonly cap: number;
  /** Distinct ids a PATCH was (or was about to be) sent for, in order: what the cap counts. */
  readonly attempted: string[];
  readonly outcomes: Record<string, ApplyOutcome>;
  /** Candidates never sent (their survivor no longer valid): reported, not counted by the cap. */
  readonly notSent: Record<string, FailedApply>;
  /** Set when the run's apply phase finished; null while it is open (running or killed). */
  completedAt: string | null;
}

interface LedgerFile {
  readonly version: 1;
  readonly serverUrl: string;
  readonly bankId: string;
  readonly runs: LedgerRun[];
}

export interface LedgerTarget {
  readonly serverUrl: string;
  readonly bankId: string;
}

/** Runs kept in the file; older ones only matter to a human reading history. */
export const LEDGER_RUNS_KEPT = 100;

/** A ledger that cannot be read or written: `--apply` is refused rather than run without a count. */
export class GardenerLedgerError extends Error {
  readonly code = "GARDENER_LEDGER" as const;
  readonly file: string;
  constructor(file: string, message: string, options?: { cause?: unknown }) {
    super(`${file}: ${message}`, options);
    this.name = "GardenerLedgerError";
    this.file = file;
  }
}

/** `$XDG_STATE_HOME/context-fold/garden`, else `~/.local/state/context-fold/garden` (XDG: a relative value is ignored). */
export function defaultLedgerDir(env: Readonly<Record<string, string | undefined>> = process.env, home: string = homedir()): string {
  return stateDir("garden", env, home);
}

/** One file per (server URL, bank id): a readable bank prefix plus a hash of both. */
export function ledgerFileFor(dir: string, target: LedgerTarget): string {
  const hash = createHash("sha256").update(`${normalizeUrl(target.serverUrl)}\n${target.bankId}`).digest("hex").slice(0, 16);
  let prefix = "";
  for (const ch of target.bankId.slice(0, 40)) prefix += /[A-Za-z0-9_.-]/.test(ch) ? ch : "_";
  return join(dir, `${prefix}-${hash}.json`);
}

function normalizeUrl(url: string): string {
  return url.replace(/\/+$/, "");
}

/**
 * The only place the ledger touches the disk for writing: an atomic, durable replace. Kept as one small
 * function so the writer can be swapped (e.g. for a shared durable-fs package) without touching callers.
 */
export function writeLedgerText(path: string, text: string): void {
  writeFileAtomic(path, text);
}

function isRun(value: unknown): value is LedgerRun {
  if (typeof value !== "object" || value === null) return false;
  const r = value as Partial<LedgerRun>;
  return typeof r.run === "number" && typeof r.startedAt === "string" && typeof r.cap === "number" && Array.isArray(r.attempted) &&
    r.attempted.every((id) => typeof id === "string") && typeof r.outcomes === "object" && r.outcomes !== null &&
    typeof r.notSent === "object" && r.notSent !== null && (r.completedAt === null || typeof r.completedAt === "string");
}

export class RunLedger {
  readonly path: string;
  private readonly file: LedgerFile;
  private active: LedgerRun | undefined;

  private constructor(path: string, file: LedgerFile) {
    this.path = path;
    this.file = file;
  }

  /** Read the ledger (a missing file is an empty ledger); a file that cannot be read or parsed is an error. */
  static open(path: string, target: LedgerTarget): RunLedger {
    const serverUrl = normalizeUrl(target.serverUrl);
    if (!existsSync(path)) return new RunLedger(path, { version: 1, serverUrl, bankId: target.bankId, runs: [] });
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(path, "utf8"));
    } catch (error) {
      throw new GardenerLedgerError(path, `the run ledger cannot be read (${error instanceof Error ? error.message : String(error)}); --apply is refused until it is repaired or moved away`, { cause: error });
    }
    const file = parsed as Partial<LedgerFile>;
    if (typeof parsed !== "object" || parsed === null || file.version !== 1 || !Array.isArray(file.runs) || !file.runs.every(isRun)) {
      throw new GardenerLedgerError(path, "not a gardener run ledger of this version; --apply is refused until it is repaired or moved away");
    }
    if (file.serverUrl !== serverUrl || file.bankId !== target.bankId) {
      throw new GardenerLedgerError(path, `this ledger belongs to bank ${String(file.bankId)} on ${String(file.serverUrl)}, not ${target.bankId} on ${serverUrl}`);
    }
    return new RunLedger(path, file as LedgerFile);
  }

  /** The newest run, finished or not. */
  latest(): LedgerRun | undefined {
    return this.file.runs[this.file.runs.length - 1];
  }

  /**
   * Resume the open run, or start a new one when the last finished (or `newRun`). Writes the ledger, so a
   * ledger that cannot be written refuses the run before any PATCH.
   */
  begin(options: { readonly now: string; readonly cap: number; readonly newRun?: boolean }): { readonly run: LedgerRun; readonly resumed: boolean } {
    const last = this.latest();
    let resumed = false;
    if (last !== undefined && last.completedAt === null && options.newRun !== true) {
      this.active = last;
      resumed = true;
    } else {
      // --new-run over an open run closes it as it stands: its count is history, not carried over.
      if (last !== undefined && last.completedAt === null) last.completedAt = options.now;
      this.active = { run: (last?.run ?? 0) + 1, startedAt: options.now, cap: options.cap, attempted: [], outcomes: {}, notSent: {}, completedAt: null };
      this.file.runs.push(this.active);
      if (this.file.runs.length > LEDGER_RUNS_KEPT) this.file.runs.splice(0, this.file.runs.length - LEDGER_RUNS_KEPT);
    }
    this.save();
    return { run: this.active, resumed };
  }

  /** The run begun by `begin`. */
  get run(): LedgerRun {
    if (this.active === undefined) throw new GardenerLedgerError(this.path, "no run begun");
    return this.active;
  }

  /** Ids applied by earlier runs of this ledger: never sent again. */
  appliedBefore(): Set<string> {
    const out = new Set<string>();
    for (const r of this.file.runs) {
      if (r === this.active) continue;
      for (const [id, o] of Object.entries(r.outcomes)) if (o.applied) out.add(id);
    }
    return out;
  }

  recordAttempt(id: string): void {
    this.run.attempted.push(id);
    this.save();
  }

  recordOutcome(id: string, outcome: ApplyOutcome): void {
    this.run.outcomes[id] = outcome;
    this.save();
  }

  recordNotSent(id: string, failure: FailedApply): void {
    this.run.notSent[id] = failure;
    this.save();
  }

  complete(now: string): void {
    this.run.completedAt = now;
    this.save();
  }

  private save(): void {
    try {
      writeLedgerText(this.path, `${JSON.stringify(this.file)}\n`);
    } catch (error) {
      throw new GardenerLedgerError(this.path, `the run ledger cannot be written (${error instanceof Error ? error.message : String(error)}); no PATCH is sent without its record`, { cause: error });
    }
  }
}
