// The session file as read so far, grown incrementally (cost ∝ appended bytes). Pi creates the file
// lazily, so a missing file is "nothing yet", not an error; a replaced or truncated file is read again.
// Reads are serialized: an update consumes the previous snapshot, so two may never overlap.
import { LedgerError, readSession, type Session, updateSession } from "@context-fold/ledger-reader";

export class LedgerTracker {
  readonly path: string;
  #session: Session | undefined;
  #reading: Promise<Session | undefined> | undefined;

  constructor(path: string) {
    this.path = path;
  }

  /** True once the file has been read at least once (later reads only take the appended bytes). */
  get warmed(): boolean {
    return this.#session !== undefined;
  }

  /** The session file as it is now, or undefined while Pi has not created it. */
  current(): Promise<Session | undefined> {
    const previous = this.#reading ?? Promise.resolve(undefined);
    const next = previous.then(
      () => this.#read(),
      () => this.#read(),
    );
    this.#reading = next;
    return next;
  }

  async #read(): Promise<Session | undefined> {
    try {
      this.#session = this.#session === undefined ? await readSession(this.path) : await updateSession(this.#session);
      return this.#session;
    } catch (error) {
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
