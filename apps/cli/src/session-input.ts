// Reading the session a command works on: reader errors become usage errors (exit 2, no stack), and
// damage the reader recovered from or skipped is said on stderr with file, line and byte offset, so no
// command builds a summary, index or report from a damaged file without telling.
import { closeSync, openSync, readSync, statSync } from "node:fs";
import { basename } from "node:path";
import { setFlagsFromString } from "node:v8";
import {
  blocksOfEntry,
  damageEffects,
  describeConsequence,
  readSession,
  readSessionShape,
  recoveredLineage,
  type Block,
  type Damage,
  type Entry,
  type Session,
  type SessionShape,
} from "@context-fold/ledger-reader";
import { CliError, EXIT_USAGE, warn } from "./output.js";
import { withProgress } from "./progress.js";

/**
 * Sessions up to this size are read whole: one parse, and a peak near 4× the file (399 MB for `compact`
 * on the 100 MB bench session), under the 512 MB a command may take. Larger ones are streamed: the
 * shape, then one streamed read of the lineage, so memory follows the answer rather than the file, at
 * the price of parsing the file twice (about 1.2–1.5× the CPU on 100 MB). `CONTEXT_FOLD_STREAM_ABOVE`
 * (bytes) sets another limit: 0 streams every session.
 */
export const STREAM_ABOVE_BYTES = 112 * 1024 * 1024;

/** Does a command stream `file` rather than read it whole (see STREAM_ABOVE_BYTES)? */
export function streamsSession(file: string): boolean {
  const raw = process.env["CONTEXT_FOLD_STREAM_ABOVE"];
  let limit = STREAM_ABOVE_BYTES;
  if (raw !== undefined && raw !== "") {
    if (!/^[0-9]{1,15}$/.test(raw)) throw new CliError(`CONTEXT_FOLD_STREAM_ABOVE must be a whole number of bytes, got "${raw}"`, { code: "BAD_OPTION" });
    limit = Number(raw);
  }
  let size: number;
  try {
    size = statSync(file).size;
  } catch {
    return false; // the whole read names what is wrong with the path
  }
  return size > limit;
}

/** Damaged lines listed one by one before the rest are counted. */
const LISTED = 10;

/**
 * Damage worth telling: everything but blank lines and a last line that only lacked its newline.
 * The one damage policy: commands that produce a result name it on stderr and exit 0; commands whose
 * job is to check (inspect, verify) exit 1 when the session has any.
 */
export function matters(d: Damage): boolean {
  return d.kind !== "blank" && !(d.kind === "no-trailing-newline" && d.recovered);
}

/**
 * A cut Pi cannot apply: Pi's hook only accepts a firstKeptEntryId on its own branch (the extension
 * throws CutMismatchError). The CLI refuses such a cut the same way instead of printing it.
 */
export function refuseCutOffPiBranch(session: Session, firstKeptEntryId: string): void {
  if (session.lineageIds.has(firstKeptEntryId)) return;
  const entry = session.byId.get(firstKeptEntryId);
  const why = entry?.recovered === true ? `it was recovered from the torn line ${String(entry.line)}, which Pi drops` : "it is not on the branch Pi loads";
  throw new CliError(`${session.path}: the cut (firstKeptEntryId ${firstKeptEntryId}) is outside Pi's branch: ${why}; Pi would reject this compaction`, { code: "CUT_MISMATCH", exitCode: EXIT_USAGE });
}

/** The damage a check command fails on (exit 1). */
export function damageFound(session: Session): Damage[] {
  return session.damaged.filter(matters);
}

function firstUserBlock(session: Session, entries: Iterable<Entry>): Block | undefined {
  for (const entry of entries) {
    const user = blocksOfEntry(session, entry).find((b) => b.kind === "user");
    if (user !== undefined) return user;
  }
  return undefined;
}

function clip(text: string, max = 120): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

/** The damage that cuts Pi's branch short, if any (its warning names texts: a streamed command reads whole then). */
export function branchCutShort(session: Session): ReturnType<typeof damageEffects>[number] | undefined {
  return damageEffects(session).find((e) => e.consequences.some((c) => c.kind === "branch-cut-short"));
}

/**
 * compact and handoff take the founding request from Pi's active branch. When damage cut that branch
 * short (its root is an orphan of a damaged line), the request found there is a mid-session message:
 * say so, and name the real one, found past the break through the damaged line's readable parentId
 * (or through the torn line's recovered objects).
 */
export function warnOrphanedFounding(session: Session, command: string): void {
  const cut = branchCutShort(session);
  if (cut === undefined) return;
  const taken = firstUserBlock(session, session.lineage);
  const real = firstUserBlock(session, recoveredLineage(session));
  const where = `${session.path}:${String(cut.damage.line)} (byte ${String(cut.damage.byteOffset)})`;
  const takenText = taken === undefined ? "no user message" : `#${String(taken.index)} "${clip(taken.text)}"`;
  warn(`context-fold: warning: ${where}: the damaged line cuts Pi's branch short; ${command}'s founding request (${takenText}) comes from the orphaned segment after the break`);
  if (real !== undefined && real.index !== taken?.index) {
    warn(`context-fold: warning: past the break (through line ${String(cut.damage.line)}'s parentId) the session's founding request is #${String(real.index)} "${clip(real.text)}"`);
  }
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
  // What the damage does to Pi's view (orphans, a lost compaction, a branch cut short), said once each.
  for (const effect of damageEffects(session).slice(0, LISTED)) {
    for (const c of effect.consequences) warn(`context-fold: warning: ${session.path}:${String(effect.damage.line)}: ${describeConsequence(c)}`);
  }
  if (damage.length > LISTED) warn(`context-fold: warning: … and ${String(damage.length - LISTED)} more damaged line(s); \`context-fold inspect ${session.path}\` lists them all`);
}

/** The diagnostic a fragment read with --fragment always carries. */
export function warnFragment(session: Session): void {
  if (session.header.fragment !== true) return;
  warn(`context-fold: warning: ${session.path}:1 (byte 0): no session header (a fragment of a session; Pi refuses it); read as ${session.header.id} because --fragment was given (no cwd; derived files under context-fold/${session.header.id}/)`);
}

/**
 * Read a session for a command; `warnDamage: false` for a command that reports damage itself;
 * `fragment: true` (inspect, facts, recall with --fragment) reads a headerless file instead of refusing it.
 */
export async function readSessionForCli(file: string, options: { warnDamage?: boolean; fragment?: boolean } = {}): Promise<Session> {
  // Without --fragment a headerless file is refused with the reader's LedgerError (NO_HEADER): it carries
  // its code, so the error boundary tells it (exit 2).
  const session = await withProgress(`reading ${basename(file)}`, "bytes", (bar) =>
    readSession(file, { ...(options.fragment === true ? { fragment: true } : {}), onBytes: (read, total) => bar.update(read, total) }),
  );
  warnFragment(session);
  if (options.warnDamage !== false) warnDamage(session);
  return session;
}

/**
 * Read only a session's shape (entries without content, blocks counted, tree, compactions, damage):
 * for a command whose answer needs no block text (inspect), in memory that grows with the number of
 * entries, not with the file. Same reader errors, progress bar and fragment warning as readSessionForCli.
 */
/**
 * How far V8 lets the old generation grow past what the last full collection kept, for a command that
 * reads a session as its shape and a stream. By its own measure V8 grows it to ≈2.5× the live heap
 * before collecting; a stream's garbage (each long line's strings are allocated straight in the old
 * generation) then more than doubles the peak: `facts` on the 1 GB bench session peaked at 1.4 GB
 * with a 230 MB live heap, 673 MB with this set (CPU 59.7 → 62.6 s, output unchanged). Set at run
 * time it takes effect from V8's next limit, not from the process start.
 */
export const STREAMED_HEAP_GROWTH_PERCENT = 10;

/** Sets STREAMED_HEAP_GROWTH_PERCENT for this process, from V8's next limit on (see it). */
export function growHeapForStreaming(): void {
  // Read each time V8 sets its next limit, so it applies from here on (this process only).
  setFlagsFromString(`--heap-growing-percent=${String(STREAMED_HEAP_GROWTH_PERCENT)}`);
}

export async function readSessionShapeForCli(file: string, options: { warnDamage?: boolean; fragment?: boolean; blockBytes?: boolean } = {}): Promise<SessionShape> {
  growHeapForStreaming();
  const shape = await withProgress(`reading ${basename(file)}`, "bytes", (bar) =>
    readSessionShape(file, {
      ...(options.fragment === true ? { fragment: true } : {}),
      ...(options.blockBytes === true ? { blockBytes: true } : {}),
      onBytes: (read, total) => bar.update(read, total),
    }),
  );
  warnFragment(shape.session);
  if (options.warnDamage !== false) warnDamage(shape.session);
  return shape;
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
