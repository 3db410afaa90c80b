// The one tool classifier: what a tool call does (reads, edits or writes a file, runs a shell command,
// searches, or something else) and its target file or command. Seed records, summary facts, the context
// inventory, the brief transcript and the Pi extension all ask here, so one session yields the same
// files and commands everywhere. Table-driven; names compare case-insensitively.

export type ToolClass = "read" | "edit" | "write" | "shell" | "search" | "other";

type Args = Readonly<Record<string, unknown>> | undefined;

/** Known tool names (lower case) of Pi's built-ins and the usual spellings of other harnesses. */
const BY_NAME: ReadonlyMap<string, ToolClass> = new Map<string, ToolClass>([
  ...["read", "read_file", "readfile", "view", "view_file", "cat", "open_file", "read_many_files"].map((n) => [n, "read"] as const),
  ...[
    "edit", "multiedit", "multi_edit", "edit_file", "str_replace", "str_replace_editor", "str_replace_based_edit_tool",
    "apply_patch", "patch", "replace", "replace_in_file", "search_replace", "insert", "notebook_edit", "notebookedit",
  ].map((n) => [n, "edit"] as const),
  ...["write", "write_file", "writefile", "create", "create_file", "write_to_file", "save_file"].map((n) => [n, "write"] as const),
  ...[
    "bash", "shell", "sh", "zsh", "exec", "run_command", "terminal", "execute_command", "run_terminal_cmd", "run_shell_command",
    "run_in_terminal", "powershell", "command",
  ].map((n) => [n, "shell"] as const),
  ...["grep", "find", "glob", "ls", "search", "rg", "list_dir", "list_files", "file_search", "grep_search", "codebase_search", "list_directory"].map(
    (n) => [n, "search"] as const,
  ),
  // Recall tools (ours, pi-vcc's, a Hindsight bank's) search what was said or stored before: a commit
  // or an error they return is history, never something this session did.
  ...["context_recall", "vcc_recall", "recall", "reflect", "memory_recall"].map((n) => [n, "search"] as const),
]);

/** Name endings of families of tools (`*_edit_tool`, `*_write_file`, …), checked after exact names. */
const SUFFIXES: readonly (readonly [string, ToolClass])[] = [
  ["_edit_tool", "edit"],
  ["_edit_file", "edit"],
  ["_write_file", "write"],
  ["_read_file", "read"],
];

/** Argument keys that name the file a tool works on, in preference order. */
export const PATH_KEYS: readonly string[] = ["path", "file_path", "filePath", "file", "filename", "target_file"];
const COMMAND_KEYS = ["command", "cmd", "script"] as const;
/** Keys of text a tool puts into a file whole (a write) … */
const CONTENT_KEYS = ["content", "file_text", "contents", "text"] as const;
/** … and of a change to part of it (an edit). */
const CHANGE_KEYS = ["newText", "new_string", "new_str", "newString", "edits", "patch", "diff", "old_string", "oldText"] as const;

/** Editor tools with a sub-command (`str_replace_editor`, `*_edit_tool`): `command` says what the call does. */
const EDITOR_COMMANDS: ReadonlyMap<string, ToolClass> = new Map<string, ToolClass>([
  ["view", "read"],
  ["create", "write"],
  ["str_replace", "edit"],
  ["insert", "edit"],
  ["undo_edit", "edit"],
]);

function firstString(args: Args, keys: readonly string[]): string | undefined {
  if (args === undefined) return undefined;
  for (const key of keys) {
    const value = args[key];
    if (typeof value === "string" && value.trim().length > 0) return value;
  }
  return undefined;
}

function hasAny(args: Args, keys: readonly string[]): boolean {
  if (args === undefined) return false;
  for (const key of keys) if (args[key] !== undefined) return true;
  return false;
}

function byName(name: string): ToolClass | undefined {
  const exact = BY_NAME.get(name);
  if (exact !== undefined) return exact;
  for (const [suffix, cls] of SUFFIXES) if (name.endsWith(suffix)) return cls;
  return undefined;
}

/**
 * What a call does. Known names first (an editor's `command` sub-argument refines them); a tool of
 * unknown name that names a file (`path`, `file_path`, `filePath`, …) writes it when it carries whole
 * content, edits it when it carries a change, and otherwise reads it.
 */
export function classifyTool(name: string | undefined, args: Args): ToolClass {
  const n = (name ?? "").toLowerCase();
  const known = byName(n);
  if (known === "edit" || known === "read" || known === "write") {
    const sub = typeof args?.["command"] === "string" ? EDITOR_COMMANDS.get(args["command"]) : undefined;
    if (sub !== undefined && firstString(args, PATH_KEYS) !== undefined) return sub;
  }
  if (known !== undefined) return known;
  if (firstString(args, PATH_KEYS) === undefined) return "other";
  if (hasAny(args, CHANGE_KEYS)) return "edit";
  if (hasAny(args, CONTENT_KEYS)) return "write";
  return "read";
}

/** The file a file tool (read, edit, write — custom tools included) targets, as written in its arguments. */
export function toolPath(name: string | undefined, args: Args): string | undefined {
  const cls = classifyTool(name, args);
  return cls === "read" || cls === "edit" || cls === "write" ? firstString(args, PATH_KEYS) : undefined;
}

/** The shell string of a shell-class tool call, verbatim. */
export function toolCommand(name: string | undefined, args: Args): string | undefined {
  if (classifyTool(name, args) !== "shell") return undefined;
  const value = firstString(args, COMMAND_KEYS);
  if (value !== undefined) return value;
  const argv = args?.["argv"] ?? args?.["args"];
  return Array.isArray(argv) && argv.every((a) => typeof a === "string") && argv.length > 0 ? argv.join(" ") : undefined;
}

/** Does this tool's output hold a file's content (so its path tokens are the file's, not the session's)? */
export function isContentTool(name: string | undefined, args: Args): boolean {
  return classifyTool(name, args) === "read";
}

/** The text an edit or write puts into the file (where symbols are read from). */
export function newContent(cls: ToolClass, args: Args): string {
  if (args === undefined) return "";
  if (cls === "write") return firstString(args, CONTENT_KEYS) ?? "";
  const direct = firstString(args, ["newText", "new_string", "new_str", "newString"]);
  if (direct !== undefined) return direct;
  const edits = args["edits"];
  if (!Array.isArray(edits)) return "";
  const parts: string[] = [];
  for (const e of edits) {
    if (e !== null && typeof e === "object") {
      const v = (e as Record<string, unknown>)["newText"] ?? (e as Record<string, unknown>)["new_string"];
      if (typeof v === "string") parts.push(v);
    }
  }
  return parts.join("\n");
}

/** Names in the table by class (lower case), for callers that list them. */
export function toolNames(cls: ToolClass): string[] {
  return [...BY_NAME].filter(([, c]) => c === cls).map(([n]) => n);
}
