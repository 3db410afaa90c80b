// Typed errors of the seed-index contract: each has a stable `code`, where it happened, and what to do.

export type SeedIndexErrorCode =
  | "INVALID_ANCHOR"
  | "INVALID_RECORD"
  | "INVALID_SESSION_ID"
  | "CODE_COLLISION"
  | "SEED_INDEX_UNREADABLE";

/** Base class for every error this package throws. */
export class SeedIndexError extends Error {
  readonly code: SeedIndexErrorCode;
  /** File the error is about, when there is one. */
  readonly file: string | undefined;
  constructor(code: SeedIndexErrorCode, message: string, options: { file?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "SeedIndexError";
    this.code = code;
    this.file = options.file;
  }
}

/** `formatAnchor` was given an anchor that cannot be written so that it parses back to itself. */
export class AnchorError extends SeedIndexError {
  constructor(message: string) {
    super("INVALID_ANCHOR", message);
    this.name = "AnchorError";
  }
}

/** `appendRecord` refused a record that does not match the contract; nothing was written. */
export class InvalidRecordError extends SeedIndexError {
  readonly errors: readonly { path: string; message: string }[];
  constructor(file: string, errors: readonly { path: string; message: string }[]) {
    const first = errors[0];
    const detail = first === undefined ? "" : `: ${first.path || "/"} ${first.message}`;
    super("INVALID_RECORD", `refusing to append an invalid record to ${file}${detail} (fix the record; the file was not touched)`, { file });
    this.name = "InvalidRecordError";
    this.errors = errors;
  }
}

/** A session id that would escape the context-fold folder (path separators, `..`, NUL, empty). */
export class InvalidSessionIdError extends SeedIndexError {
  constructor(sessionId: string) {
    super("INVALID_SESSION_ID", `session id ${JSON.stringify(sessionId)} cannot name a folder (it is empty or contains "/", "\\", NUL, or is "." / ".."); take the id from the session header`);
    this.name = "InvalidSessionIdError";
  }
}

/** Two block ids share even the 12-character code; practically impossible (60 bits), but never silent. */
export class CodeCollisionError extends SeedIndexError {
  constructor(blockId: string, other: string, code: string) {
    super("CODE_COLLISION", `fold code ${code} of ${JSON.stringify(blockId)} collides with ${JSON.stringify(other)} even at 12 characters; report this with both block ids`);
    this.name = "CodeCollisionError";
  }
}

/** The seed-index file exists but could not be read (permissions, a directory, I/O error). */
export class SeedIndexUnreadableError extends SeedIndexError {
  constructor(file: string, cause: unknown) {
    const why = cause instanceof Error ? cause.message : String(cause);
    super("SEED_INDEX_UNREADABLE", `cannot read seed index ${file}: ${why}`, { file, cause });
    this.name = "SeedIndexUnreadableError";
  }
}
