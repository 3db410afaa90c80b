// The binary's search across a history: `recall --sessions <folder> [words…] [options]` run without
// commander, as one file of its own (tsup.config.ts: this module, the history part of the recall command
// and the recall-engine, ledger-reader, durable-fs and seed-index-format code it reaches, compiled from
// their sources, with Node's built-in modules taken without an ES module facade). A process searching a
// history otherwise spends a good part of its time resolving and loading some thirty modules. What the
// fast parse does not take (commands/recall-argv.ts parseSessionsArgv) goes back to the binary (main.ts).
import { parseSessionsArgv } from "./commands/recall-argv.js";
import { recallSessions } from "./commands/recall-sessions.js";
import { endQuietlyOnBrokenPipe, reportError } from "./error-boundary.js";
import { wantsJson, writeStdoutDirectly } from "./output.js";

/** `argv` (the binary's arguments, `recall` first) run as `recall --sessions <folder>`: false when the fast parse does not take them. */
export async function recallSessionsOneShot(argv: readonly string[]): Promise<boolean> {
  const parsed = parseSessionsArgv(argv.slice(1));
  if (parsed === null) return false;
  // The answer is written to the descriptor itself, process.stdout never made (output.ts
  // writeStdoutDirectly: setting that stream up loads its modules): a closed reader is told by the write's
  // EPIPE, which the error boundary ends quietly.
  writeStdoutDirectly(endQuietlyOnBrokenPipe);
  try {
    await recallSessions(parsed.session, parsed.words, parsed.options);
  } catch (error) {
    // As program.ts's run tells an error thrown by a command's action.
    reportError(error, wantsJson(argv));
  }
  return true;
}
