// Typed failures of the summary formatter: each has a stable `code` and says what to do about it.

export type SummaryErrorCode = "SUMMARY_PARSE" | "NOTHING_TO_COMPACT" | "BAD_OPTION";

export class SummaryError extends Error {
  readonly code: SummaryErrorCode;
  /** 1-based line of the summary text where parsing failed (parse errors only). */
  readonly line?: number;
  constructor(code: SummaryErrorCode, message: string, line?: number) {
    super(message);
    this.name = "SummaryError";
    this.code = code;
    if (line !== undefined) this.line = line;
  }
}
