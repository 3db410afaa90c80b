// The brief transcript: the summarized window as one line per user/assistant message and per tool
// call, each ending in the `(#N)` of the block it describes (the global block number recall expands).
import { type FactsBlock, toolCommand, toolPath } from "@context-fold/extractors";
import { endBriefLines, keepBriefLine, preparedBriefLine, startBriefLines } from "./summary-parts.js";
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

/** Code units of a text's head `oneLine()` reads (see `makesLine`). */
const HEAD = BRIEF_TEXT_MAX * 2 + 64;

/** Whether UTF-16 code unit `c` is whitespace as the regex class `\s` counts it. */
function isSpaceCode(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  if (c < 0xa0) return false;
  return (
    c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff
  );
}

/** Whether `briefLine` gives a line for `b` (without building it, or any string). */
function makesLine(b: BriefBlock): boolean {
  if (b.kind === "user" || b.kind === "toolCall" || b.kind === "bash") return true;
  if (b.kind !== "text") return false;
  // Same head oneLine() reads: a text part makes a line when that head is not all whitespace.
  const text = b.text;
  const end = Math.min(text.length, HEAD);
  for (let i = 0; i < end; i++) if (!isSpaceCode(text.charCodeAt(i))) return true;
  return false;
}

/** Brief lines for `blocks` (ascending #N), tool results folded into their call's line as a failure mark. */
export function briefLines(blocks: readonly BriefBlock[]): string[] {
  return briefTail(blocks, Number.POSITIVE_INFINITY).lines;
}

const NO_FAILED: ReadonlySet<string> = new Set();

/**
 * `briefLine`, with the unmarked lines the last prepared brief built taken from it (summary-parts'
 * `preparedBriefLine`) and those built or found now kept for the next (`keepBriefLine`, while preparing):
 * an unmarked line is a function of its block alone. A failed call's marked line is built each time.
 */
function carriedLine(b: BriefBlock, failed: ReadonlySet<string>): string | null {
  if (b.kind === "toolCall" && b.toolCallId !== undefined && failed.has(b.toolCallId)) return briefLine(b, failed);
  const held = preparedBriefLine(b);
  if (held !== undefined) return keepBriefLine(b, held);
  const line = briefLine(b, failed);
  return line === null ? null : keepBriefLine(b, line);
}

/**
 * The last `limit` brief lines and how many lines come before them, building only the lines kept
 * (a long window costs what its tail costs). Walked back from the end: a call's result comes after it,
 * so the failed results met so far mark the calls met next, and the window before the lines kept is only
 * counted. A failed result before its call's line (never in a Pi session) takes the whole-window pass.
 */
export function briefTail(blocks: readonly BriefBlock[], limit: number): { lines: string[]; earlier: number } {
  return briefTailOf(blocks, limit, false);
}

/**
 * `briefTail` as a prepare builds it: each unmarked line found among the last prepared brief's (see
 * `carriedLine`), and the lines built or found now kept for the next (summary-parts' `startBriefLines` /
 * `endBriefLines`, which only a prepare's writable parts take).
 */
export function carriedBriefTail(blocks: readonly BriefBlock[], limit: number): { lines: string[]; earlier: number } {
  startBriefLines();
  try {
    return briefTailOf(blocks, limit, true);
  } finally {
    endBriefLines();
  }
}

/** `briefTail`; with `carried`, each unmarked line found among the last prepared brief's (see `carriedLine`). */
function briefTailOf(blocks: readonly BriefBlock[], limit: number, carried: boolean): { lines: string[]; earlier: number } {
  let failed: Set<string> | undefined;
  /** Ids of the calls whose line was built without a failure mark. */
  const unmarked: string[] = [];
  const lines: string[] = [];
  let i = blocks.length - 1;
  for (; i >= 0 && lines.length < limit; i--) {
    const b = blocks[i];
    if (b === undefined) continue;
    if (b.kind === "toolResult") {
      if (b.isError === true && b.toolCallId !== undefined) {
        if (unmarked.includes(b.toolCallId)) return briefTailWhole(blocks, limit);
        (failed ??= new Set()).add(b.toolCallId);
      }
      continue;
    }
    const line = carried ? carriedLine(b, failed ?? NO_FAILED) : briefLine(b, failed ?? NO_FAILED);
    if (line === null) continue;
    lines.push(line);
    if (b.kind === "toolCall" && b.toolCallId !== undefined && failed?.has(b.toolCallId) !== true) unmarked.push(b.toolCallId);
  }
  let earlier = 0;
  for (; i >= 0; i--) {
    const b = blocks[i];
    if (b === undefined) continue;
    if (b.kind === "toolResult") {
      if (b.isError === true && b.toolCallId !== undefined && unmarked.includes(b.toolCallId)) return briefTailWhole(blocks, limit);
    } else if (makesLine(b)) earlier++;
  }
  return { lines: lines.reverse(), earlier };
}

/** `briefTail` with the failed calls of the whole window gathered first (any order of calls and results). */
function briefTailWhole(blocks: readonly BriefBlock[], limit: number): { lines: string[]; earlier: number } {
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
