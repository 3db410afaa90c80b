// Typed errors of the local bank: a journal that cannot be replayed, and bad start options.

/** A journal or snapshot line that is not the torn tail of a crash cannot be replayed safely. */
export class JournalCorruptError extends Error {
  readonly code = "HINDSIGHT_LOCAL_JOURNAL_CORRUPT" as const;
  readonly file: string;
  readonly line: number;
  readonly byteOffset: number;
  constructor(file: string, line: number, byteOffset: number, reason: string) {
    super(
      `${file}:${line} (byte ${byteOffset}): ${reason}. Only the last line may be torn by a crash; ` +
        `move the data directory aside or repair that line by hand.`,
    );
    this.name = "JournalCorruptError";
    this.file = file;
    this.line = line;
    this.byteOffset = byteOffset;
  }
}

/** An option of `startLocalBank` that cannot work (e.g. a non-loopback host). */
export class LocalBankOptionError extends Error {
  readonly code = "HINDSIGHT_LOCAL_OPTION" as const;
  readonly option: string;
  constructor(option: string, message: string) {
    super(`${option}: ${message}`);
    this.name = "LocalBankOptionError";
    this.option = option;
  }
}

/** The snapshot on close could not be written (e.g. a full disk); nothing acknowledged is lost: the journal holds it. */
export class SnapshotFailedError extends Error {
  readonly code = "HINDSIGHT_LOCAL_SNAPSHOT_FAILED" as const;
  constructor(message: string, cause: unknown) {
    super(message, { cause });
    this.name = "SnapshotFailedError";
  }
}

