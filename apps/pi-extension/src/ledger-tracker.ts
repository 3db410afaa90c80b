// The session file as read so far, grown incrementally (cost ∝ appended bytes). Pi creates the file
// lazily, so a missing file is "nothing yet", not an error; a replaced or truncated file is read again.
// Reads are serialized: an update consumes the previous snapshot, so two may never overlap. Several
// handlers ask on every turn (the context hook, the compaction's turn end, the gate): when one stat
// shows the file as it was at the last read, the last snapshot is returned without opening the file.
// A caller that only needs blocks already read (the fold side: what it folds is older than the protected
// tail) takes `settled`, the last read's snapshot, with no I/O at all. Once the file was read, a turn's
// append (up to SYNC_UPDATE_MAX) is read synchronously: one open, one read at the offset already
// consumed, no thread-pool round trips or stream per call; larger appends and the first read stay async.
import { statSync } from "node:fs";
import { LedgerError, readSession, type Session, updateSession, updateSessionSync } from "@context-fold/ledger-reader";

/** What one stat says about the file: equal stamps mean nothing was appended, replaced or rewritten. */
interface Stamp {
  readonly dev: number;
  readonly ino: number;
  readonly size: number;
  readonly mtimeMs: number;
  readonly ctimeMs: number;
}

function stampOf(path: string): Stamp | undefined {
  try {
    const s = statSync(path);
    return { dev: s.dev, ino: s.ino, size: s.size, mtimeMs: s.mtimeMs, ctimeMs: s.ctimeMs };
  } catch {
    return undefined;
  }
}

function sameStamp(a: Stamp | undefined, b: Stamp): boolean {
  return a !== undefined && a.dev === b.dev && a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs;
}

export class LedgerTracker {
  readonly path: string;
  #session: Session | undefined;
  #reading: Promise<Session | undefined> | undefined;
  /** The file's stamp taken before the read that produced `#session`. */
  #stamp: Stamp | undefined;
  #reads = 0;
  /** Reads queued or running: while one runs, the last snapshot's arrays are being extended. */
  #pending = 0;

  constructor(path: string) {
    this.path = path;
  }

  /** True once the file has been read at least once (later reads only take the appended bytes). */
  get warmed(): boolean {
    return this.#session !== undefined;
  }

  /** The session file as it is now, or undefined while Pi has not created it. */
  current(): Promise<Session | undefined> {
    // Nothing queued or running: a small append is read right here, without a queued promise chain.
    const tried = this.#pending === 0 && this.#session !== undefined;
    if (tried) {
      try {
        const now = this.#readSync();
        if (now !== undefined) return Promise.resolve(now.session);
      } catch (error) {
        return Promise.reject(error as Error);
      }
    }
    const previous = this.#reading ?? Promise.resolve(undefined);
    this.#pending += 1;
    const next = previous
      .then(
        () => this.#read(!tried),
        () => this.#read(!tried),
      )
      .finally(() => {
        this.#pending -= 1;
      });
    this.#reading = next;
    return next;
  }

  /**
   * The snapshot of the last completed read, as it was then (no stat, no read), or undefined before the
   * first read and while a read is queued or running (a running update extends the snapshot's block and
   * entry arrays in place, so it is only consistent between reads). It may lack what Pi appended since:
   * callers check that it holds what they need and call `current` otherwise.
   */
  get settled(): Session | undefined {
    return this.#pending === 0 ? this.#session : undefined;
  }

  /** The file's size now, by one stat (nothing read), or undefined while Pi has not created it. */
  size(): number | undefined {
    return stampOf(this.path)?.size;
  }

  /** Times the file was opened and read (the first read and every update that found a change). */
  get reads(): number {
    return this.#reads;
  }

  /**
   * The update read synchronously when the file was read before and little was appended: the session
   * (undefined: the file is gone or empty), or undefined when the async path must read (no snapshot, a
   * large append, a replaced or rewritten file). Errors other than the ledger's own are thrown.
   */
  #readSync(): { session: Session | undefined } | undefined {
    const previous = this.#session;
    if (previous === undefined) return undefined;
    const stamp = stampOf(this.path);
    if (stamp !== undefined && sameStamp(this.#stamp, stamp)) return { session: previous };
    let next: Session | undefined;
    try {
      next = updateSessionSync(previous);
    } catch (error) {
      if (!(error instanceof LedgerError)) throw error;
      if (error.code === "NOT_FOUND" || error.code === "EMPTY") {
        this.#stamp = undefined;
        this.#session = undefined;
        return { session: undefined };
      }
      // Replaced, rewritten or unreadable: the async path reads the file again (and reports what it finds).
      this.#stamp = undefined;
      return undefined;
    }
    if (next === undefined) return undefined;
    this.#stamp = stamp;
    if (next !== previous) this.#reads += 1;
    this.#session = next;
    return { session: next };
  }

  /** Read what changed; `trySync`: try the synchronous update first (unless the caller just did). */
  async #read(trySync: boolean): Promise<Session | undefined> {
    const now = trySync ? this.#readSync() : undefined;
    if (now !== undefined) return now.session;
    // Taken before reading: a write landing during the read changes the stamp, so the next call reads again.
    // A synchronous stat: microseconds, where a promise stat costs a thread-pool round trip per call.
    const stamp = stampOf(this.path);
    if (this.#session !== undefined && stamp !== undefined && sameStamp(this.#stamp, stamp)) return this.#session;
    this.#stamp = stamp;
    this.#reads += 1;
    try {
      this.#session = this.#session === undefined ? await readSession(this.path) : await updateSession(this.#session);
      return this.#session;
    } catch (error) {
      this.#stamp = undefined;
      if (!(error instanceof LedgerError)) throw error;
      if (error.code === "NOT_FOUND" || error.code === "EMPTY") {
        this.#session = undefined;
        return undefined;
      }
      if (error.code !== "LEDGER_CHANGED") throw error;
      this.#session = await readSession(this.path);
      return this.#session;
    }
  }
}
