// The handoff of the session a runtime belongs to: the session as read by its ledger tracker, the seed
// index's current view for recovery codes — then the summary formatter's `sessionHandoff` (no logic here).
import { readSession, type Session } from "@context-fold/ledger-reader";
import { currentView, readSeedIndexFile } from "@context-fold/seed-index-format";
import { type SessionHandoff, sessionHandoff } from "@context-fold/summary-formatter";
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

/** Handoff of the runtime's session (`goal` as the user states it; default the founding request). */
export async function runtimeHandoff(runtime: SessionRuntime, goal?: string): Promise<SessionHandoff | undefined> {
  const session = await runtimeSession(runtime);
  if (session === undefined || runtime.sessionFile === undefined) return undefined;
  const seedRecords = runtime.seedIndex === undefined ? [] : currentView((await readSeedIndexFile(runtime.seedIndex)).outcomes);
  return sessionHandoff(session, {
    sessionFile: runtime.sessionFile,
    seedRecords,
    ...(runtime.seedIndex === undefined ? {} : { seedIndexFile: runtime.seedIndex }),
    ...(goal === undefined || goal.trim() === "" ? {} : { goal: goal.trim() }),
  });
}
