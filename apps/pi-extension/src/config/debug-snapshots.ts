// Debug snapshots (opt-in: `debugDir`): after each compaction, one JSON file per session in the configured
// folder — the compaction entry (summary head, cut, details), fold state and usage — replaced atomically.
// Written in the background: a snapshot never delays a compaction, and a failure is reported once.
import { join } from "node:path";
import type { ExtensionAPI, SessionCompactEvent } from "@earendil-works/pi-coding-agent";
import { writeFileAtomically } from "@context-fold/summary-formatter";
import type { RuntimeRegistry } from "../runtime-registry.js";

/** Characters of the summary kept in a snapshot. */
export const SNAPSHOT_SUMMARY_CHARS = 4000;

/** `<debugDir>/context-fold-debug-<sessionId>.json`. */
export function snapshotPath(debugDir: string, sessionId: string): string {
  return join(debugDir, `context-fold-debug-${sessionId}.json`);
}

export function registerDebugSnapshots(pi: ExtensionAPI, registry: RuntimeRegistry, debugDir: string): void {
  let told = false;
  pi.on("session_compact", (event: SessionCompactEvent, ctx) => {
    try {
      const usage = ctx.getContextUsage();
      const ui = ctx.ui;
      const runtime = registry.get(ctx);
      void (async () => {
        const r = await runtime;
        const entry = event.compactionEntry;
        const snapshot = {
          v: 1,
          at: entry.timestamp,
          sessionId: r.sessionId,
          sessionFile: r.sessionFile ?? null,
          seedIndex: r.seedIndex ?? null,
          reason: event.reason,
          fromExtension: event.fromExtension,
          compaction: {
            id: entry.id,
            firstKeptEntryId: entry.firstKeptEntryId,
            tokensBefore: entry.tokensBefore,
            fromHook: entry.fromHook === true,
            summaryChars: entry.summary.length,
            summaryHead: entry.summary.slice(0, SNAPSHOT_SUMMARY_CHARS),
            details: entry.details ?? null,
          },
          folds: { blocks: r.folder.state.size, events: r.folder.state.events, maskedTokens: r.folder.maskedTokens(), blocked: r.folder.blocked ?? null },
          usageAfter: usage ?? null,
        };
        await writeFileAtomically(snapshotPath(debugDir, r.sessionId), `${JSON.stringify(snapshot, null, 1)}\n`);
      })().catch((error: unknown) => {
        if (told) return;
        told = true;
        try {
          ui.notify(`context-fold: writing the debug snapshot to ${debugDir} failed (${error instanceof Error ? error.message : String(error)}).`, "warning");
        } catch {
          // the session may be gone
        }
      });
    } catch {
      // nothing of ours reaches Pi
    }
  });
}
