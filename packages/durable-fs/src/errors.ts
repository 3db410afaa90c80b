// Typed errors of durable writes: a write the disk kept taking nothing of, and a lock not obtained in time.

/** The file system accepted 0 bytes of a write that still had bytes left (it would loop forever). */
export class ShortWriteError extends Error {
  readonly code = "DURABLE_SHORT_WRITE" as const;
  readonly path: string;
  readonly written: number;
  readonly expected: number;
  constructor(path: string, written: number, expected: number) {
    super(`${path}: the write stopped after ${String(written)} of ${String(expected)} bytes`);
    this.name = "ShortWriteError";
    this.path = path;
    this.written = written;
    this.expected = expected;
  }
}

/** The append lock stayed held by a live writer for longer than the caller agreed to wait. */
export class LockTimeoutError extends Error {
  readonly code = "DURABLE_LOCK_TIMEOUT" as const;
  readonly lockPath: string;
  readonly waitedMs: number;
  constructor(lockPath: string, waitedMs: number, holder: string) {
    super(`${lockPath} is held by another writer (${holder}); gave up after ${String(waitedMs)} ms`);
    this.name = "LockTimeoutError";
    this.lockPath = lockPath;
    this.waitedMs = waitedMs;
  }
}
