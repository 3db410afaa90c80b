// What a compaction must keep, read straight from the ledger with deliberately simple rules (never
// through the extractors, so the evaluation cannot inherit their mistakes): the first user message
// (a lone slash command like "/mode" is typed to the harness and skipped),
// corrections by their opening words, files from edit/write arguments, commits from git's
// `[branch hash] subject` lines, and unresolved errors (the manifest's, or failing commands never re-run).
import { checksRemovedPaths } from "@context-fold/extractors";
import { blocksOfEntry, lineageBlocks, type Block, type Session } from "@context-fold/ledger-reader";
import type { EvalManifest } from "./eval-manifest.js";
import { collapseWhitespace } from "./text-match.js";

export interface TruthText {
  readonly text: string;
  /** `#N` of the block it came from (null: not found in the ledger). */
  readonly index: number | null;
}

export interface TruthFile {
  /** The path as the tool call gave it. */
  readonly path: string;
  /** Spellings that count as naming it: the path, cwd-relative, without "./". */
  readonly forms: readonly string[];
  /** `#N` of the last successful edit/write. */
  readonly index: number;
}

export interface TruthCommit {
  readonly hash: string;
  readonly subject: string;
  readonly index: number;
}

export interface TruthError extends TruthText {
  /** manifest: the generator's errorsOpenAtEnd; command: a failing command never re-run successfully. */
  readonly source: "manifest" | "command";
}

/** The items of the summarized part of the lineage (everything before the kept tail). */
export interface GroundTruth {
  /** First entry kept after the cut; null: nothing kept (the whole lineage summarized). */
  readonly cutEntryId: string | null;
  readonly windowBlocks: number;
  readonly foundingRequest: TruthText | null;
  readonly corrections: readonly TruthText[];
  readonly modifiedFiles: readonly TruthFile[];
  readonly commits: readonly TruthCommit[];
  readonly unresolvedErrors: readonly TruthError[];
  /** Unresolved errors that first show up in the kept tail (still in context; not expected in the summary). */
  readonly errorsInTail: number;
}

/** Lineage position of every lineage entry, and the position the kept tail starts at. */
export interface LineageCut {
  readonly position: ReadonlyMap<string, number>;
  readonly cutAt: number;
}

export function lineageCut(session: Session, cutEntryId: string | null): LineageCut {
  const position = new Map<string, number>();
  session.lineage.forEach((entry, i) => position.set(entry.id, i));
  const at = cutEntryId === null ? undefined : position.get(cutEntryId);
  return { position, cutAt: at ?? session.lineage.length };
}

/** Is the block on the lineage before the cut? */
export function inWindow(cut: LineageCut, block: Block): boolean {
  const p = cut.position.get(block.entryId);
  return p !== undefined && p < cut.cutAt;
}

const CORRECTION_OPENINGS = [
  "no,",
  "no.",
  "no!",
  "no ",
  "nope",
  "actually",
  "wait,",
  "wait ",
  "stop",
  "wrong",
  "that's wrong",
  "that's not",
  "thats not",
  "that is not",
  "not what i",
  "not like that",
  "don't",
  "dont ",
  "do not",
  "instead,",
];

/** The simple rule: a user message that opens by contradicting or redirecting the agent. */
export function isCorrectionText(text: string): boolean {
  const head = text.trimStart().slice(0, 24).toLowerCase().replace(/\u2019/g, "'");
  return CORRECTION_OPENINGS.some((opening) => head.startsWith(opening));
}

/** Blank, or a lone slash command ("/mode", "/"): typed to the harness, not a request to the agent. */
export function isHarnessCommand(text: string): boolean {
  const t = text.trim();
  return t === "" || (t.startsWith("/") && !t.includes(" ") && !t.includes("\n"));
}

const EDIT_TOOLS: ReadonlySet<string> = new Set(["edit", "write", "multiedit", "multi_edit", "str_replace_editor", "create"]);

function pathArg(args: Readonly<Record<string, unknown>> | undefined): string | null {
  if (args === undefined) return null;
  for (const key of ["path", "file_path", "filePath"]) {
    const v = args[key];
    if (typeof v === "string" && v.trim() !== "") return v.trim();
  }
  return null;
}

/** Spellings of a path a summary may use: as given, relative to the session's cwd, without "./". */
export function pathForms(path: string, cwd: string | undefined): string[] {
  const forms = new Set<string>([path]);
  if (cwd !== undefined && cwd !== "") {
    const root = cwd.endsWith("/") ? cwd : `${cwd}/`;
    if (path.startsWith(root) && path.length > root.length) forms.add(path.slice(root.length));
  }
  for (const f of [...forms]) if (f.startsWith("./") && f.length > 2) forms.add(f.slice(2));
  return [...forms];
}

const HEX = /^[0-9a-f]{7,40}$/;

/** `[main 1a2b3c4] subject` / `[main (root-commit) 1a2b3c4] subject` → hash and subject; no regex over the line. */
export function parseCommitLine(line: string): { hash: string; subject: string } | null {
  if (line.charCodeAt(0) !== 91) return null; // "["
  const close = line.indexOf("]");
  if (close < 0 || close > 200) return null;
  const inner = line.slice(1, close);
  const space = inner.lastIndexOf(" ");
  if (space <= 0) return null;
  const hash = inner.slice(space + 1);
  if (!HEX.test(hash)) return null;
  return { hash, subject: line.slice(close + 1).trim() };
}

function isOutput(block: Block): boolean {
  return block.kind === "toolResult" || block.kind === "bash";
}

function commandOf(block: Block): string | null {
  const c = block.args?.["command"];
  return typeof c === "string" && c.trim() !== "" ? collapseWhitespace(c) : null;
}

/**
 * Programs whose non-zero exit means "not found" rather than "broken" (grep with no match, ls of a
 * missing path): a command made only of these is never an unresolved error.
 */
const PROBES: ReadonlySet<string> = new Set(["grep", "rg", "ag", "find", "ls", "test", "[", "which", "diff", "cat", "head", "tail", "wc", "cd", "echo"]);

/** First word of each `&&`, `||`, `;` or `|` piece of a command (quotes and backslash escapes respected). One pass, no regex. */
export function programsOf(command: string): string[] {
  const out: string[] = [];
  let piece = "";
  let quote = "";
  const flush = (): void => {
    const word = piece.trim().split(" ")[0];
    if (word !== undefined && word !== "") out.push(word);
    piece = "";
  };
  for (let i = 0; i < command.length; i++) {
    const c = command[i] ?? "";
    if (c === "\\" && quote !== "'") {
      piece += c + (command[i + 1] ?? "");
      i++;
    } else if (quote !== "") {
      if (c === quote) quote = "";
      piece += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      piece += c;
    } else if (c === ";" || c === "|" || (c === "&" && command[i + 1] === "&")) {
      flush();
      if (c !== ";" && command[i + 1] === c) i++;
    } else piece += c;
  }
  flush();
  return out;
}

function isProbe(command: string): boolean {
  return programsOf(command).every((p) => PROBES.has(p.slice(p.lastIndexOf("/") + 1)));
}

/** How much of a failing command the summary must show to count as naming it (long commands get clipped). */
export const COMMAND_MATCH_CHARS = 48;

/** Reads the ground truth of the lineage before `cutEntryId`. Pure. */
export function groundTruth(session: Session, cutEntryId: string | null, manifest?: EvalManifest): GroundTruth {
  const cut = lineageCut(session, cutEntryId);
  const along = new GroundTruthAlong(session.header.cwd, manifest);
  for (const b of lineageBlocks(session)) along.add(b, inWindow(cut, b));
  return along.truth(cutEntryId);
}

/** A failing-or-not command on the lineage, kept until the tool results after it are known. */
interface CommandRun {
  readonly command: string;
  readonly index: number;
  readonly inWindow: boolean;
  /** A tool call's id (its result decides), or undefined for a `!command` block (its own isError decides). */
  readonly toolCallId: string | undefined;
  readonly isError: boolean;
}

/**
 * `groundTruth` read along the lineage, block by block in lineage order (whole or streamed), each told
 * whether it is before the cut: it keeps the founding request, the corrections and the commits found,
 * the edits and commands with their #N (not their blocks), and the ids of tool calls whose result failed,
 * so a streamed read holds what the answer needs and not the session.
 */
export class GroundTruthAlong {
  readonly #cwd: string | undefined;
  readonly #manifest: EvalManifest | undefined;
  #windowBlocks = 0;
  #foundingRequest: TruthText | null = null;
  readonly #corrections: TruthText[] = [];
  readonly #edits: { path: string; index: number; toolCallId: string | undefined }[] = [];
  readonly #commits = new Map<string, TruthCommit>();
  /** Tool calls whose result (the last one read with their id) is an error. */
  readonly #failedCalls = new Set<string>();
  /**
   * The last run of each command: only it decides whether the command is left failing (a run that
   * failed is undone by a later one that did not, and the other way round), and the errors are listed
   * by `#N`, not in the order the commands were met. One slot per command, not per run (the runs of the
   * 1 GB bench session were ~14 MB under eval's compaction).
   */
  readonly #lastRuns = new Map<string, CommandRun>();
  /** The manifest's open errors: where each first shows in a tool output, once found. */
  readonly #manifestAt: ({ index: number; inWindow: boolean } | undefined)[];

  constructor(cwd: string | undefined, manifest?: EvalManifest) {
    this.#cwd = cwd;
    this.#manifest = manifest;
    this.#manifestAt = manifest === undefined ? [] : manifest.errorsOpenAtEnd.map(() => undefined);
  }

  /** The next lineage block; `inWindow`: on the lineage before the cut. */
  add(b: Block, inWindow: boolean): void {
    if (b.kind === "toolResult" && b.toolCallId !== undefined) {
      if (b.isError === true) this.#failedCalls.add(b.toolCallId);
      else this.#failedCalls.delete(b.toolCallId);
    }
    if (inWindow) {
      this.#windowBlocks++;
      if (b.kind === "user") {
        if (this.#foundingRequest === null) {
          if (!isHarnessCommand(b.text)) this.#foundingRequest = { text: b.text, index: b.index };
        } else if (isCorrectionText(b.text)) this.#corrections.push({ text: b.text, index: b.index });
      } else if (b.kind === "toolCall" && EDIT_TOOLS.has((b.toolName ?? "").toLowerCase())) {
        const path = pathArg(b.args);
        if (path !== null) this.#edits.push({ path, index: b.index, toolCallId: b.toolCallId });
      } else if (isOutput(b) && b.text.includes("] ")) {
        for (const line of b.text.split("\n")) {
          const commit = parseCommitLine(line);
          if (commit !== null && !this.#commits.has(commit.hash)) this.#commits.set(commit.hash, { ...commit, index: b.index });
        }
      }
    }
    if (this.#manifest !== undefined) {
      if (!isOutput(b)) return;
      this.#manifest.errorsOpenAtEnd.forEach((text, i) => {
        if (this.#manifestAt[i] === undefined && b.text.includes(text)) this.#manifestAt[i] = { index: b.index, inWindow };
      });
      return;
    }
    // A command that failed and was never run again successfully, later on the lineage (tail included).
    const isCall = b.kind === "toolCall" && (b.toolName ?? "").toLowerCase() === "bash";
    if (!isCall && b.kind !== "bash") return;
    const command = commandOf(b);
    // A line ending in a check of the paths it removed (`rm -f x; ls x`) fails as the check's answer
    // ("gone"), as the summary's own outcome rule reads it (one rule: extractors' checksRemovedPaths, on
    // the command as written, newlines included).
    if (command === null || isProbe(command) || checksRemovedPaths(b.args?.["command"] as string)) return;
    this.#lastRuns.set(command, { command, index: b.index, inWindow, toolCallId: isCall ? b.toolCallId : undefined, isError: !isCall && b.isError === true });
  }

  /** The ground truth of the blocks added, for the cut at `cutEntryId`. */
  truth(cutEntryId: string | null): GroundTruth {
    const failed = (toolCallId: string | undefined): boolean => toolCallId !== undefined && this.#failedCalls.has(toolCallId);
    const files = new Map<string, TruthFile>();
    for (const edit of this.#edits) if (!failed(edit.toolCallId)) files.set(edit.path, { path: edit.path, forms: pathForms(edit.path, this.#cwd), index: edit.index });

    const unresolvedErrors: TruthError[] = [];
    let errorsInTail = 0;
    if (this.#manifest !== undefined) {
      this.#manifest.errorsOpenAtEnd.forEach((text, i) => {
        const at = this.#manifestAt[i];
        if (at !== undefined && !at.inWindow) errorsInTail++;
        else unresolvedErrors.push({ text, index: at?.index ?? null, source: "manifest" });
      });
    } else {
      for (const [command, run] of this.#lastRuns) {
        const didFail = run.toolCallId === undefined ? run.isError : failed(run.toolCallId);
        if (!didFail) continue;
        if (!run.inWindow) {
          errorsInTail++;
          continue;
        }
        unresolvedErrors.push({ text: command, index: run.index, source: "command" });
      }
      unresolvedErrors.sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
    }

    return {
      cutEntryId,
      windowBlocks: this.#windowBlocks,
      foundingRequest: this.#foundingRequest,
      corrections: this.#corrections,
      modifiedFiles: [...files.values()],
      commits: [...this.#commits.values()],
      unresolvedErrors,
      errorsInTail,
    };
  }
}

/** The blocks of a manifest needle's entry that hold its value (the needle's location in the ledger). */
export function locateInEntry(session: Session, entryId: string, value: string): Block | undefined {
  const entry = session.byId.get(entryId);
  if (entry === undefined) return undefined;
  return blocksOfEntry(session, entry).find((b) => b.text.includes(value));
}
