// The handoff of the session a runtime belongs to: the session as read by its ledger tracker, the seed
// index's current view for recovery codes (its spans walked from the file when a line is too long to hold)
// — then the summary formatter's `sessionHandoff` (no logic here).
import { readSession, type Session } from "@context-fold/ledger-reader";
import { currentView, readSeedIndexFileLean, recordSpans } from "@context-fold/seed-index-format";
import { type SessionHandoff, type SessionHandoffOptions, sessionHandoff } from "@context-fold/summary-formatter";
import type { SessionRuntime } from "../session-runtime.js";

/** The session file read through the runtime's tracker (incremental), else from scratch; undefined before Pi wrote it. */
export async function runtimeSession(runtime: SessionRuntime): Promise<Session | undefined> {
  const tracker = runtime.folder.target?.ledger;
  if (tracker !== undefined) return tracker.current();
  if (runtime.sessionFile === undefined) return undefined;
  try {
    return await readSession(runtime.sessionFile);
  } catch (error) {
    if ((error as { code?: unknown }).code === "NOT_FOUND" || (error as { code?: unknown }).code === "EMPTY") return undefined;
    throw error;
  }
}

/**
 * The seed index's current view for the handoff: records held, or, when a record's line is too long to
 * hold (`context-fold index` on a large session writes one of a million spans, 213 MB on 1 GB), its spans
 * walked from the file as the handoff is built (`recordSpans`); the handoff is the same either way.
 */
async function seedView(seedIndex: string): Promise<Pick<SessionHandoffOptions, "seedRecords" | "seedSpans">> {
  const { outcomes } = await readSeedIndexFileLean(seedIndex);
  const records = currentView(outcomes);
  return outcomes.some((o) => o.outcome === "record" && o.spansInFile !== undefined) ? { seedSpans: recordSpans(records, outcomes) } : { seedRecords: records };
}

/** Handoff of the runtime's session (`goal` as the user states it; default the founding request). */
export async function runtimeHandoff(runtime: SessionRuntime, goal?: string): Promise<SessionHandoff | undefined> {
  const session = await runtimeSession(runtime);
  if (session === undefined || runtime.sessionFile === undefined) return undefined;
  return sessionHandoff(session, {
    sessionFile: runtime.sessionFile,
    ...(runtime.seedIndex === undefined ? { seedRecords: [] } : await seedView(runtime.seedIndex)),
    ...(runtime.seedIndex === undefined ? {} : { seedIndexFile: runtime.seedIndex }),
    ...(goal === undefined || goal.trim() === "" ? {} : { goal: goal.trim() }),
  });
}
