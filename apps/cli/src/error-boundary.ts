// The CLI's one error boundary. An error of ours carries a string `code` (CliError and every package's
// error class, and Node's system errors such as ENOENT, which name a file the user gave): it is told in
// one line (and as `{error: {code, message}}` on stdout under --json) and exits 2 or its mapped code.
// Anything else is a bug: its stack goes to stderr and the exit is 70 (EX_SOFTWARE, sysexits.h).
import { CliError, EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, printJson, setExit, warn } from "./output.js";

/** A bug in context-fold, not in its input. */
export const EXIT_INTERNAL = 70;

/** Codes whose exit is not 2: a library's "nothing to do" is a finding, not a usage error. */
const EXIT_BY_CODE: Readonly<Record<string, number>> = {
  NOTHING_TO_COMPACT: EXIT_FINDINGS,
};

export interface KnownError {
  code: string;
  message: string;
  exitCode: number;
}

function codeOf(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" && code.length > 0 ? code : undefined;
}

/** The stdout reader went away (`… | head -1`): nothing is wrong, there is no one left to tell. */
export function isBrokenPipe(error: unknown): boolean {
  return codeOf(error) === "EPIPE";
}

/**
 * Our error as told to the user, or undefined for a bug. Node's own `ERR_*` codes (an invalid argument
 * passed to a Node API) are bugs of ours even though they carry a code.
 */
export function knownError(error: unknown): KnownError | undefined {
  if (error instanceof CliError) return { code: error.code, message: error.message, exitCode: error.exitCode };
  const code = codeOf(error);
  if (code === undefined || code.startsWith("ERR_") || !(error instanceof Error)) return undefined;
  return { code, message: error.message, exitCode: EXIT_BY_CODE[code] ?? EXIT_USAGE };
}

/** Tell an error the way its kind asks, and set the exit code. */
export function reportError(error: unknown, json: boolean): void {
  if (isBrokenPipe(error)) {
    process.exitCode = EXIT_OK;
    return;
  }
  const known = knownError(error);
  if (known !== undefined) {
    if (json) printJson({ error: { code: known.code, message: known.message } });
    warn(`context-fold: ${known.message}`);
    setExit(known.exitCode);
    return;
  }
  const stack = error instanceof Error ? (error.stack ?? `${error.name}: ${error.message}`) : String(error);
  warn(`context-fold: internal error — this is a bug in context-fold; please report it with the stack below\n${stack}`);
  setExit(EXIT_INTERNAL);
}

/**
 * A closed stdout (`recall … | head -1`) ends the process quietly with exit 0 instead of an unhandled
 * 'error' event and its stack. Installed by the binary only: in-process callers own their streams.
 */
export function endQuietlyOnBrokenPipe(stream: NodeJS.WriteStream = process.stdout): void {
  stream.on("error", (error: unknown) => {
    if (isBrokenPipe(error)) process.exit(EXIT_OK);
    throw error;
  });
}
