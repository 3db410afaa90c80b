// Typed errors of the recall engine: a stable `code`, where it happened, and what to do about it.

export type RecallErrorCode =
  | "BAD_PATTERN" // a regex re2js cannot compile (syntax, or a feature a linear-time engine refuses)
  | "BAD_SCOPE" // a scope string that is not lineage|all|compaction:N|compaction:latest, or names no compaction
  | "BAD_QUERY" // an empty regex or an unterminated quote that cannot be read as words either
  | "BAD_INDEX" // an expand `#N` that is not a block of the session
  | "SEED_INDEX_MISSING" // span recall asked for a seed index that does not exist
  | "SPAN_NOT_FOUND" // a fold code / anchor / term that no record names
  | "CORRUPT_INDEX" // a cached term index that fails its checks: the caller rebuilds it
  | "SNAPSHOT_STALE"; // a block's bytes changed since the recall snapshot: the caller reads the ledger the full way

export class RecallError extends Error {
  readonly code: RecallErrorCode;
  /** File the error is about, when there is one. */
  readonly file: string | undefined;
  constructor(code: RecallErrorCode, message: string, options: { file?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "RecallError";
    this.code = code;
    this.file = options.file;
  }
}

/** A regex the linear-time engine cannot run; `offset` is where in the pattern the parser stopped, when known. */
export class RecallPatternError extends RecallError {
  readonly pattern: string;
  constructor(pattern: string, reason: string, cause?: unknown) {
    super(
      "BAD_PATTERN",
      `cannot run the pattern /${pattern}/: ${reason} (recall uses RE2 syntax: no backreferences or lookaround; drop --regex to search words)`,
      cause === undefined ? {} : { cause },
    );
    this.name = "RecallPatternError";
    this.pattern = pattern;
  }
}

export class RecallScopeError extends RecallError {
  readonly scope: string;
  constructor(scope: string, reason: string) {
    super("BAD_SCOPE", `scope "${scope}": ${reason} (use lineage, all, compaction:N or compaction:latest)`);
    this.name = "RecallScopeError";
    this.scope = scope;
  }
}

/** Why a serialized index was refused; the caller rebuilds. */
export class CorruptIndexError extends RecallError {
  declare readonly code: "CORRUPT_INDEX";
  constructor(reason: string) {
    super("CORRUPT_INDEX", `recall index cache is corrupt: ${reason}`);
    this.name = "CorruptIndexError";
  }
}

/** A block's text no longer matches what the snapshot recorded: read the ledger the full way. */
export class SnapshotStaleError extends RecallError {
  declare readonly code: "SNAPSHOT_STALE";
  declare readonly file: string;
  constructor(file: string, reason: string) {
    super("SNAPSHOT_STALE", `${file}: the recall snapshot no longer matches the ledger (${reason})`, { file });
    this.name = "SnapshotStaleError";
  }
}
