// Which tools read/write files and which run shell commands, and how to take their target or command
// from the arguments. Names cover Pi's built-ins plus the usual spellings of other harnesses.

/** Tools whose `path` argument is a file they read, edit or write. */
export const FILE_TOOLS: ReadonlySet<string> = new Set([
  "read", "edit", "write", "multiedit", "multi_edit", "read_file", "write_file", "edit_file", "create_file",
  "str_replace_editor", "apply_patch", "view",
]);

/** Tools whose output is a file's content (their path tokens would be the file's, not the session's). */
export const CONTENT_TOOLS: ReadonlySet<string> = new Set(["read", "read_file", "view"]);

/** Shell-class tools: their command string is what `commands` records. */
export const SHELL_TOOLS: ReadonlySet<string> = new Set(["bash", "shell", "sh", "exec", "run_command", "terminal", "execute_command"]);

const PATH_KEYS = ["path", "file_path", "filePath", "file", "filename"] as const;
const COMMAND_KEYS = ["command", "cmd", "script"] as const;

function firstString(args: Readonly<Record<string, unknown>> | undefined, keys: readonly string[]): string | undefined {
  if (args === undefined) return undefined;
  for (const key of keys) {
    const value = args[key];
    if (typeof value === "string" && value.trim().length > 0) return value;
  }
  return undefined;
}

/** The file a file tool targets, as written in its arguments. */
export function toolPath(toolName: string | undefined, args: Readonly<Record<string, unknown>> | undefined): string | undefined {
  if (toolName === undefined || !FILE_TOOLS.has(toolName)) return undefined;
  return firstString(args, PATH_KEYS);
}

/** The shell string of a shell-class tool call, verbatim. */
export function toolCommand(toolName: string | undefined, args: Readonly<Record<string, unknown>> | undefined): string | undefined {
  if (toolName === undefined || !SHELL_TOOLS.has(toolName)) return undefined;
  const value = firstString(args, COMMAND_KEYS);
  if (value !== undefined) return value;
  const argv = args?.["argv"] ?? args?.["args"];
  return Array.isArray(argv) && argv.every((a) => typeof a === "string") && argv.length > 0 ? argv.join(" ") : undefined;
}
