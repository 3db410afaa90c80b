// `context-fold hindsight serve`: run the Hindsight-compatible local bank on loopback until
// SIGINT/SIGTERM, printing its URL so a gardener (or any Hindsight client) can point at it.
import { homedir } from "node:os";
import type { Command } from "commander";
import { stateDir } from "@context-fold/durable-fs";
import { DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_ITEM_BYTES, JournalCorruptError, LocalBankOptionError, startLocalBank, type LocalBank } from "@context-fold/hindsight-local";
import { CliError, EXIT_USAGE, emit, warn } from "../output.js";

interface ServeOptions {
  port: string;
  host: string;
  data?: string;
  apiVersion?: string;
  apiKey?: string;
  maxBodyBytes: string;
  maxItemBytes: string;
  faults?: boolean;
  json?: boolean;
}

/** The environment variable the Pi extension already sends its key from. */
export const API_KEY_ENV = "CONTEXT_FOLD_HINDSIGHT_API_KEY";

function parseBytes(flag: string, text: string): number {
  const n = /^[1-9]\d{0,14}$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(n)) throw new CliError(`${flag} must be a positive number of bytes, got "${text}"`, { code: "USAGE", exitCode: EXIT_USAGE });
  return n;
}

function parsePort(text: string): number {
  const port = /^\d{1,5}$/.test(text) ? Number.parseInt(text, 10) : Number.NaN;
  if (!Number.isInteger(port) || port > 65535) throw new CliError(`--port must be an integer 0–65535 (0 = any free port), got "${text}"`, { code: "USAGE", exitCode: EXIT_USAGE });
  return port;
}

/**
 * Where `serve` keeps its bank without --data: the user's state folder, so a bank set up once (the
 * README's two-line Pi setup) survives a restart. `$XDG_STATE_HOME/context-fold/bank` (an absolute
 * XDG_STATE_HOME only, as the spec says), else `~/.local/state/context-fold/bank`.
 */
export function defaultBankDir(env: Readonly<Record<string, string | undefined>> = process.env, home: string = homedir()): string {
  return stateDir("bank", env, home);
}

async function serve(options: ServeOptions): Promise<void> {
  const port = parsePort(options.port);
  const dataDir = options.data ?? defaultBankDir();
  if (options.host !== "127.0.0.1" && options.host !== "::1") throw new CliError(`--host must be a loopback address (127.0.0.1 or ::1), got "${options.host}"`, { code: "USAGE", exitCode: EXIT_USAGE });
  const apiKey = options.apiKey ?? process.env[API_KEY_ENV];
  let bank: LocalBank;
  try {
    bank = await startLocalBank({
      port,
      host: options.host,
      maxBodyBytes: parseBytes("--max-body-bytes", options.maxBodyBytes),
      maxItemBytes: parseBytes("--max-item-bytes", options.maxItemBytes),
      faultRoutes: options.faults === true,
      ...(apiKey === undefined || apiKey === "" ? {} : { apiKey }),
      dataDir,
      ...(options.apiVersion === undefined ? {} : { version: options.apiVersion }),
    });
  } catch (error) {
    if (error instanceof JournalCorruptError || error instanceof LocalBankOptionError) throw error; // told by the error boundary
    const code = (error as { code?: unknown }).code;
    if (code === "EADDRINUSE") throw new CliError(`port ${port} is already in use on 127.0.0.1; pick another with --port (0 = any free port)`, { code: "EADDRINUSE", exitCode: EXIT_USAGE, cause: error });
    throw new CliError(`cannot start the local bank: ${error instanceof Error ? error.message : String(error)}`, { code: "START_FAILED", exitCode: EXIT_USAGE, cause: error });
  }
  // Every finding of the start, exactly: where, why, and what it cost ("unknown" when the file cannot tell).
  for (const d of bank.damage) {
    const cost = d.lost === "unknown" ? "how much was lost cannot be known" : d.lost === 0 ? "no record lost" : `${String(d.lost)} record(s) lost`;
    warn(`context-fold: ${d.file}${d.line > 0 ? `:${String(d.line)} (byte ${String(d.byteOffset)})` : ""}: ${d.reason} (${cost})`);
  }
  for (const notice of bank.notices) warn(`context-fold: ${notice}`);
  // The handlers go in before the ready line: a supervisor may signal the moment it reads it.
  const stopped = new Promise<void>((resolve) => {
    const stop = (): void => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      bank.close().then(resolve, (error: unknown) => {
        // A full disk on close: one clean line (no stack), exit 1; the journal still holds everything.
        warn(`context-fold: ${error instanceof Error ? error.message : String(error)}`);
        process.exitCode = 1;
        resolve();
      });
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
  emit(Boolean(options.json), { url: bank.url, port: bank.port, dataDir, auth: apiKey !== undefined && apiKey !== "", faults: options.faults === true }, () =>
    `Hindsight-compatible bank listening on ${bank.url} (data: ${dataDir}). Ctrl-C stops it.`,
  );
  await stopped;
}

export function registerHindsight(program: Command): void {
  const hindsight = program.command("hindsight").description("A Hindsight-API-compatible memory bank on loopback (for the gardener, tests and offline use).");
  hindsight
    .command("serve")
    .description("Serve the local bank on 127.0.0.1 until SIGINT/SIGTERM; prints its URL.")
    .option("--port <n>", "port to listen on (0 = any free port)", "8888")
    .option("--host <address>", "loopback address to listen on: 127.0.0.1 or ::1", "127.0.0.1")
    .option("--api-key <key>", `require Authorization: Bearer <key> on /v1 routes (default: $${API_KEY_ENV})`)
    .option("--max-body-bytes <n>", "largest request body accepted (larger → 413)", String(DEFAULT_MAX_BODY_BYTES))
    .option("--max-item-bytes <n>", "largest retained item (larger → 422)", String(DEFAULT_MAX_ITEM_BYTES))
    .option("--faults", "serve the fault-injection routes (PUT /_local/faults, x-hindsight-local-fault); for tests only")
    .option("--data <dir>", "keep memories on disk in <dir> (journal + snapshot); default $XDG_STATE_HOME/context-fold/bank, else ~/.local/state/context-fold/bank")
    .option("--api-version <v>", "api_version to report (below 0.8.2 PATCH answers 405, like those servers)")
    .option("--json", "print {url, port, dataDir} as one JSON document")
    .action(async (options: ServeOptions) => {
      await serve(options);
    });
}
