// Every command module, in the order `--help` lists them, each loaded only when needed: a run imports the
// module of the command it runs (`--version` none, `--help` all), so start-up does not pay for the code of
// fourteen commands it does not run. Add one line per command module; `name` is the command it registers.
import type { Command } from "commander";

export type RegisterCommand = (program: Command) => void;

export interface CommandModule {
  /** The top-level command the module registers. */
  readonly name: string;
  load(): Promise<RegisterCommand>;
}

export const commandModules: readonly CommandModule[] = [
  { name: "inspect", load: async () => (await import("./inspect.js")).registerInspect },
  { name: "resolve", load: async () => (await import("./resolve.js")).registerResolve },
  { name: "records", load: async () => (await import("./records.js")).registerRecords },
  { name: "hindsight", load: async () => (await import("./hindsight.js")).registerHindsight },
  { name: "garden", load: async () => (await import("./garden.js")).registerGarden },
  { name: "index", load: async () => (await import("./index-cmd.js")).registerIndex },
  { name: "verify", load: async () => (await import("./verify.js")).registerVerify },
  { name: "recall", load: async () => (await import("./recall.js")).registerRecall },
  { name: "facts", load: async () => (await import("./facts.js")).registerFacts },
  { name: "artifacts", load: async () => (await import("./artifacts.js")).registerArtifacts },
  { name: "compact", load: async () => (await import("./compact.js")).registerCompact },
  { name: "handoff", load: async () => (await import("./handoff.js")).registerHandoff },
  { name: "inventory", load: async () => (await import("./inventory.js")).registerInventory },
  { name: "eval", load: async () => (await import("./eval.js")).registerEval },
  { name: "cache", load: async () => (await import("./cache.js")).registerCache },
];

/** Program-level options (they come before the command name and take no value). */
const VERSION_FLAGS = new Set(["-V", "--version"]);

/**
 * The command modules a run with these arguments needs: the named command's alone; none for a bare
 * `--version`; all of them otherwise (help, no command, a mistyped one: commander lists or suggests).
 */
export function modulesFor(argv: readonly string[]): readonly CommandModule[] {
  const first = argv.find((arg) => !arg.startsWith("-"));
  if (first === undefined) return argv.some((arg) => VERSION_FLAGS.has(arg)) && !argv.some((arg) => arg === "-h" || arg === "--help") ? [] : commandModules;
  const named = commandModules.find((module) => module.name === first);
  return named === undefined ? commandModules : [named];
}

/** Load command modules (in parallel), in the order given. */
export function loadCommands(modules: readonly CommandModule[] = commandModules): Promise<RegisterCommand[]> {
  return Promise.all(modules.map((module) => module.load()));
}
