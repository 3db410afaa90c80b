// Outstanding context across compactions whose facts cover only their own window: the new facts are
// authoritative for the items they name (same command, same diagnostic); earlier unresolved items they
// do not name are carried forward, resolved when the window dealt with them (the same command later
// succeeded, the file named was edited), as the extractors resolve items within one extraction.
import { toolCommand, trailingExitCode } from "@context-fold/extractors";
import type { BriefBlock } from "./brief.js";
import type { OutstandingDoc } from "./summary-doc.js";
import { flat } from "./summary-syntax.js";

/** What a window did that can settle an item of an earlier summary. */
export interface WindowActivity {
  /** Shell command (as an outstanding line prints it) → #N of its last successful run. */
  readonly succeeded: ReadonlyMap<string, number>;
  /** Files modified in the window, with the #N of the last modification. */
  readonly modified: readonly { readonly path: string; readonly index: number }[];
  /** #N of the last modification of any file, or null when nothing was modified. */
  readonly lastModification: number | null;
}

/** Labels of shell-command items: `bash:exit 2`, `!cmd:exit 1`, `bash:errors`. */
const COMMAND_LABEL = /^(?:bash|!cmd):(?:exit -?\d{1,6}|errors)$/;
const NO_MATCHES = "no matches";
const ARROW = " → ";
/** Characters of a command an outstanding line keeps (the extractors' one-line command). */
const COMMAND_MAX = 120;
/** Token separators when looking for file paths in an item's text (one class: linear). */
const TOKEN_SPLIT = /[\s():,;'"`[\]<>{}=]+/;

/** A command as the extractors print it in an outstanding line: first line (" …" if more), clipped. */
export function commandLine(command: string): string {
  const nl = command.indexOf("\n");
  const first = (nl >= 0 ? `${command.slice(0, nl)} …` : command).trim();
  return flat(first.length > COMMAND_MAX ? `${first.slice(0, COMMAND_MAX - 1)}…` : first);
}

const isCommandItem = (o: OutstandingDoc): boolean => COMMAND_LABEL.test(o.label) || o.label === NO_MATCHES;

/** The command an item is about (shell items only), as printed. */
function commandOf(o: OutstandingDoc): string | null {
  if (!isCommandItem(o)) return null;
  const arrow = o.text.indexOf(ARROW);
  return arrow < 0 ? o.text : o.text.slice(0, arrow);
}

/** Identity of an item across summaries: its command for shell items, else label and text. */
function keyOf(o: OutstandingDoc): string {
  const command = COMMAND_LABEL.test(o.label) ? commandOf(o) : null;
  return command !== null ? `cmd\u0000${command}` : `${o.label}\u0000${o.text}`;
}

/** A path without leading `./` and `../` segments: compilers print paths relative to where they ran. */
function bare(path: string): string {
  let p = path;
  while (p.startsWith("./") || p.startsWith("../")) p = p.slice(p.indexOf("/") + 1);
  return p;
}

/** Same file when one path ends with the other (whole segments), leading `./` `../` aside. */
function sameFile(a: string, b: string): boolean {
  const x = bare(a);
  const y = bare(b);
  if (x === "" || y === "") return false;
  return x === y || x.endsWith(`/${y}`) || y.endsWith(`/${x}`);
}

/** The window's successful shell runs and file modifications, from its blocks and facts. */
export function windowActivity(
  blocks: readonly BriefBlock[],
  files: readonly { readonly path: string; readonly lastModifiedIndex?: number | undefined }[],
): WindowActivity {
  const calls = new Map<string, string>();
  const succeeded = new Map<string, number>();
  for (const b of blocks) {
    if (b.kind === "toolCall") {
      const command = toolCommand(b.toolName, b.args);
      if (command !== undefined && b.toolCallId !== undefined) calls.set(b.toolCallId, command);
    } else if (b.kind === "toolResult" && b.toolCallId !== undefined) {
      const command = calls.get(b.toolCallId);
      if (command === undefined) continue;
      calls.delete(b.toolCallId);
      const exit = trailingExitCode(b.text) ?? (b.isError === true ? 1 : 0);
      if (exit === 0 && b.isError !== true) succeeded.set(commandLine(command), b.index);
    } else if (b.kind === "bash") {
      const command = b.args?.["command"];
      if (typeof command === "string" && b.isError !== true && (b.exitCode ?? 0) === 0) succeeded.set(commandLine(command), b.index);
    }
  }
  const modified: { path: string; index: number }[] = [];
  let lastModification: number | null = null;
  for (const f of files) {
    if (f.lastModifiedIndex === undefined) continue;
    modified.push({ path: f.path, index: f.lastModifiedIndex });
    lastModification = Math.max(lastModification ?? f.lastModifiedIndex, f.lastModifiedIndex);
  }
  return { succeeded, modified, lastModification };
}

/** #N of the window block that settled `o` (its command succeeded, its file was edited), or null. */
function settledBy(o: OutstandingDoc, window: WindowActivity): number | null {
  const command = commandOf(o);
  if (command !== null) {
    const at = window.succeeded.get(command);
    return at !== undefined && at > o.index ? at : null;
  }
  // A blocker the user reported counts as handled once files changed afterwards.
  if (o.label === "user") return window.lastModification !== null && window.lastModification > o.index ? window.lastModification : null;
  let at: number | null = null;
  for (const token of o.text.split(TOKEN_SPLIT)) {
    if (!token.includes(".") && !token.includes("/")) continue;
    for (const m of window.modified) if (m.index > o.index && sameFile(token, m.path)) at = Math.max(at ?? m.index, m.index);
  }
  return at;
}

const SEVERITY: Record<OutstandingDoc["tag"], number> = { ERROR: 0, WARN: 1, INFO: 2, RESOLVED: 3 };

/**
 * `next`'s items (authoritative for what they name) plus `previous`'s items they do not name, the
 * open ones the window settled marked RESOLVED; ordered as the extractors order them (unresolved by
 * severity, then resolved; session order within). Resolved items stay, as a lineage-wide extraction
 * keeps them: the caps and the budget trim them first, counted.
 */
export function mergeOutstanding(previous: readonly OutstandingDoc[], next: readonly OutstandingDoc[], window: WindowActivity | null): OutstandingDoc[] {
  const named = new Set(next.map(keyOf));
  const carried: OutstandingDoc[] = [];
  for (const o of previous) {
    if (named.has(keyOf(o))) continue;
    const at = o.tag === "RESOLVED" || window === null ? null : settledBy(o, window);
    carried.push(at === null ? o : { ...o, tag: "RESOLVED", resolvedIndex: at });
  }
  return [...carried, ...next].map((o, i) => ({ o, i })).sort((a, b) => SEVERITY[a.o.tag] - SEVERITY[b.o.tag] || a.o.index - b.o.index || a.i - b.i).map((x) => x.o);
}
