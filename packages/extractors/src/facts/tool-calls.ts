// Tool calls and their results: a call is held until its result arrives (matched by call id), then the
// result is read by the call's class — a shell run, a read, an edit or write, a search, or another tool
// (whose failure is outstanding and whose output may report a commit it made).
import { cleanPath } from "../lexicon/paths.js";
import { classifyTool, PATH_KEYS, type ToolClass } from "../tool-calls/tool-class.js";
import { trailingExitCode } from "./diagnostics.js";
import { recentGitCommits, reportedCommits } from "./git-commits.js";
import type { Ledgers } from "./ledgers.js";
import type { ShellOutcomes } from "./shell-outcomes.js";
import type { FactsBlock } from "./types.js";
import { trimmedFirstLine } from "./user-text.js";

interface PendingCall {
  cls: ToolClass;
  toolName: string;
  args: Readonly<Record<string, unknown>> | undefined;
  index: number;
}

/** The first non-empty string among `keys` of a tool call's arguments. */
export function stringArg(args: Readonly<Record<string, unknown>> | undefined, ...keys: string[]): string | undefined {
  if (args === undefined) return undefined;
  for (const k of keys) {
    const v = args[k];
    if (typeof v === "string" && v.length > 0) return v;
  }
  return undefined;
}

export class ToolCalls {
  private readonly pending = new Map<string, PendingCall>();

  constructor(
    private readonly l: Ledgers,
    private readonly shell: ShellOutcomes,
  ) {}

  call(b: FactsBlock): void {
    const cls = classifyTool(b.toolName, b.args);
    const call: PendingCall = { cls, toolName: b.toolName ?? "", args: b.args, index: b.index };
    if (b.toolCallId !== undefined) this.pending.set(b.toolCallId, call);
    else this.pending.set(`#${b.index}`, call);
  }

  result(b: FactsBlock): void {
    const l = this.l;
    const call = this.take(b);
    l.hex.addToolOutput(b.text, b.index);
    const rawPath = stringArg(call.args, ...PATH_KEYS);
    const path = rawPath !== undefined ? cleanPath(rawPath, l.cwd) : undefined;
    switch (call.cls) {
      case "shell": {
        const command = stringArg(call.args, "command", "cmd", "script") ?? "";
        const exit = trailingExitCode(b.text) ?? (b.isError === true ? 1 : 0);
        this.shell.add(b, command, exit, b.text, call.toolName || "bash");
        return;
      }
      case "read":
        if (path === undefined) return;
        if (b.isError === true) {
          this.toolError(b, call, path);
          return;
        }
        l.files.read(path, b.index, b.text, b);
        l.turns.note("reads", path);
        return;
      case "edit":
      case "write":
        if (path === undefined) return;
        if (b.isError === true) {
          this.toolError(b, call, path);
          return;
        }
        l.files.modify(path, call.cls, call.args, b.index);
        l.turns.note(call.cls === "write" ? "writes" : "edits", path);
        return;
      case "search": {
        const pattern = stringArg(call.args, "pattern", "query", "glob", "regex", "name") ?? path ?? "";
        if (b.isError === true) {
          this.toolError(b, call, path);
          return;
        }
        const t = b.text.trim();
        if (t.length === 0 || /^(?:no (?:matches|files|results)(?: found)?|0 (?:matches|results|files))\b/i.test(t.slice(0, 80))) {
          l.outstanding.upsert({
            key: `nomatch|${call.toolName}|${pattern}`,
            severity: "INFO",
            source: "no-matches",
            label: "no matches",
            text: `${call.toolName} ${JSON.stringify(pattern.slice(0, 120))}`,
            file: undefined,
            command: undefined,
            errorId: undefined,
            turn: b.turn,
            index: b.index,
          });
        }
        return;
      }
      default:
        if (b.isError === true) this.toolError(b, call, path);
        // A tool that acts (not a shell, not a reader) may report a commit it made in its own words.
        else l.commits.add([...recentGitCommits(b, b.text, undefined), ...reportedCommits(b.text)], b.turn, b.index);
        return;
    }
  }

  private take(b: FactsBlock): PendingCall {
    if (b.toolCallId !== undefined) {
      const call = this.pending.get(b.toolCallId);
      if (call !== undefined) {
        this.pending.delete(b.toolCallId);
        return call;
      }
    }
    return { cls: classifyTool(b.toolName, b.args), toolName: b.toolName ?? "", args: b.args, index: b.index };
  }

  private toolError(b: FactsBlock, call: PendingCall, path: string | undefined): void {
    const gist = trimmedFirstLine(b.text, 200);
    this.l.outstanding.upsert({
      key: `tool|${call.toolName}|${path ?? ""}|${gist}`,
      severity: "WARN",
      source: "tool",
      label: call.toolName || "tool",
      text: path !== undefined ? `${call.toolName} ${path} → ${gist}` : `${call.toolName} → ${gist}`,
      file: path,
      command: undefined,
      errorId: undefined,
      turn: b.turn,
      index: b.index,
    });
  }
}
