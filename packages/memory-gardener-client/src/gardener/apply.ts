// Phase 4 (only with apply): soft-invalidate `supersede`/`expire` members, at most 25 distinct memories
// per run, each counted only after a 2xx PATCH and a re-GET that shows `invalidated`. Every attempt is
// recorded in the run ledger before its PATCH, so a run killed midway resumes with its count.
import { HindsightError, type HindsightApi } from "../client/types.js";
import { assertSupersedable, ClaimInvariantError } from "./claim.js";
import { readActions } from "./judge-phase.js";
import { isVersionedObject, phasePaths, readJsonIfExists, writeJsonAtomic } from "./phase-files.js";
import type { ApplyOutcome, RunLedger } from "./run-ledger.js";
import { GardenerOptionsError, type ApplyAck, type ApplyFile, type FailedApply, type MemberAction } from "./types.js";

/** The hard ceiling: no option raises it. */
export const MAX_APPLY_CAP = 25;
export const APPLY_BATCH_SIZE = 5;

export interface ApplyOptions {
  readonly bankId: string;
  readonly outDir: string;
  readonly now: string;
  /** The run ledger, with its run begun (`ledger.begin`): the cap counts its attempts. */
  readonly ledger: RunLedger;
  /** The run resumes an unfinished one (reported). */
  readonly resumed?: boolean;
  /** Lower the cap (0–25); never raises it. */
  readonly maxApply?: number;
  readonly batchSize?: number;
  /** Called after each batch of PATCHes; an exception here stops the run (the state is already saved). */
  readonly onApplyBatch?: (progress: { batch: number; attempted: number; applied: number }) => void | Promise<void>;
}

type Outcome = ApplyOutcome;

export function resolveCap(maxApply: number | undefined): number {
  if (maxApply === undefined) return MAX_APPLY_CAP;
  if (!Number.isInteger(maxApply) || maxApply < 0) throw new GardenerOptionsError("maxApply", `must be an integer from 0 to ${MAX_APPLY_CAP}, got ${maxApply}`);
  if (maxApply > MAX_APPLY_CAP) throw new GardenerOptionsError("maxApply", `${maxApply} is above the hard cap of ${MAX_APPLY_CAP} PATCHes per run`);
  return maxApply;
}

function detailText(detail: unknown): string {
  if (typeof detail === "string") return detail;
  if (detail === undefined || detail === null) return "";
  return JSON.stringify(detail);
}

function failureOf(id: string, error: unknown, during: string): FailedApply {
  if (error instanceof HindsightError) {
    const detail = detailText(error.detail);
    return { id, status: error.status, detail: detail === "" ? `${during}: ${error.message}` : detail };
  }
  return { id, status: 0, detail: `${during}: ${error instanceof Error ? error.message : String(error)}` };
}

function reasonFor(action: MemberAction, now: string): string {
  if (action.action === "supersede") return `context-fold garden ${now}: superseded by ${action.survivorId ?? "?"} (${action.reason})`;
  return `context-fold garden ${now}: expired ephemeral run state (${action.reason})`;
}

/** The candidates in a fixed order (by memory id), so a capped run mixes expiries and supersessions. */
export function applyCandidates(actions: readonly MemberAction[]): MemberAction[] {
  return actions
    .filter((a) => a.action === "supersede" || a.action === "expire")
    .sort((x, y) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
}

async function survivorProblem(api: HindsightApi, bankId: string, action: MemberAction): Promise<FailedApply | undefined> {
  const survivorId = action.survivorId ?? "";
  try {
    const survivor = await api.getMemory(bankId, survivorId);
    // By construction a supersede never joins claims that disagree; should one get here, stop the run.
    assertSupersedable(action.text, survivor.text);
    if (survivor.state === "valid") return undefined;
    return { id: action.id, status: 0, detail: `not sent: its survivor ${survivorId} is no longer valid (state "${survivor.state}")` };
  } catch (error) {
    if (error instanceof ClaimInvariantError) throw error;
    const f = failureOf(action.id, error, `not sent: GET of survivor ${survivorId}`);
    return { ...f, detail: f.detail.startsWith("not sent") ? f.detail : `not sent: survivor ${survivorId}: ${f.detail}` };
  }
}

async function applyOne(api: HindsightApi, bankId: string, action: MemberAction, now: string): Promise<Outcome> {
  try {
    await api.patchMemory(bankId, action.id, { state: "invalidated", reason: reasonFor(action, now) });
  } catch (error) {
    return { applied: false, failure: failureOf(action.id, error, "PATCH") };
  }
  // Verify-after-write: the 2xx alone proves nothing.
  try {
    const after = await api.getMemory(bankId, action.id);
    if (after.state === "invalidated") return { applied: true };
    return { applied: false, failure: { id: action.id, status: 200, detail: `PATCH answered 2xx but a re-GET shows state "${after.state}"` } };
  } catch (error) {
    return { applied: false, failure: failureOf(action.id, error, "re-GET after PATCH") };
  }
}

/** Phase 4. Records every attempt in the run ledger before its PATCH, writes `apply.json` at the end; returns a tiny ack. */
export async function runApplyPhase(api: HindsightApi, options: ApplyOptions): Promise<ApplyAck> {
  const ledger = options.ledger;
  const run = ledger.run;
  // A resumed run keeps the cap it started with; a lower one asked for now lowers it.
  const cap = Math.min(resolveCap(options.maxApply), run.cap);
  const paths = phasePaths(options.outDir);
  const candidates = applyCandidates(readActions(options.outDir).actions);
  const done = ledger.appliedBefore();
  const byId = new Map(candidates.map((c) => [c.id, c] as const));

  // Ids attempted before a kill without a recorded outcome are settled first, by a GET: the PATCH may
  // have landed. One still valid and still a candidate is sent again (that does not raise the distinct
  // count; invalidation is idempotent).
  for (const id of run.attempted) {
    if (run.outcomes[id] !== undefined) continue;
    const action = byId.get(id);
    const settled = await settleByGet(api, options.bankId, id);
    ledger.recordOutcome(id, settled.applied || action === undefined ? settled : await applyOne(api, options.bankId, action, options.now));
  }
  const attemptedSet = new Set(run.attempted);
  const queue = candidates.filter((c) => !attemptedSet.has(c.id) && run.notSent[c.id] === undefined && !done.has(c.id));
  const batchSize = Math.max(1, options.batchSize ?? APPLY_BATCH_SIZE);
  let inBatch = 0;
  let batch = 0;
  for (const action of queue) {
    if (run.attempted.length >= cap) break;
    // Superseding is only safe while the survivor still holds the fact.
    const problem = action.action === "supersede" ? await survivorProblem(api, options.bankId, action) : undefined;
    if (problem !== undefined) {
      ledger.recordNotSent(action.id, problem);
      continue;
    }
    ledger.recordAttempt(action.id);
    attemptedSet.add(action.id);
    ledger.recordOutcome(action.id, await applyOne(api, options.bankId, action, options.now));
    if (++inBatch === batchSize) {
      inBatch = 0;
      const applied = Object.values(run.outcomes).filter((o) => o.applied).length;
      await options.onApplyBatch?.({ batch: batch++, attempted: run.attempted.length, applied });
    }
  }
  ledger.complete(options.now);
  const applied = run.attempted.filter((id) => run.outcomes[id]?.applied === true);
  const failedApply = [
    ...run.attempted.flatMap((id) => {
      const o = run.outcomes[id];
      return o !== undefined && !o.applied ? [o.failure] : [];
    }),
    ...Object.keys(run.notSent).sort().flatMap((id) => (run.notSent[id] === undefined ? [] : [run.notSent[id]])),
  ];
  const deferred = candidates.filter((c) => !attemptedSet.has(c.id) && run.notSent[c.id] === undefined && !done.has(c.id)).length;
  const file: ApplyFile = { version: 1, cap, attempted: run.attempted, applied, failedApply, deferred, run: run.run, resumed: options.resumed === true, ledger: ledger.path };
  writeJsonAtomic(paths.apply, file);
  return { ok: true, path: paths.apply, applied: applied.length, failed: failedApply.length };
}

/** An id attempted before a kill that the re-run no longer lists: its state on the server is its outcome. */
async function settleByGet(api: HindsightApi, bankId: string, id: string): Promise<Outcome> {
  try {
    const memory = await api.getMemory(bankId, id);
    if (memory.state === "invalidated") return { applied: true };
    return { applied: false, failure: { id, status: 200, detail: `attempted before the run was interrupted; a re-GET shows state "${memory.state}" and it is no longer a candidate` } };
  } catch (error) {
    return { applied: false, failure: failureOf(id, error, "re-GET after an interrupted run") };
  }
}

export function readApply(outDir: string): ApplyFile | undefined {
  return readJsonIfExists(phasePaths(outDir).apply, isVersionedObject<ApplyFile>);
}
