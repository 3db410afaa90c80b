// The one error class of the ledger reader: a stable `code`, the file, and where in it.
export type LedgerErrorCode =
  | "NOT_FOUND" // the path does not exist (Pi creates session files lazily)
  | "UNREADABLE" // the file exists but cannot be read (permissions, a directory, I/O error)
  | "EMPTY" // zero bytes, or only blank/malformed lines
  | "NOT_A_SESSION" // the first JSON object is not a Pi entry or header
  | "NO_HEADER" // Pi entries without the `{"type":"session"}` header line (a fragment)
  | "LEDGER_CHANGED" // truncated or replaced since the previous read: read it again from the start
  | "NOT_LOADED"; // the session was read without text and the file no longer holds the entry's bytes

export class LedgerError extends Error {
  readonly code: LedgerErrorCode;
  readonly file: string;
  readonly line: number | undefined;
  readonly byteOffset: number | undefined;
  constructor(
    code: LedgerErrorCode,
    file: string,
    message: string,
    where: { line?: number; byteOffset?: number; cause?: unknown } = {},
  ) {
    const at = (where.line === undefined ? "" : `:${String(where.line)}`) + (where.byteOffset === undefined ? "" : ` (byte ${String(where.byteOffset)})`);
    super(`${file}${at}: ${message}`, where.cause === undefined ? undefined : { cause: where.cause });
    this.name = "LedgerError";
    this.code = code;
    this.file = file;
    this.line = where.line;
    this.byteOffset = where.byteOffset;
  }
}
