// Builds the `context-fold` command tree. Each command lives in commands/<name>.ts and registers itself;
// a run loads only the command modules its arguments need (commands/index.ts).
import { Command, CommanderError } from "commander";
import { loadCommands, modulesFor, type RegisterCommand } from "./commands/index.js";
import { reportError } from "./error-boundary.js";
import { decorateHelp } from "./help-examples.js";
import { setProgressWanted } from "./progress.js";
import { installSessionNames } from "./session-args.js";
import { EXIT_USAGE, setExit, wantsJson } from "./output.js";
import { version } from "./version.js";

export interface ProgramOptions {
  /** Command modules to register instead of the built-in ones (tests drive the error boundary this way). */
  commands?: readonly RegisterCommand[];
}

/** The whole command tree (every command module loaded, unless `options.commands` says which). */
export async function buildProgram(options: ProgramOptions = {}): Promise<Command> {
  return programWith(options.commands ?? (await loadCommands()));
}

function programWith(commands: readonly RegisterCommand[]): Command {
  const program = new Command("context-fold")
    .description("Keep long Pi coding-agent sessions alive: fold, compact, recall, garden. Deterministic, no model calls.")
    .version(version, "-V, --version")
    // A mistake gets commander's one-line error (with its "Did you mean …?") and a pointer, not the whole help.
    .showHelpAfterError("(add --help for usage)")
    .option("--no-progress", "no progress bar on stderr (there is one only when stderr is a terminal)")
    .exitOverride();
  program.hook("preAction", () => {
    setProgressWanted(program.opts()["progress"] !== false);
  });
  for (const register of commands) register(program);
  installSessionNames(program);
  decorateHelp(program);
  return program;
}

/** Run the CLI; never throws, sets process.exitCode. */
export async function run(argv: readonly string[], options: ProgramOptions = {}): Promise<void> {
  let program: Command;
  try {
    program = programWith(options.commands ?? (await loadCommands(modulesFor(argv))));
  } catch (error) {
    reportError(error, wantsJson(argv));
    return;
  }
  try {
    await program.parseAsync([...argv], { from: "user" });
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version arrive here with exit code 0; commander has already printed its message.
      setExit(error.exitCode === 0 ? 0 : EXIT_USAGE);
      return;
    }
    reportError(error, wantsJson(argv));
  }
}
