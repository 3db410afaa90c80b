// The session file as read so far, grown incrementally (cost ∝ appended bytes). Pi creates the file
// lazily, so a missing file is "nothing yet", not an error; a replaced or truncated file is read again.
import { LedgerError, readSession, type Session, updateSession } from "@context-fold/ledger-reader";

export class LedgerTracker {
  readonly path: string;
  #session: Session | undefined;

  constructor(path: string) {
    this.path = path;
  }

  /** The session file as it is now, or undefined while Pi has not created it. */
  async current(): Promise<Session | undefined> {
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
