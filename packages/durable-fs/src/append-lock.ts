// The append lock: `<target>.lock`, created exclusively, held only while a record is appended (a few
// milliseconds), so waiting is short. A lock left by a dead process (same host, pid gone) or older than
// `staleMs` is taken over; the takeover renames the old lock aside and checks it was the one judged stale,
// so two waiters never both take over and a fresh lock is never deleted by a late one.
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { dirname } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { LockTimeoutError } from "./errors.js";
import { type FileSystem, nodeFileSystem } from "./file-system.js";
import { writeAll } from "./write-all.js";

export interface LockOptions {
  /** Give up after waiting this long for a live holder (default 10 s; 0 = one try). */
  readonly timeoutMs?: number;
  /** A lock whose file is older than this is abandoned, whoever holds it (default 10 s). */
  readonly staleMs?: number;
  readonly fs?: FileSystem;
}

export interface HeldLock {
  readonly path: string;
  /** Removes the lock file if it is still this holder's. */
  release(): void;
}

export function lockPathFor(target: string): string {
  return `${target}.lock`;
}

/** This machine's name (asked when a lock is first taken or judged: a process that only reads takes none). */
let ownHost: string | undefined;
const thisHost = (): string => (ownHost ??= hostname());

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as { code?: unknown }).code === "EPERM";
  }
}

interface Holder {
  readonly ino: number;
  readonly stale: boolean;
  readonly description: string;
}

function inspectHolder(lock: string, staleMs: number, fs: FileSystem): Holder | null {
  let stat: { ino: number; mtimeMs: number };
  let text = "";
  try {
    stat = fs.statSync(lock);
    text = fs.readFileSync(lock).toString("utf8");
  } catch (error) {
    if ((error as { code?: unknown }).code === "ENOENT") return null;
    throw error;
  }
  const [pidText, host] = text.trim().split(" ");
  const pid = pidText !== undefined && /^\d{1,10}$/.test(pidText) ? Number(pidText) : null;
  const dead = pid !== null && host === thisHost() && !isAlive(pid);
  const old = Date.now() - stat.mtimeMs > staleMs;
  return { ino: stat.ino, stale: dead || old, description: pid === null ? "a writer that has not yet signed it" : `pid ${String(pid)} on ${host ?? "?"}` };
}

function tryCreate(lock: string, fs: FileSystem): boolean {
  let fd: number;
  try {
    fd = fs.openSync(lock, "wx", 0o644);
  } catch (error) {
    if ((error as { code?: unknown }).code === "EEXIST") return false;
    throw error;
  }
  try {
    writeAll(fd, Buffer.from(`${String(process.pid)} ${thisHost()}\n`), 0, lock, fs);
  } finally {
    fs.closeSync(fd);
  }
  return true;
}

/** Moves a stale lock aside; true when the lock moved was the one judged stale (else it is put back). */
function takeOver(lock: string, judged: Holder, fs: FileSystem): void {
  const aside = `${lock}.stale.${randomBytes(6).toString("hex")}`;
  try {
    fs.renameSync(lock, aside);
  } catch (error) {
    if ((error as { code?: unknown }).code === "ENOENT") return;
    throw error;
  }
  let moved: { ino: number } | null = null;
  try {
    moved = fs.statSync(aside);
  } catch {
    moved = null;
  }
  if (moved !== null && moved.ino !== judged.ino) {
    // Another waiter replaced the stale lock with a live one between our look and our rename: give it back.
    try {
      fs.linkSync(aside, lock);
    } catch {
      // Someone holds `lock` again already; the moved one's holder will find its lock gone on release.
    }
  }
  fs.rmSync(aside, { force: true });
}

/** Takes `<target>.lock`, waiting (with short, jittered sleeps) up to `timeoutMs`. Throws LockTimeoutError. */
export async function acquireAppendLock(target: string, options: LockOptions = {}): Promise<HeldLock> {
  const fs = options.fs ?? nodeFileSystem;
  const lock = lockPathFor(target);
  const timeoutMs = options.timeoutMs ?? 10_000;
  const staleMs = options.staleMs ?? 10_000;
  fs.mkdirSync(dirname(lock), { recursive: true });
  const started = Date.now();
  let round = 0;
  for (;;) {
    if (tryCreate(lock, fs)) break;
    const holder = inspectHolder(lock, staleMs, fs);
    if (holder === null) continue; // released between the two looks
    if (holder.stale) {
      takeOver(lock, holder, fs);
      continue;
    }
    const waited = Date.now() - started;
    if (waited >= timeoutMs) throw new LockTimeoutError(lock, waited, holder.description);
    round += 1;
    // Holds last a millisecond or two: poll fast (jittered, so waiters do not move in step), never past the deadline.
    const cap = Math.min(2 ** Math.min(round, 2), 4);
    await sleep(Math.min(1 + Math.floor(Math.random() * cap), Math.max(1, timeoutMs - waited)));
  }
  const ino = fs.statSync(lock).ino;
  let released = false;
  return {
    path: lock,
    release(): void {
      if (released) return;
      released = true;
      try {
        if (fs.statSync(lock).ino !== ino) return; // taken over as stale: no longer ours to remove
      } catch {
        return;
      }
      fs.rmSync(lock, { force: true });
    },
  };
}

/** Runs `fn` holding the append lock of `target`; the lock is released however `fn` ends. */
export async function withAppendLock<T>(target: string, fn: () => Promise<T> | T, options: LockOptions = {}): Promise<T> {
  const held = await acquireAppendLock(target, options);
  try {
    return await fn();
  } finally {
    held.release();
  }
}
