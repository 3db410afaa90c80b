// The brief transcript: the summarized window as one line per user/assistant message and per tool
// call, each ending in the `(#N)` of the block it describes (the global block number recall expands).
import { toolCommand, toolPath } from "@context-fold/extractors";
import { oneLine, refText } from "./summary-syntax.js";

/** The part of a ledger Block the brief reads (structural: a ledger-reader Block fits). */
export interface BriefBlock {
  readonly index: number;
  readonly kind: string;
  readonly toolName?: string;
  readonly toolCallId?: string;
  readonly args?: Readonly<Record<string, unknown>>;
  readonly isError?: boolean;
  readonly exitCode?: number;
  readonly text: string;
}

/** Characters kept of a user or assistant text in one brief line. */
export const BRIEF_TEXT_MAX = 200;
const ARG_MAX = 120;

const SEARCH_KEYS = ["pattern", "query", "regex", "glob", "url"] as const;

function firstStringArg(args: Readonly<Record<string, unknown>> | undefined): string | undefined {
  if (args === undefined) return undefined;
  for (const key of SEARCH_KEYS) {
    const v = args[key];
    if (typeof v === "string" && v.trim() !== "") return v;
  }
  for (const v of Object.values(args)) if (typeof v === "string" && v.trim() !== "") return v;
  return undefined;
}

const quoted = (s: string): string => `"${oneLine(s, ARG_MAX)}"`;

/** `Read "src/a.ts"`, `bash "pnpm test"`, `grep "TODO"`: a tool call as a one-liner (no ref). */
export function toolCallLine(toolName: string | undefined, args: Readonly<Record<string, unknown>> | undefined): string {
  const name = toolName ?? "tool";
  const path = toolPath(name, args);
  if (path !== undefined) return `${name.charAt(0).toUpperCase()}${name.slice(1)} ${quoted(path)}`;
  const command = toolCommand(name, args);
  if (command !== undefined) return `${name} ${quoted(command)}`;
  const arg = firstStringArg(args);
  return arg === undefined ? name : `${name} ${quoted(arg)}`;
}

/** Brief lines for `blocks` (ascending #N), tool results folded into their call's line as a failure mark. */
export function briefLines(blocks: readonly BriefBlock[]): string[] {
  const failed = new Set<string>();
  for (const b of blocks) if (b.kind === "toolResult" && b.isError === true && b.toolCallId !== undefined) failed.add(b.toolCallId);
  const out: string[] = [];
  for (const b of blocks) {
    const ref = refText(b.index);
    switch (b.kind) {
      case "user": {
        const text = oneLine(b.text, BRIEF_TEXT_MAX);
        out.push(`[user] ${text} ${ref}`);
        break;
      }
      case "text": {
        const text = oneLine(b.text, BRIEF_TEXT_MAX);
        if (text !== "") out.push(`[assistant] ${text} ${ref}`);
        break;
      }
      case "toolCall": {
        const mark = b.toolCallId !== undefined && failed.has(b.toolCallId) ? " [error]" : "";
        out.push(`* ${toolCallLine(b.toolName, b.args)}${mark} ${ref}`);
        break;
      }
      case "bash": {
        const command = typeof b.args?.["command"] === "string" ? (b.args["command"] as string) : "";
        const exit = b.exitCode !== undefined && b.exitCode !== 0 ? ` [exit ${String(b.exitCode)}]` : "";
        out.push(`[user !] ${quoted(command)}${exit} ${ref}`);
        break;
      }
      default:
        break;
    }
  }
  return out;
}

/** The #N a brief line ends with. */
export function briefRef(line: string): number {
  const at = line.lastIndexOf(" (#");
  return at < 0 ? -1 : Number(line.slice(at + 3, -1));
}
