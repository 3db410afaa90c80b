// Every command's session argument goes through the one resolver (recall-engine's session-names): a
// path, a session id or unique id prefix in Pi's sessions folder, or `latest`. Applied by one preAction
// hook, by the argument's declared name, so a command module only has to call its argument <session>.
// recall-engine is imported when a command is about to run, not when the program is built: `--version`
// and `--help` never load it.
import type { Command } from "commander";

type Names = Pick<typeof import("@context-fold/recall-engine"), "resolveSessionName" | "SessionNameError">;

/** Declared argument names that hold a session. */
const SESSION_ARGUMENTS = new Set(["session", "session.jsonl"]);

function resolveOrKeep(names: Names, name: string): string {
  try {
    return names.resolveSessionName(name);
  } catch (error) {
    if (error instanceof names.SessionNameError && error.code === "SESSION_NOT_FOUND") return name;
    throw error;
  }
}

function resolveValue(names: Names, value: unknown): unknown {
  if (typeof value === "string") return names.resolveSessionName(value);
  // Of several sessions (eval), one that names nothing stays as given: the command skips it with its reason.
  if (Array.isArray(value)) return value.map((v) => (typeof v === "string" ? resolveOrKeep(names, v) : v));
  return value;
}

/** Rewrites the session arguments (and a `--session` option) of the command about to run, in place. */
export async function resolveSessionArguments(command: Command): Promise<void> {
  // `recall --sessions` searches a folder: its positionals are query words, not a session.
  if (command.opts()["sessions"] !== undefined) return;
  const option = command.opts()["session"];
  const named = command.registeredArguments.some((argument, i) => SESSION_ARGUMENTS.has(argument.name()) && command.processedArgs[i] !== undefined);
  if (!named && typeof option !== "string") return;
  const names: Names = await import("@context-fold/recall-engine");
  command.registeredArguments.forEach((argument, i) => {
    if (SESSION_ARGUMENTS.has(argument.name()) && command.processedArgs[i] !== undefined) command.processedArgs[i] = resolveValue(names, command.processedArgs[i]);
  });
  if (typeof option === "string") command.setOptionValue("session", names.resolveSessionName(option));
}

/** How a session may be named, said once in every session argument's help. */
const NAMING = "a path, a session id or unique id prefix, or `latest` (this directory's newest session)";

function describeNaming(command: Command): void {
  for (const argument of command.registeredArguments) {
    if (SESSION_ARGUMENTS.has(argument.name())) argument.description = `${argument.description}: ${NAMING}`;
  }
  for (const sub of command.commands) describeNaming(sub);
}

export function installSessionNames(program: Command): void {
  describeNaming(program);
  program.hook("preAction", (_program, actionCommand) => resolveSessionArguments(actionCommand));
}
