// Everything the extension holds for one Pi session: fold state restored from the seed index, the
// per-call folder, recall, and the failure report. Built on first use and rebuilt when Pi switches
// sessions, so handlers never depend on the order in which Pi fires events.
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { createSeedScanCache } from "@context-fold/extractors";
import { readSeedIndexFileLean, seedIndexPath } from "@context-fold/seed-index-format";
import { ContextFolder } from "./fold/context-folder.js";
import { ContextUsageTracker } from "./fold/context-usage.js";
import { FailureReport } from "./failure-report.js";
import { FoldState, UNFOLD_ENTRY, type UnfoldMark } from "./fold/fold-state.js";
import { LedgerTracker } from "./ledger-tracker.js";
import type { FoldOptions } from "./options.js";
import { RecallService } from "./recall-service.js";

export interface SessionRuntime {
  /** `file:<path>` or `memory:<session id>`: a changed key means Pi switched sessions. */
  readonly key: string;
  readonly sessionId: string;
  readonly sessionFile: string | undefined;
  readonly seedIndex: string | undefined;
  readonly folder: ContextFolder;
  readonly recall: RecallService | undefined;
  readonly failures: FailureReport;
  /** Pi's context usage figure, kept from the entries appended since the last call (never a whole-session projection per call). */
  readonly usage: ContextUsageTracker;
}

/** The runtime key for the session a context belongs to (cheap: called on every model call). */
export function runtimeKey(ctx: Pick<ExtensionContext, "sessionManager">): string {
  const file = ctx.sessionManager.getSessionFile();
  return file === undefined ? `memory:${ctx.sessionManager.getSessionId()}` : `file:${file}`;
}

/** Unfolds recorded in the session (custom entries written by `/context-fold unfold`). */
export function unfoldMarks(ctx: Pick<ExtensionContext, "sessionManager">): UnfoldMark[] {
  const marks: UnfoldMark[] = [];
  for (const entry of ctx.sessionManager.getEntries()) {
    if (entry.type !== "custom" || entry.customType !== UNFOLD_ENTRY) continue;
    const data = entry.data as { blockId?: unknown; code?: unknown } | undefined;
    if (typeof data?.blockId === "string" && typeof data.code === "string") marks.push({ blockId: data.blockId, code: data.code });
  }
  return marks;
}

/** Build the runtime of the session `ctx` belongs to: restore folds from its seed index. */
export async function openSessionRuntime(ctx: Pick<ExtensionContext, "sessionManager" | "cwd">, options: FoldOptions): Promise<SessionRuntime> {
  const manager = ctx.sessionManager;
  const sessionId = manager.getHeader()?.id ?? manager.getSessionId();
  const sessionFile = manager.getSessionFile();
  const failures = new FailureReport();
  if (sessionFile === undefined) {
    // An in-memory session has no ledger to verify recall against: nothing folds, nothing breaks.
    const folder = new ContextFolder(new FoldState(), options, undefined, "in-memory session: no session file to recall folded text from");
    return { key: runtimeKey(ctx), sessionId, sessionFile, seedIndex: undefined, folder, recall: undefined, failures, usage: new ContextUsageTracker() };
  }
  const seedIndex = seedIndexPath(sessionFile, sessionId);
  // Lean: an `index` record of a large session (a million spans on one line) is not held as objects.
  const { outcomes } = await readSeedIndexFileLean(seedIndex);
  const state = FoldState.restoreLean(outcomes, unfoldMarks(ctx));
  // Scans are shared between the fold stretch and the compaction's facts; with folding off the stretch
  // never reads one, and a cache would only keep every scan the compaction made until the session ends.
  const scans = options.enabled ? createSeedScanCache() : undefined;
  const folder = new ContextFolder(state, options, { sessionId, seedIndex, cwd: ctx.cwd, ledger: new LedgerTracker(sessionFile), scans });
  return { key: runtimeKey(ctx), sessionId, sessionFile, seedIndex, folder, recall: new RecallService(sessionFile, ctx.cwd), failures, usage: new ContextUsageTracker() };
}
