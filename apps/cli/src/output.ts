// How every command talks: one JSON document on stdout with --json, human text otherwise,
// diagnostics on stderr, and the exit codes 0 ok / 1 findings / 2 usage or unreadable input.
import type { styleText as StyleText } from "node:util";
import { writeJson } from "./json-output.js";
import { writeToDescriptor } from "./stdout-direct.js";

export const EXIT_OK = 0;
export const EXIT_FINDINGS = 1;
export const EXIT_USAGE = 2;

/** A failure the user can act on; the CLI prints its message (never a stack) and exits with `exitCode`. */
export class CliError extends Error {
  readonly code: string;
  readonly exitCode: number;
  constructor(message: string, options: { code?: string; exitCode?: number; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "CliError";
    this.code = options.code ?? "USAGE";
    this.exitCode = options.exitCode ?? EXIT_USAGE;
  }
}

export type Style = "bold" | "dim" | "red" | "green" | "yellow" | "cyan" | "magenta" | "blue";

/**
 * `text` in a style, when `stream` takes colour. Node's `styleText` decides that, by the same rule as
 * Node's own output: `FORCE_COLOR` (1, 2, 3 or empty: on, even into a pipe; 0: off) comes first, then
 * `NO_COLOR`, `NODE_DISABLE_COLORS` and `TERM=dumb` turn it off, and otherwise only a terminal gets it.
 */
export function style(text: string, code: Style, stream: NodeJS.WriteStream = process.stdout): string {
  styleText ??= process.getBuiltinModule("node:util").styleText;
  return styleText(code, text, { stream });
}

// node:util is taken when a text is first styled, not imported: every command loads this module, and
// importing node:util costs a start several ms (a one-shot recall styles nothing).
let styleText: typeof StyleText | undefined;

/** Where printText and printJson write: process.stdout, unless the binary sent them to the descriptor. */
let writeOut = (text: string): void => {
  process.stdout.write(text);
};

/**
 * Sends printText and printJson straight to file descriptor 1 (stdout-direct.ts), so process.stdout is
 * never made. For the binary's one-shot search only (in-process callers own process.stdout). A reader
 * that went away throws EPIPE at the write (the error boundary ends quietly on it). A descriptor that would
 * block hands the rest, and every later write, to process.stdout; `guard` is then given the stream (the
 * binary's broken-pipe guard).
 */
export function writeStdoutDirectly(guard: (stream: NodeJS.WriteStream) => void): void {
  writeOut = (text) => {
    const rest = writeToDescriptor(text);
    if (rest.length === 0) return;
    writeOut = (later) => {
      process.stdout.write(later);
    };
    guard(process.stdout);
    process.stdout.write(rest);
  };
}

/**
 * Characters of JSON gathered before a write: a long document is written as it is made (a few MB held
 * at a time), a short one in one write.
 */
const JSON_WRITE_CHARS = 4 * 1024 * 1024;

/** `JSON.stringify(value, null, 2)` and a newline: one write, or pieces when longer than a string may be. */
export function printJson(value: unknown): void {
  printJsonPieces((write) => writeJson(value, write));
}

/**
 * A JSON document that `produce` writes piece by piece (one too long to build as one string or value:
 * `index --json` on a 1 GB session prints a million spans), then a newline; written in batches of
 * `JSON_WRITE_CHARS`.
 */
export function printJsonPieces(produce: (write: (piece: string) => void) => void): void {
  const pieces: string[] = [];
  let size = 0;
  produce((piece) => {
    pieces.push(piece);
    size += piece.length;
    if (size < JSON_WRITE_CHARS) return;
    writeOut(pieces.join(""));
    pieces.length = 0;
    size = 0;
  });
  pieces.push("\n");
  writeOut(pieces.join(""));
}

export function printText(text: string): void {
  writeOut(text.endsWith("\n") ? text : `${text}\n`);
}

export function warn(text: string): void {
  process.stderr.write(text.endsWith("\n") ? text : `${text}\n`);
}

/** Print the result the way the user asked: JSON document or human text. */
export function emit(json: boolean, value: unknown, human: () => string): void {
  if (json) printJson(value);
  else printText(human());
}

/** `--json` among the arguments before a `--`: errors are then told as a JSON document too. */
export function wantsJson(argv: readonly string[]): boolean {
  const end = argv.indexOf("--");
  return (end === -1 ? argv : argv.slice(0, end)).includes("--json");
}

/** Set the process exit code without exiting (so stdout drains). */
export function setExit(code: number): void {
  if (code > Number(process.exitCode ?? 0)) process.exitCode = code;
}
