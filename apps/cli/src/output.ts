// How every command talks: one JSON document on stdout with --json, human text otherwise,
// diagnostics on stderr, and the exit codes 0 ok / 1 findings / 2 usage or unreadable input.
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

/** Colour only on a TTY and when NO_COLOR is unset (https://no-color.org). */
export function useColor(stream: NodeJS.WriteStream = process.stdout): boolean {
  const noColor = process.env["NO_COLOR"];
  return Boolean(stream.isTTY) && (noColor === undefined || noColor === "");
}

export function style(text: string, code: "bold" | "dim" | "red" | "green" | "yellow" | "cyan"): string {
  if (!useColor()) return text;
  const codes = { bold: [1, 22], dim: [2, 22], red: [31, 39], green: [32, 39], yellow: [33, 39], cyan: [36, 39] } as const;
  const [open, close] = codes[code];
  return `\u001b[${open}m${text}\u001b[${close}m`;
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export function printText(text: string): void {
  process.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
}

export function warn(text: string): void {
  process.stderr.write(text.endsWith("\n") ? text : `${text}\n`);
}

/** Print the result the way the user asked: JSON document or human text. */
export function emit(json: boolean, value: unknown, human: () => string): void {
  if (json) printJson(value);
  else printText(human());
}

/** Set the process exit code without exiting (so stdout drains). */
export function setExit(code: number): void {
  if (code > Number(process.exitCode ?? 0)) process.exitCode = code;
}
