// Writing a handoff seed beside the seed index, atomically (see writeFileAtomically).
import { handoffPath } from "@context-fold/seed-index-format";
import { writeFileAtomically } from "../write-file.js";
import { HandoffError } from "./errors.js";

export interface WriteHandoffOptions {
  /** Write here instead of `handoffPath(sessionFile, sessionId)`. */
  readonly out?: string;
}

export interface WrittenHandoff {
  readonly path: string;
  readonly bytes: number;
}

/** Write `markdown` as `handoff-<sessionId>.md` beside the session's seed index (or at `out`). */
export async function writeHandoff(sessionFile: string, sessionId: string, markdown: string, options: WriteHandoffOptions = {}): Promise<WrittenHandoff> {
  const path = options.out ?? handoffPath(sessionFile, sessionId);
  try {
    return { path, bytes: await writeFileAtomically(path, markdown) };
  } catch (error) {
    throw new HandoffError("HANDOFF_WRITE", path, `cannot write the handoff ${path}: ${(error as Error).message}`, { cause: error });
  }
}
