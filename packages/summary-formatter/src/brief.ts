// The brief transcript: the summarized window as one line per user/assistant message and per tool
// call, each ending in the `(#N)` of the block it describes (the global block number recall expands).
import { type FactsBlock, toolCommand, toolPath } from "@context-fold/extractors";
import { oneLine, refText } from "./summary-syntax.js";

/** The part of a ledger Block the brief reads: the extractors' block shape without role and turn (structural: a ledger-reader Block fits). */
export type BriefBlock = Pick<FactsBlock, "index" | "kind" | "toolName" | "toolCallId" | "args" | "isError" | "exitCode" | "text">;

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

function failedCalls(blocks: readonly BriefBlock[]): Set<string> {
  const failed = new Set<string>();
  for (const b of blocks) if (b.kind === "toolResult" && b.isError === true && b.toolCallId !== undefined) failed.add(b.toolCallId);
  return failed;
}

/** The brief line of one block, or null for blocks the brief leaves out (results, thinking, …). */
function briefLine(b: BriefBlock, failed: ReadonlySet<string>): string | null {
  const ref = refText(b.index);
  switch (b.kind) {
    case "user":
      return `[user] ${oneLine(b.text, BRIEF_TEXT_MAX)} ${ref}`;
    case "text": {
      const text = oneLine(b.text, BRIEF_TEXT_MAX);
      return text === "" ? null : `[assistant] ${text} ${ref}`;
    }
    case "toolCall": {
      const mark = b.toolCallId !== undefined && failed.has(b.toolCallId) ? " [error]" : "";
      return `* ${toolCallLine(b.toolName, b.args)}${mark} ${ref}`;
    }
    case "bash": {
      const command = typeof b.args?.["command"] === "string" ? (b.args["command"] as string) : "";
      const exit = b.exitCode !== undefined && b.exitCode !== 0 ? ` [exit ${String(b.exitCode)}]` : "";
      return `[user !] ${quoted(command)}${exit} ${ref}`;
    }
    default:
      return null;
  }
}

const NON_SPACE = /\S/;

/** Whether `briefLine` gives a line for `b` (without building it). */
function makesLine(b: BriefBlock): boolean {
  if (b.kind === "user" || b.kind === "toolCall" || b.kind === "bash") return true;
  // Same head oneLine() reads: a text part makes a line when that head is not all whitespace.
  return b.kind === "text" && NON_SPACE.test(b.text.slice(0, BRIEF_TEXT_MAX * 2 + 64));
}

/** Brief lines for `blocks` (ascending #N), tool results folded into their call's line as a failure mark. */
export function briefLines(blocks: readonly BriefBlock[]): string[] {
  return briefTail(blocks, Number.POSITIVE_INFINITY).lines;
}

/**
 * The last `limit` brief lines and how many lines come before them, building only the lines kept
 * (a long window costs what its tail costs).
 */
export function briefTail(blocks: readonly BriefBlock[], limit: number): { lines: string[]; earlier: number } {
  const failed = failedCalls(blocks);
  const lines: string[] = [];
  let i = blocks.length - 1;
  for (; i >= 0 && lines.length < limit; i--) {
    const b = blocks[i];
    const line = b === undefined ? null : briefLine(b, failed);
    if (line !== null) lines.push(line);
  }
  let earlier = 0;
  for (; i >= 0; i--) {
    const b = blocks[i];
    if (b !== undefined && makesLine(b)) earlier++;
  }
  return { lines: lines.reverse(), earlier };
}

/** The #N a brief line ends with. */
export function briefRef(line: string): number {
  const at = line.lastIndexOf(" (#");
  return at < 0 ? -1 : Number(line.slice(at + 3, -1));
}
