// Links each Session handed out to the builder that made it, so updates and anchor look-ups reuse its
// indexes without exposing them in the public shape.
import type { LedgerBuilder } from "./ledger-builder.js";
import type { LineageState } from "./lineage.js";
import type { Session } from "./types.js";

export interface SessionState {
  readonly builder: LedgerBuilder;
  readonly lineage: LineageState;
  /** File identity and the last bytes consumed: a replaced or rewritten file shows up here. */
  readonly dev: number;
  readonly ino: number;
  readonly tail: Buffer;
  /**
   * The file's mtime as stated before its last read (undefined: not from a file). With the size equal
   * to the bytes consumed and identity unchanged, an unchanged mtime lets an update return at once.
   */
  readonly mtimeMs?: number;
}

const states = new WeakMap<Session, SessionState>();

export function remember(session: Session, state: SessionState): void {
  states.set(session, state);
}

export function stateOf(session: Session): SessionState | undefined {
  return states.get(session);
}
