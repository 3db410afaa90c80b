// `context-fold cache [session]`: what context-fold keeps beside each session, with sizes and ages;
// `cache clean`: remove the derived files (recall caches, their tails and block tables) only.
import { rmSync } from "node:fs";
import { historyDirFor, type HistoryListing, listHistories, listSessionHeads, piSessionsDir, readSessionHead, type SessionHead } from "@context-fold/recall-engine";
import type { Command } from "commander";
import { CliError, EXIT_USAGE, emit } from "../output.js";
import { formatBytes } from "../progress.js";
import { parseAge, planClean, RECENT_MS, sessionFiles, type SessionFiles } from "../cache-files.js";

interface CacheOptions {
  json?: boolean;
}
interface CleanOptions extends CacheOptions {
  olderThan?: string;
  dryRun?: boolean;
}

function heads(session: string | undefined): SessionHead[] {
  if (session === undefined) return listSessionHeads();
  const head = readSessionHead(session);
  if (head === undefined) throw new CliError(`${session}: not a Pi session file (its first line is no session header)`, { code: "NOT_A_SESSION", exitCode: EXIT_USAGE });
  return [head];
}

function formatAge(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 3600) return `${String(Math.floor(s / 60))}m`;
  if (s < 86400) return `${String(Math.floor(s / 3600))}h`;
  return `${String(Math.floor(s / 86400))}d`;
}

function renderHistories(histories: readonly HistoryListing[], now: number): string[] {
  if (histories.length === 0) return [];
  const out = ["", "history indexes (recall --sessions; derived, `context-fold cache clean` removes the one of this sessions folder):"];
  for (const h of histories) {
    out.push(`  ${formatBytes(h.bytes).padStart(9)} ${formatAge(now - h.modified).padStart(5)}  ${h.dir}  (${h.sessionsDir ?? "unknown sessions folder"}, ${String(h.sessions)} session(s))`);
  }
  return out;
}

function renderList(sessions: readonly SessionFiles[], now: number, dir: string | undefined): string {
  const out: string[] = [];
  let total = 0;
  let derived = 0;
  for (const s of sessions) {
    if (s.files.length === 0) continue;
    out.push(`${s.session}  (session ${s.id}, written ${formatAge(now - s.sessionModified)} ago)`);
    for (const f of s.files) {
      total += f.bytes;
      if (f.derived) derived += f.bytes;
      out.push(`  ${f.kind.padEnd(18)} ${formatBytes(f.bytes).padStart(9)} ${formatAge(now - f.modified).padStart(5)}  ${f.path.slice(s.folder.length + 1)}${f.derived ? "  (derived)" : ""}`);
    }
  }
  const where = dir === undefined ? "" : ` under ${dir}`;
  if (out.length === 0) return `nothing kept beside ${String(sessions.length)} session(s)${where}`;
  out.push("", `${formatBytes(total)} kept beside ${String(sessions.length)} session(s)${where}; ${formatBytes(derived)} of it derived (\`context-fold cache clean\` removes that)`);
  return out.join("\n");
}

export function registerCache(program: Command): void {
  const cache = program
    .command("cache")
    .description("List what context-fold keeps beside each session (seed index, recall cache and block table, artifacts, handoffs) with sizes and ages")
    .argument("[session]", "one session (default: every session of Pi's sessions folder)")
    .option("--json", "one JSON document on stdout")
    .action((session: string | undefined, options: CacheOptions) => {
      const now = Date.now(); // ages are about the present, not about any input
      const sessions = heads(session).map(sessionFiles);
      const dir = session === undefined ? piSessionsDir() : undefined;
      const histories = session === undefined ? listHistories() : [];
      emit(
        options.json === true,
        {
          ...(dir === undefined ? {} : { sessionsDir: dir }),
          sessions: sessions.map((s) => ({ ...s, files: s.files.map((f) => ({ ...f, modified: new Date(f.modified).toISOString() })), sessionModified: new Date(s.sessionModified).toISOString() })),
          ...(session === undefined ? { histories: histories.map((h) => ({ ...h, modified: new Date(h.modified).toISOString() })) } : {}),
        },
        () => [renderList(sessions, now, dir), ...renderHistories(histories, now)].join("\n"),
      );
    });
  cache
    .command("clean")
    .description("Remove derived files only (recall caches, their tails and block tables; the history index of Pi's sessions folder); never a session, seed index, handoff, artifacts or retained memories, nor anything of a session written in the last hour")
    .argument("[session]", "one session (default: every session of Pi's sessions folder)")
    .option("--older-than <age>", "only files older than this: 90m, 12h, 30d, 2w")
    .option("--dry-run", "list what would be removed; remove nothing")
    .option("--json", "one JSON document on stdout")
    .action((session: string | undefined, _options: CleanOptions, command: Command) => {
      // `cache` has --json too, and commander gives it the flag wherever it stands: read both levels.
      const options = command.optsWithGlobals<CleanOptions>();
      const olderThan = options.olderThan === undefined ? 0 : parseAge(options.olderThan);
      if (olderThan === undefined) throw new CliError(`--older-than takes a number and a unit (m, h, d, w), like 30d; got "${options.olderThan ?? ""}"`, { code: "BAD_OPTION", exitCode: EXIT_USAGE });
      const now = Date.now();
      const plan = planClean(heads(session).map(sessionFiles), now, olderThan);
      // The history index of this sessions folder is derived whole: removed as one folder when old enough.
      const historyDir = session === undefined ? historyDirFor(piSessionsDir()) : undefined;
      const history = listHistories().filter((h) => h.dir === historyDir && now - h.modified >= olderThan);
      if (options.dryRun !== true) {
        for (const f of plan.remove) rmSync(f.path, { force: true });
        for (const h of history) rmSync(h.dir, { recursive: true, force: true });
      }
      const removed = [...plan.remove.map((f) => ({ path: f.path, kind: f.kind as string, bytes: f.bytes })), ...history.map((h) => ({ path: h.dir, kind: "history-index", bytes: h.bytes }))];
      const bytes = removed.reduce((sum, f) => sum + f.bytes, 0);
      emit(options.json === true, { dryRun: options.dryRun === true, removed, bytes, recentSessions: plan.recentSessions }, () =>
        [
          ...removed.map((f) => `${options.dryRun === true ? "would remove" : "removed"} ${f.path} (${formatBytes(f.bytes)})`),
          ...plan.recentSessions.map((s) => `kept the derived files of ${s}: written within the last ${String(RECENT_MS / 60_000)} minutes`),
          `${options.dryRun === true ? "would free" : "freed"} ${formatBytes(bytes)} in ${String(removed.length)} file(s)`,
        ].join("\n"),
      );
    });
}
