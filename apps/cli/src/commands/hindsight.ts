// `context-fold hindsight serve`: run the Hindsight-compatible local bank on loopback until
// SIGINT/SIGTERM, printing its URL so a gardener (or any Hindsight client) can point at it.
import type { Command } from "commander";
import { JournalCorruptError, startLocalBank, type LocalBank } from "@context-fold/hindsight-local";
import { CliError, EXIT_USAGE, emit, warn } from "../output.js";

interface ServeOptions {
  port: string;
  data?: string;
  apiVersion?: string;
  json?: boolean;
}

function parsePort(text: string): number {
  const port = /^\d{1,5}$/.test(text) ? Number.parseInt(text, 10) : Number.NaN;
  if (!Number.isInteger(port) || port > 65535) throw new CliError(`--port must be an integer 0–65535 (0 = any free port), got "${text}"`, { code: "USAGE", exitCode: EXIT_USAGE });
  return port;
}

async function serve(options: ServeOptions): Promise<void> {
  const port = parsePort(options.port);
  let bank: LocalBank;
  try {
    bank = await startLocalBank({
      port,
      ...(options.data === undefined ? {} : { dataDir: options.data }),
      ...(options.apiVersion === undefined ? {} : { version: options.apiVersion }),
    });
  } catch (error) {
    if (error instanceof JournalCorruptError) throw error; // told by the error boundary
    const code = (error as { code?: unknown }).code;
    if (code === "EADDRINUSE") throw new CliError(`port ${port} is already in use on 127.0.0.1; pick another with --port (0 = any free port)`, { code: "EADDRINUSE", exitCode: EXIT_USAGE, cause: error });
    throw new CliError(`cannot start the local bank: ${error instanceof Error ? error.message : String(error)}`, { code: "START_FAILED", exitCode: EXIT_USAGE, cause: error });
  }
  if (bank.tornBytesDropped > 0) warn(`context-fold: dropped a torn journal tail (${bank.tornBytesDropped} bytes) left by a crash; nothing acknowledged was lost`);
  emit(Boolean(options.json), { url: bank.url, port: bank.port, dataDir: options.data ?? null }, () =>
    `Hindsight-compatible bank listening on ${bank.url} (${options.data === undefined ? "in memory" : `data: ${options.data}`}). Ctrl-C stops it.`,
  );
  await new Promise<void>((resolve) => {
    const stop = (): void => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      bank.close().then(resolve, (error: unknown) => {
        warn(`context-fold: closing the bank failed: ${error instanceof Error ? error.message : String(error)}`);
        resolve();
      });
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
}

export function registerHindsight(program: Command): void {
  const hindsight = program.command("hindsight").description("A Hindsight-API-compatible memory bank on loopback (for the gardener, tests and offline use).");
  hindsight
    .command("serve")
    .description("Serve the local bank on 127.0.0.1 until SIGINT/SIGTERM; prints its URL.")
    .option("--port <n>", "port to listen on (0 = any free port)", "8888")
    .option("--data <dir>", "keep memories on disk in <dir> (journal + snapshot); omitted = in memory")
    .option("--api-version <v>", "api_version to report (below 0.8.2 PATCH answers 405, like those servers)")
    .option("--json", "print {url, port, dataDir} as one JSON document")
    .action(async (options: ServeOptions) => {
      await serve(options);
    });
}
