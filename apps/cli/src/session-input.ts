// Reading the session a command works on: reader errors become usage errors (exit 2, no stack), and
// damage the reader recovered from or skipped is said on stderr with file, line and byte offset, so no
// command builds a summary, index or report from a damaged file without telling.
import { closeSync, openSync, readSync, statSync } from "node:fs";
import { readSession, type Damage, type Session } from "@context-fold/ledger-reader";
import { basename } from "node:path";
import { CliError, EXIT_USAGE, warn } from "./output.js";
import { withProgress } from "./progress.js";

/** Damaged lines listed one by one before the rest are counted. */
const LISTED = 10;

/** Damage worth telling: everything but blank lines and a last line that only lacked its newline. */
function matters(d: Damage): boolean {
  return d.kind !== "blank" && !(d.kind === "no-trailing-newline" && d.recovered);
}

/** One stderr line per damaged line (the first ten, then a count), and a format newer than v3. */
export function warnDamage(session: Session): void {
  const declared = session.header.raw["version"];
  if (typeof declared === "number" && declared > 3) {
    warn(`context-fold: warning: ${session.path}:1 (byte 0): declares session format v${String(declared)}; read as v3, the newest this version knows`);
  }
  const damage = session.damaged.filter(matters);
  for (const d of damage.slice(0, LISTED)) {
    warn(`context-fold: warning: ${session.path}:${String(d.line)} (byte ${String(d.byteOffset)}): ${d.reason} — ${d.recovered ? "recovered" : "skipped"}`);
  }
  if (damage.length > LISTED) warn(`context-fold: warning: … and ${String(damage.length - LISTED)} more damaged line(s); \`context-fold inspect ${session.path}\` lists them all`);
}

/** Read a session for a command; `warnDamage: false` for a command that reports damage itself. */
export async function readSessionForCli(file: string, options: { warnDamage?: boolean } = {}): Promise<Session> {
  // A LedgerError carries its code: the error boundary tells it (exit 2).
  const session = await withProgress(`reading ${basename(file)}`, "bytes", (bar) => readSession(file, { onBytes: (read, total) => bar.update(read, total) }));
  if (options.warnDamage !== false) warnDamage(session);
  return session;
}

/** The first bytes of `path` hold a Pi session header line (`{"type":"session",…}`). */
function looksLikeSession(path: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return false;
  }
  try {
    const head = Buffer.alloc(4096);
    const n = readSync(fd, head, 0, head.length, 0);
    const first = head.subarray(0, n).toString("utf8").replace(/^\uFEFF/, "").split("\n", 1)[0] ?? "";
    return /^\{\s*"type"\s*:\s*"session"/.test(first);
  } catch {
    return false; // a folder, or unreadable: not a session we could overwrite
  } finally {
    closeSync(fd);
  }
}

/**
 * Refuses an output path that is the session being read, or any other Pi session file: context-fold
 * never writes to a session. `option` names the flag in the message.
 */
export function refuseSessionTarget(target: string, sessionFile: string, option: string): void {
  let same = false;
  try {
    const a = statSync(target);
    const b = statSync(sessionFile);
    same = a.dev === b.dev && a.ino === b.ino;
  } catch {
    return; // the target does not exist yet: nothing to overwrite
  }
  if (same) throw new CliError(`${option} ${target} is the session file itself; context-fold never writes to a session — give another path`, { code: "OUT_IS_SESSION", exitCode: EXIT_USAGE });
  if (looksLikeSession(target)) throw new CliError(`${option} ${target} is a Pi session file (its first line is a session header); context-fold never writes to a session — give another path`, { code: "OUT_IS_SESSION", exitCode: EXIT_USAGE });
}
