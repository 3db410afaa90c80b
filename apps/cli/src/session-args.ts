// Every command's session argument goes through the one resolver (recall-engine's session-names): a
// path, a session id or unique id prefix in Pi's sessions folder, or `latest`. Applied by one preAction
// hook, by the argument's declared name, so a command module only has to call its argument <session>.
import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { piSessionsDir, resolveSessionName, SessionNameError } from "@context-fold/recall-engine";
import type { Command } from "commander";

/** Declared argument names that hold a session. */
const SESSION_ARGUMENTS = new Set(["session", "session.jsonl"]);

function resolveOrKeep(name: string): string {
  try {
    return resolveSessionName(name);
  } catch (error) {
    if (error instanceof SessionNameError && error.code === "SESSION_NOT_FOUND") return name;
    throw error;
  }
}

function resolveValue(value: unknown): unknown {
  if (typeof value === "string") return resolveSessionName(value);
  // Of several sessions (eval), one that names nothing stays as given: the command skips it with its reason.
  if (Array.isArray(value)) return value.map((v) => (typeof v === "string" ? resolveOrKeep(v) : v));
  return value;
}

/** Rewrites the session arguments (and a `--session` option) of the command about to run, in place. */
export function resolveSessionArguments(command: Command): void {
  // `recall --sessions` searches a folder: its positionals are query words, not a session.
  if (command.opts()["sessions"] !== undefined) return;
  command.registeredArguments.forEach((argument, i) => {
    if (SESSION_ARGUMENTS.has(argument.name()) && command.processedArgs[i] !== undefined) command.processedArgs[i] = resolveValue(command.processedArgs[i]);
  });
  const option = command.opts()["session"];
  if (typeof option === "string") command.setOptionValue("session", resolveSessionName(option));
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
  program.hook("preAction", (_program, actionCommand) => {
    resolveSessionArguments(actionCommand);
  });
}

/**
 * What `--sessions [value]` names: a folder when the value is an existing directory; otherwise the value
 * is the query's first word and the folder is Pi's sessions folder (`recall --sessions refreshToken`).
 */
export function sessionsTarget(value: string | true): { dir: string; firstWord: string | undefined } {
  if (value === true) return { dir: piSessionsDir(), firstWord: undefined };
  const dir = resolve(value);
  if (existsSync(dir) && statSync(dir).isDirectory()) return { dir, firstWord: undefined };
  return { dir: piSessionsDir(), firstWord: value };
}
