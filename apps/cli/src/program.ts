// Builds the `context-fold` command tree. Each command lives in commands/<name>.ts and registers itself.
import { Command, CommanderError } from "commander";
import { commands } from "./commands/index.js";
import { CliError, EXIT_USAGE, setExit, warn } from "./output.js";
import { version } from "./version.js";

export function buildProgram(): Command {
  const program = new Command("context-fold")
    .description("Keep long Pi coding-agent sessions alive: fold, compact, recall, garden. Deterministic, no model calls.")
    .version(version, "-V, --version")
    .showHelpAfterError()
    .exitOverride();
  for (const register of commands) register(program);
  return program;
}

/** Run the CLI; never throws, sets process.exitCode. */
export async function run(argv: readonly string[]): Promise<void> {
  const program = buildProgram();
  try {
    await program.parseAsync([...argv], { from: "user" });
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version arrive here with exit code 0.
      setExit(error.exitCode === 0 ? 0 : EXIT_USAGE);
      return;
    }
    if (error instanceof CliError) {
      warn(`context-fold: ${error.message}`);
      setExit(error.exitCode);
      return;
    }
    const message = error instanceof Error ? error.message : String(error);
    warn(`context-fold: ${message}`);
    setExit(EXIT_USAGE);
  }
}
