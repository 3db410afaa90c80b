// Typed failures of the handoff: a stable `code`, the file involved, and what to do about it.

export type HandoffErrorCode = "HANDOFF_NO_TIME" | "HANDOFF_WRITE";

export class HandoffError extends Error {
  readonly code: HandoffErrorCode;
  /** The session or handoff file involved. */
  readonly path: string;
  constructor(code: HandoffErrorCode, path: string, message: string, options: { cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "HandoffError";
    this.code = code;
    this.path = path;
  }
}
