// Incremental extraction of summary facts and durable artifacts: blocks go in turn by turn, state is
// updated in O(new text), and snapshots are built from the state (never by re-reading old blocks).

import { posix } from "node:path";
import { errorLines } from "../lexicon/errors.js";
import { cleanPath, normalizePath } from "../lexicon/paths.js";
import { hexLiterals, hexTokens, isCommitHash } from "../artifacts/hex-constants.js";
import { extractSymbols, languageOf } from "../symbols/extract-symbols.js";
import { diagnosticsGist, failureGist, parseDiagnostics, trailingExitCode } from "./diagnostics.js";
import { parseGitCommits, reportedCommits, type ParsedCommit } from "./git-commits.js";
import { classifyTool, newContent, PATH_KEYS, type ToolClass } from "../tool-calls/tool-class.js";
import { commandDir, commandKey, isSearchCommand, shellWrites, shortCommand, withoutLeadingCd } from "./shell-command.js";
import type {
  CommitFact,
  DurableArtifacts,
  ErrorLedgerEntry,
  ExtractOptions,
  FactsAccumulator,
  FactsBlock,
  FileFact,
  FileStatus,
  HexConstant,
  OutstandingItem,
  OutstandingSource,
  SessionFacts,
  Severity,
  TurnLine,
  TypeCatalogEntry,
  UserStatement,
  WorkingCommand,
} from "./types.js";
import { StatementLedger } from "./statement-ledger.js";
import {
  blockerLine,
  firstLine,
  firstSentence,
  isBareMessage,
  isCorrection,
  isScopeChange,
  isSubstantive,
  nextSteps,
  preferenceSentences,
} from "./user-text.js";

/** Caps of the type catalog (pi-vcc's: 8 signatures per file, 12 files). */
export const TYPE_CATALOG_PER_FILE = 8;
export const TYPE_CATALOG_FILES = 12;
const MAX_SYMBOLS_PER_FILE = 24;
const MAX_SIGNATURES_KEPT = 16;
const MAX_HEX = 64;
/** Of which at most this many from tool output, so magic numbers in code never crowd out what people wrote. */
const MAX_HEX_FROM_TOOLS = 24;
const MAX_PREFERENCES = 40;
/** Failure lines taken from one clean-exit output. */
const MAX_OUTPUT_FAILURES = 3;
/**
 * Failure lines that stand for a failure even when the command exited 0 (bounded, no nesting; run on
 * error lines of at most 240 chars): fatal/panic/traceback lines, an ERROR log level, "failed to
 * apply/start/…", a migration that failed.
 */
const STRONG_FAILURE =
  /\b(?:FATAL|[Ff]atal|PANIC|panic:|Traceback|Segmentation fault|core dumped|Uncaught|Unhandled)|\bERROR\b|\b(?:[Ff]ailed|FAILED) to (?:apply|start|connect|bind|load|migrate|run|open|listen)\b|\b[Mm]igrations?\b[^\n]{0,80}\b(?:failed|FAILED)\b/;

function isStrongFailure(line: string): boolean {
  return STRONG_FAILURE.test(line);
}

function str(args: Readonly<Record<string, unknown>> | undefined, ...keys: string[]): string | undefined {
  if (args === undefined) return undefined;
  for (const k of keys) {
    const v = args[k];
    if (typeof v === "string" && v.length > 0) return v;
  }
  return undefined;
}

function pathArg(args: Readonly<Record<string, unknown>> | undefined): string | undefined {
  return str(args, ...PATH_KEYS);
}

const STATUS_RANK: Readonly<Record<FileStatus, number>> = { read: 0, modified: 1, created: 2 };
const SEVERITY_RANK: Readonly<Record<Severity, number>> = { ERROR: 0, WARN: 1, INFO: 2 };

interface FileState {
  path: string;
  status: FileStatus;
  symbols: string[];
  symbolSet: Set<string>;
  signatures: string[];
  sigIndex: number;
  firstIndex: number;
  lastIndex: number;
  lastModifiedIndex: number | undefined;
}

interface Item {
  key: string;
  severity: Severity;
  resolved: boolean;
  resolvedIndex: number | undefined;
  text: string;
  source: OutstandingSource;
  label: string;
  file: string | undefined;
  command: string | undefined;
  /** Every command whose output reported it: any of them succeeding cleanly resolves it. */
  commandKeys: Set<string>;
  errorId: string | undefined;
  turn: number;
  index: number;
  order: number;
}

interface PendingCall {
  cls: ToolClass;
  toolName: string;
  args: Readonly<Record<string, unknown>> | undefined;
  index: number;
}

interface TurnState {
  turn: number;
  index: number;
  ask: string;
  reads: string[];
  edits: string[];
  writes: string[];
  runs: string[];
  cached: string | undefined;
}

class Accumulator implements FactsAccumulator {
  private readonly cwd: string | undefined;
  private last = -1;
  private count = 0;

  private goal: UserStatement | null = null;
  private readonly initialPrompts: UserStatement[] = [];
  private initialDone = false;
  private readonly scopeChanges: UserStatement[] = [];
  private readonly preferences: UserStatement[] = [];
  private readonly preferenceSeen = new Set<string>();
  private readonly corrections: UserStatement[] = [];
  private readonly statements = new StatementLedger();

  private readonly files = new Map<string, FileState>();
  /** basename → paths, for matching diagnostics printed relative to another directory. */
  private readonly byBase = new Map<string, string[]>();
  private readonly commits: CommitFact[] = [];
  private readonly commitSeen = new Set<string>();

  private readonly items = new Map<string, Item>();
  private itemOrder = 0;
  /** Open items that name a file, by basename of that file. */
  private readonly openByBase = new Map<string, Set<Item>>();
  /** Open items by command key. */
  private readonly openByCommand = new Map<string, Set<Item>>();
  private readonly openUserBlockers = new Set<Item>();
  private modificationCount = 0;

  /** command key → last failing #N (cleared on success). */
  private readonly failedCommands = new Map<string, { command: string; index: number }>();
  private readonly working = new Map<string, WorkingCommand>();

  private readonly hex = new Map<string, HexConstant>();
  private readonly pending = new Map<string, PendingCall>();
  private readonly turns: TurnState[] = [];

  private focus: { text: string; index: number } | null = null;
  private lastModification: { text: string; index: number } | undefined;
  private lastAssistantText: { text: string; index: number; afterFocus: boolean } | null = null;
  /** The last user message and the last tool call: what a question left at the end waits on. */
  private lastUser: { text: string; index: number; turn: number } | null = null;
  private lastCallIndex = -1;
  private first = -1;

  constructor(options: ExtractOptions) {
    this.cwd = options.cwd;
  }

  get blockCount(): number {
    return this.count;
  }

  get lastIndex(): number {
    return this.last;
  }

  add(blocks: Iterable<FactsBlock>): void {
    for (const b of blocks) {
      if (b.index <= this.last) continue;
      this.last = b.index;
      if (this.first < 0) this.first = b.index;
      this.count++;
      this.addBlock(b);
    }
  }

  private addBlock(b: FactsBlock): void {
    switch (b.kind) {
      case "user":
        this.addUser(b);
        return;
      case "text":
        this.lastAssistantText = { text: b.text, index: b.index, afterFocus: true };
        this.addHex(b.text, b.index);
        return;
      case "toolCall":
        this.lastCallIndex = b.index;
        this.addToolCall(b);
        return;
      case "toolResult":
        this.addToolResult(b);
        return;
      case "bash":
        this.addShellResult(b, str(b.args, "command") ?? "", b.exitCode ?? (b.isError === true ? 1 : 0), b.text, "!cmd");
        return;
      default:
        return;
    }
  }

  // ---- user messages -------------------------------------------------------------------------

  private addUser(b: FactsBlock): void {
    const text = b.text;
    const stmt: UserStatement = { text, turn: b.turn, index: b.index };
    const substantive = isSubstantive(text);
    // A new user turn: blockers reported earlier count as handled when files changed since.
    for (const item of this.openUserBlockers) {
      if (item.turn < b.turn && this.modificationCount > 0) {
        item.resolved = true;
        item.resolvedIndex = b.index;
        this.openUserBlockers.delete(item);
      }
    }
    this.modificationCount = 0;
    if (!this.initialDone) {
      this.initialPrompts.push(stmt);
      if (substantive || this.initialPrompts.length >= 3) {
        this.initialDone = true;
        if (substantive) this.goal = stmt;
      }
    } else if (substantive) {
      if (isCorrection(text)) this.corrections.push(stmt);
      else if (isScopeChange(text)) this.scopeChanges.push(stmt);
    }
    if (this.goal === null && substantive) this.goal = stmt;
    if (this.goal === stmt) this.statements.setGoal(text);
    else if (!isBareMessage(text)) this.statements.add(stmt);
    if (this.preferences.length < MAX_PREFERENCES) {
      for (const s of preferenceSentences(text)) {
        const k = s.toLowerCase();
        if (this.preferenceSeen.has(k) || this.preferences.length >= MAX_PREFERENCES) continue;
        this.preferenceSeen.add(k);
        this.preferences.push({ text: s, turn: b.turn, index: b.index });
      }
    }
    const blocker = blockerLine(text);
    if (blocker !== null) {
      const item = this.upsertItem({
        key: `user|${blocker.toLowerCase()}`,
        severity: "WARN",
        source: "user",
        label: "user",
        text: blocker,
        file: undefined,
        command: undefined,
        errorId: undefined,
        turn: b.turn,
        index: b.index,
      });
      this.openUserBlockers.add(item);
    }
    if (substantive) this.focus = { text: firstSentence(text, 200), index: b.index };
    this.lastAssistantText = null;
    this.lastUser = { text, index: b.index, turn: b.turn };
    this.turns.push({ turn: b.turn, index: b.index, ask: firstSentence(text, 100), reads: [], edits: [], writes: [], runs: [], cached: undefined });
    this.addHex(text, b.index);
  }

  // ---- tool calls and results ----------------------------------------------------------------

  private addToolCall(b: FactsBlock): void {
    const cls = classifyTool(b.toolName, b.args);
    const call: PendingCall = { cls, toolName: b.toolName ?? "", args: b.args, index: b.index };
    if (b.toolCallId !== undefined) this.pending.set(b.toolCallId, call);
    else this.pending.set(`#${b.index}`, call);
  }

  private takeCall(b: FactsBlock): PendingCall {
    if (b.toolCallId !== undefined) {
      const call = this.pending.get(b.toolCallId);
      if (call !== undefined) {
        this.pending.delete(b.toolCallId);
        return call;
      }
    }
    return { cls: classifyTool(b.toolName, b.args), toolName: b.toolName ?? "", args: b.args, index: b.index };
  }

  private addToolResult(b: FactsBlock): void {
    const call = this.takeCall(b);
    if (this.hexFromTools < MAX_HEX_FROM_TOOLS && this.hex.size < MAX_HEX) this.addToolHex(b.text, b.index);
    const rawPath = pathArg(call.args);
    const path = rawPath !== undefined ? cleanPath(rawPath, this.cwd) : undefined;
    const turn = this.currentTurn();
    switch (call.cls) {
      case "shell": {
        const command = str(call.args, "command", "cmd", "script") ?? "";
        const exit = trailingExitCode(b.text) ?? (b.isError === true ? 1 : 0);
        this.addShellResult(b, command, exit, b.text, call.toolName || "bash");
        return;
      }
      case "read":
        if (path === undefined) return;
        if (b.isError === true) {
          this.toolError(b, call, path);
          return;
        }
        this.touchFile(path, "read", b.index, b.text);
        turn?.reads.push(path);
        if (turn !== undefined) turn.cached = undefined;
        return;
      case "edit":
      case "write":
        if (path === undefined) return;
        if (b.isError === true) {
          this.toolError(b, call, path);
          return;
        }
        this.modifyFile(path, call.cls, call.args, b.index);
        if (turn !== undefined) {
          (call.cls === "write" ? turn.writes : turn.edits).push(path);
          turn.cached = undefined;
        }
        return;
      case "search": {
        const pattern = str(call.args, "pattern", "query", "glob", "regex", "name") ?? path ?? "";
        if (b.isError === true) {
          this.toolError(b, call, path);
          return;
        }
        const t = b.text.trim();
        if (t.length === 0 || /^(?:no (?:matches|files|results)(?: found)?|0 (?:matches|results|files))\b/i.test(t.slice(0, 80))) {
          this.upsertItem({
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
        else this.addCommits([...parseGitCommits(b.text, undefined), ...reportedCommits(b.text)], b);
        return;
    }
  }

  /**
   * Failure lines a clean exit does not rule out: a service log's fatal line, a migration that failed
   * to apply, a traceback printed by a runner that exits 0. Head and tail of the output, a few lines.
   */
  private addOutputFailures(b: FactsBlock, command: string, key: string, output: string): void {
    const scan = output.length > 128 * 1024 ? `${output.slice(0, 64 * 1024)}\n${output.slice(-64 * 1024)}` : output;
    let n = 0;
    for (const line of errorLines(scan)) {
      if (n >= MAX_OUTPUT_FAILURES) break;
      if (!isStrongFailure(line)) continue;
      n += 1;
      this.upsertItem({
        key: `output|${key}|${line}`,
        severity: "WARN",
        source: "output",
        label: "output",
        text: `${shortCommand(command)} → ${line.trim()}`,
        file: undefined,
        command: shortCommand(command),
        commandKey: key,
        errorId: undefined,
        turn: b.turn,
        index: b.index,
      });
    }
  }

  private addCommits(found: readonly ParsedCommit[], b: FactsBlock): void {
    for (const c of found) {
      if ([...this.commitSeen].some((h) => h.startsWith(c.hash) || c.hash.startsWith(h))) continue;
      this.commitSeen.add(c.hash);
      this.commits.push({ ...c, turn: b.turn, index: b.index });
    }
  }

  private toolError(b: FactsBlock, call: PendingCall, path: string | undefined): void {
    const gist = firstLine(b.text, 200);
    this.upsertItem({
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

  private addShellResult(b: FactsBlock, command: string, exit: number, output: string, label: string): void {
    const key = commandKey(command, this.cwd);
    const turn = this.currentTurn();
    if (turn !== undefined && command.length > 0) {
      turn.runs.push(shortCommand(command, 60));
      turn.cached = undefined;
    }
    this.addCommits(parseGitCommits(output, command.length > 0 ? command : undefined), b);
    // A clean exit of an unpiped command cannot carry failing tests or compiler errors (runners and
    // compilers exit non-zero on them), so its output is not scanned: most big outputs are skipped here.
    const diagnostics = exit !== 0 || command.includes("|") || command.length === 0 ? parseDiagnostics(output) : [];
    // Compilers print paths relative to where they ran: resolve against the command's `cd`, so the same
    // error reported from two directories is one item, and an edit of the file resolves it.
    const dir = diagnostics.length > 0 ? commandDir(command, this.cwd) : undefined;
    for (const d of diagnostics) {
      const file = d.file !== undefined ? normalizePath(dir !== undefined ? posix.resolve(dir, d.file) : d.file, this.cwd) : undefined;
      this.upsertItem({
        key: d.file !== undefined && file !== undefined ? d.key.replace(`|${d.file}|`, `|${file}|`) : d.key,
        severity: "ERROR",
        source: d.kind,
        label: d.kind,
        text: d.text,
        file,
        command: command.length > 0 ? shortCommand(command) : undefined,
        commandKey: key,
        errorId: d.errorId,
        turn: b.turn,
        index: b.index,
      });
    }
    // A pipe (`| tail`) masks the exit code: a piped run whose output shows errors failed all the same.
    let shown = exit;
    if (exit === 0 && command.includes("|") && !isSearchCommand(command)) {
      const tail = output.length > 256 * 1024 ? output.slice(-256 * 1024) : output;
      if (diagnostics.length > 0 || errorLines(tail).length > 0) shown = -1;
    }
    if (shown === 0 && command.length > 0) this.addShellWrites(command, b.index);
    if (shown === 0) {
      // The same command succeeding resolves what its earlier runs reported.
      const open = this.openByCommand.get(key);
      if (open !== undefined && diagnostics.length === 0) {
        for (const item of open) this.resolve(item, b.index);
        this.openByCommand.delete(key);
      }
      if (command.length > 0 && !isSearchCommand(command)) this.addOutputFailures(b, command, key, output);
      const failed = this.failedCommands.get(key);
      if (failed !== undefined && key.length > 0) {
        this.working.delete(key);
        this.working.set(key, { command: failed.command, failedIndex: failed.index, succeededIndex: b.index });
        this.failedCommands.delete(key);
      }
      return;
    }
    const search = isSearchCommand(command);
    // Pi's "Command exited with code N" trailer cut by position (a `\s*…$` regex would be quadratic on blank runs).
    const trailer = output.lastIndexOf("Command exited with code");
    const trimmed = (trailer >= 0 && trailer >= output.length - 40 ? output.slice(0, trailer) : output).trim();
    if (search && exit === 1 && (trimmed.length === 0 || trimmed === "(no output)")) {
      this.upsertItem({
        key: `nomatch|shell|${key}`,
        severity: "INFO",
        source: "no-matches",
        label: "no matches",
        text: shortCommand(command),
        file: undefined,
        command: shortCommand(command),
        commandKey: key,
        errorId: undefined,
        turn: b.turn,
        index: b.index,
      });
      return;
    }
    if (key.length > 0) this.failedCommands.set(key, { command: shortCommand(command, 300), index: b.index });
    const gist = diagnostics.length > 0 ? diagnosticsGist(diagnostics) : failureGist(output);
    this.upsertItem({
      key: `exit|${key}`,
      severity: "ERROR",
      source: "bash-exit",
      label: shown < 0 ? `${label === "!cmd" ? "!cmd" : "bash"}:errors` : `${label === "!cmd" ? "!cmd" : "bash"}:exit ${exit}`,
      text: gist.length > 0 ? `${shortCommand(command)} → ${gist}` : shortCommand(command),
      file: undefined,
      command: shortCommand(command),
      commandKey: key,
      errorId: undefined,
      turn: b.turn,
      index: b.index,
    });
  }

  // ---- files ---------------------------------------------------------------------------------

  /** Files a successful shell command wrote (`> f`, `sed -i`, `tee`) count as modified or created. */
  private addShellWrites(command: string, index: number): void {
    if (command.indexOf(">") < 0 && command.indexOf("sed") < 0 && command.indexOf("tee") < 0) return;
    const writes = shellWrites(command);
    if (writes.length === 0) return;
    const dir = commandDir(command, this.cwd);
    const turn = this.currentTurn();
    for (const w of writes) {
      const path = cleanPath(dir !== undefined ? posix.resolve(dir, w.path) : w.path, this.cwd);
      if (path === undefined) continue;
      const created = w.mode === "truncate" && !this.files.has(path);
      this.recordModification(path, created ? "created" : "modified", index, created ? `bash > ${JSON.stringify(path)}` : `bash edit ${JSON.stringify(path)}`);
      if (turn !== undefined) {
        (created ? turn.writes : turn.edits).push(path);
        turn.cached = undefined;
      }
    }
  }

  private fileState(path: string, index: number): FileState {
    let f = this.files.get(path);
    if (f === undefined) {
      f = {
        path,
        status: "read",
        symbols: [],
        symbolSet: new Set(),
        signatures: [],
        sigIndex: index,
        firstIndex: index,
        lastIndex: index,
        lastModifiedIndex: undefined,
      };
      this.files.set(path, f);
      const base = basename(path);
      const list = this.byBase.get(base);
      if (list === undefined) this.byBase.set(base, [path]);
      else list.push(path);
    }
    f.lastIndex = index;
    return f;
  }

  private addSymbols(f: FileState, text: string, index: number, replaceSignatures: boolean): void {
    if (text.length === 0 || languageOf(f.path) === null) return;
    const scan = extractSymbols(f.path, text);
    for (const name of scan.names) {
      if (f.symbolSet.has(name) || f.symbols.length >= MAX_SYMBOLS_PER_FILE) continue;
      f.symbolSet.add(name);
      f.symbols.push(name);
    }
    if (scan.signatures.length === 0) return;
    if (replaceSignatures) f.signatures = [];
    for (const s of scan.signatures) {
      if (f.signatures.length >= MAX_SIGNATURES_KEPT) break;
      if (!f.signatures.includes(s)) f.signatures.push(s);
    }
    f.sigIndex = index;
  }

  private touchFile(path: string, _status: "read", index: number, content: string): void {
    const f = this.fileState(path, index);
    this.addSymbols(f, content, index, true);
  }

  private modifyFile(path: string, cls: "edit" | "write", args: Readonly<Record<string, unknown>> | undefined, index: number): void {
    const existed = this.files.has(path);
    const f = this.recordModification(
      path,
      cls === "write" && !existed ? "created" : "modified",
      index,
      `${cls === "write" ? "Write" : "Edit"} ${JSON.stringify(path)}`,
    );
    this.addSymbols(f, newContent(cls, args), index, cls === "write");
  }

  private recordModification(path: string, status: FileStatus, index: number, action: string): FileState {
    const f = this.fileState(path, index);
    if (STATUS_RANK[status] > STATUS_RANK[f.status]) f.status = status;
    f.lastModifiedIndex = index;
    this.modificationCount++;
    this.lastModification = { text: action, index };
    // Items that point at this file are taken as handled once the file is edited afterwards.
    const open = this.openByBase.get(basename(path));
    if (open !== undefined) {
      for (const item of open) {
        if (item.file !== undefined && item.index < index && sameFile(item.file, path)) {
          this.resolve(item, index);
          open.delete(item);
        }
      }
    }
    return f;
  }

  // ---- outstanding items ---------------------------------------------------------------------

  private upsertItem(input: {
    key: string;
    severity: Severity;
    source: OutstandingSource;
    label: string;
    text: string;
    file: string | undefined;
    command: string | undefined;
    commandKey?: string;
    errorId: string | undefined;
    turn: number;
    index: number;
  }): Item {
    let item = this.items.get(input.key);
    if (item === undefined) {
      item = {
        key: input.key,
        severity: input.severity,
        resolved: false,
        resolvedIndex: undefined,
        text: input.text,
        source: input.source,
        label: input.label,
        file: input.file,
        command: input.command,
        commandKeys: new Set(),
        errorId: input.errorId,
        turn: input.turn,
        index: input.index,
        order: this.itemOrder++,
      };
      this.items.set(input.key, item);
    } else {
      // Seen again: it is live again, at its latest place.
      item.resolved = false;
      item.resolvedIndex = undefined;
      item.text = input.text;
      item.label = input.label;
      item.turn = input.turn;
      item.index = input.index;
      item.order = this.itemOrder++;
    }
    if (item.file !== undefined) {
      const base = basename(item.file);
      let set = this.openByBase.get(base);
      if (set === undefined) this.openByBase.set(base, (set = new Set()));
      set.add(item);
    }
    if (input.commandKey !== undefined && input.commandKey.length > 0) {
      item.commandKeys.add(input.commandKey);
      if (input.command !== undefined) item.command = input.command;
      let set = this.openByCommand.get(input.commandKey);
      if (set === undefined) this.openByCommand.set(input.commandKey, (set = new Set()));
      set.add(item);
    }
    return item;
  }

  private resolve(item: Item, index: number): void {
    if (item.resolved) return;
    item.resolved = true;
    item.resolvedIndex = index;
  }

  // ---- misc ----------------------------------------------------------------------------------

  private hexFromTools = 0;

  private addToolHex(text: string, index: number): void {
    for (const value of hexLiterals(text.length > 64 * 1024 ? text.slice(0, 64 * 1024) : text)) {
      const k = value.toLowerCase();
      if (this.hex.has(k) || this.hex.size >= MAX_HEX || this.hexFromTools >= MAX_HEX_FROM_TOOLS) continue;
      this.hex.set(k, { value, index });
      this.hexFromTools++;
    }
  }

  private addHex(text: string, index: number): void {
    if (this.hex.size >= MAX_HEX) return;
    for (const value of hexTokens(text)) {
      const k = value.toLowerCase();
      if (this.hex.has(k) || this.hex.size >= MAX_HEX) continue;
      this.hex.set(k, { value, index });
    }
  }

  private currentTurn(): TurnState | undefined {
    return this.turns[this.turns.length - 1];
  }

  // ---- snapshots -----------------------------------------------------------------------------

  private outstandingItems(): Item[] {
    const all = [...this.items.values()];
    all.sort((a, b) => {
      if (a.resolved !== b.resolved) return a.resolved ? 1 : -1;
      if (!a.resolved && a.severity !== b.severity) return SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity];
      return a.index - b.index || a.order - b.order;
    });
    return all;
  }

  facts(): SessionFacts {
    const files: FileFact[] = [];
    for (const f of this.files.values()) {
      files.push({
        path: f.path,
        status: f.status,
        symbols: [...f.symbols],
        firstIndex: f.firstIndex,
        lastIndex: f.lastIndex,
        ...(f.lastModifiedIndex !== undefined ? { lastModifiedIndex: f.lastModifiedIndex } : {}),
      });
    }
    const outstanding: OutstandingItem[] = this.outstandingItems().map(toOutstanding);
    const pending = this.pendingQuestion();
    if (pending !== null) outstanding.push(pending);
    const turns: TurnLine[] = this.turns.map((t) => ({ turn: t.turn, index: t.index, oneLine: turnLine(t) }));
    const commitHashes = this.commits.map((c) => c.hash);
    const errorIds: string[] = [];
    for (const o of outstanding) {
      if (!o.resolved && o.errorId !== undefined && !errorIds.includes(o.errorId)) errorIds.push(o.errorId);
    }
    const keyFiles = [...this.files.values()]
      .filter((f) => f.lastModifiedIndex !== undefined)
      .sort((a, b) => (b.lastModifiedIndex ?? 0) - (a.lastModifiedIndex ?? 0))
      .slice(0, 12)
      .map((f) => f.path);
    const steps =
      this.lastAssistantText !== null ? nextSteps(this.lastAssistantText.text) : [];
    const focus = this.focus ?? (this.goal !== null ? { text: firstLine(this.goal.text, 200), index: this.goal.index } : null);
    return {
      goal: this.goal,
      scopeChanges: [...this.scopeChanges],
      preferences: [...this.preferences],
      statements: this.statements.snapshot(),
      files,
      typeCatalog: this.typeCatalog(),
      commits: [...this.commits],
      outstanding,
      turns,
      status: {
        focus: focus?.text ?? "",
        focusIndex: focus?.index ?? null,
        ...(this.lastModification !== undefined ? { lastModification: { ...this.lastModification } } : {}),
        nextSteps: steps,
      },
      anchors: { commits: commitHashes, errorIds, keyFiles },
      range: this.first >= 0 ? { first: this.first, last: this.last } : null,
    };
  }

  /**
   * A question the window ends on with no answer after it: the assistant's last text asking the user
   * (its last line ends with "?", no tool ran after it), or the user's last message asking with no
   * reply yet.
   */
  private pendingQuestion(): OutstandingItem | null {
    const said = this.lastAssistantText;
    const user = this.lastUser;
    let text: string | null = null;
    let index = -1;
    if (said !== null && said.index > this.lastCallIndex) {
      const line = lastLine(said.text);
      if (line.endsWith("?")) {
        text = line;
        index = said.index;
      }
    } else if (said === null && user !== null && user.index > this.lastCallIndex && lastLine(user.text).endsWith("?")) {
      text = `user asked: ${firstLine(user.text, 240)}`;
      index = user.index;
    }
    if (text === null) return null;
    return { severity: "INFO", resolved: false, text: text.length > 240 ? `${text.slice(0, 239)}…` : text, source: "question", label: "unanswered", turn: user?.turn ?? 0, index };
  }

  private typeCatalog(): TypeCatalogEntry[] {
    const withSigs = [...this.files.values()].filter((f) => f.signatures.length > 0);
    withSigs.sort((a, b) => {
      const ra = a.status === "read" ? 1 : 0;
      const rb = b.status === "read" ? 1 : 0;
      return ra - rb || b.lastIndex - a.lastIndex;
    });
    const out: TypeCatalogEntry[] = [];
    for (const f of withSigs.slice(0, TYPE_CATALOG_FILES)) {
      for (const line of f.signatures.slice(0, TYPE_CATALOG_PER_FILE)) {
        out.push({ path: f.path, status: f.status, line, index: f.sigIndex });
      }
    }
    return out;
  }

  artifacts(): DurableArtifacts {
    const commitHashes = this.commits.map((c) => c.hash);
    const errorLedger: ErrorLedgerEntry[] = [];
    for (const item of this.outstandingItems()) {
      if (item.source === "user" || item.source === "no-matches") continue;
      errorLedger.push({
        text: item.text,
        source: item.source,
        severity: item.severity,
        resolved: item.resolved,
        ...(item.file !== undefined ? { file: item.file } : {}),
        ...(item.command !== undefined ? { command: item.command } : {}),
        ...(item.errorId !== undefined ? { errorId: item.errorId } : {}),
        index: item.index,
      });
    }
    const hexConstants = [...this.hex.values()].filter(
      (h) => h.value.startsWith("#") || h.value.startsWith("0x") || h.value.startsWith("0X") || !isCommitHash(h.value, commitHashes),
    );
    const files: string[] = [];
    for (const f of this.files.values()) if (f.status !== "read") files.push(f.path);
    return {
      initialPrompts: [...this.initialPrompts],
      corrections: [...this.corrections],
      errorLedger,
      workingCommands: [...this.working.values()].sort((a, b) => a.succeededIndex - b.succeededIndex),
      hexConstants,
      files,
    };
  }
}

function toOutstanding(item: Item): OutstandingItem {
  return {
    severity: item.severity,
    resolved: item.resolved,
    ...(item.resolvedIndex !== undefined ? { resolvedIndex: item.resolvedIndex } : {}),
    text: item.text,
    source: item.source,
    label: item.label,
    ...(item.file !== undefined ? { file: item.file } : {}),
    ...(item.command !== undefined ? { command: item.command } : {}),
    ...(item.errorId !== undefined ? { errorId: item.errorId } : {}),
    turn: item.turn,
    index: item.index,
  };
}

/** Last non-empty line of a text, trimmed (reads back from the end only). */
function lastLine(text: string): string {
  let end = text.length;
  while (end > 0) {
    const start = text.lastIndexOf("\n", end - 1) + 1;
    const line = text.slice(start, end).trim();
    if (line.length > 0) return line.length > 400 ? line.slice(-400) : line;
    end = start - 1;
  }
  return "";
}

function uniq(list: readonly string[]): string[] {
  return [...new Set(list)];
}

function listed(verb: string, paths: readonly string[], max: number): string {
  const u = uniq(paths);
  const shown = u.slice(0, max).join(", ");
  return u.length > max ? `${verb} ${shown} +${u.length - max}` : `${verb} ${shown}`;
}

function turnLine(t: TurnState): string {
  if (t.cached !== undefined) return t.cached;
  const parts: string[] = [];
  if (t.reads.length > 0) parts.push(listed("read", t.reads.map(basename), 3));
  if (t.edits.length > 0) parts.push(listed("edited", t.edits.map(basename), 3));
  if (t.writes.length > 0) parts.push(listed("wrote", t.writes.map(basename), 3));
  if (t.runs.length > 0) parts.push(listed("ran", t.runs.map((r) => firstWords(r)), 3));
  t.cached = parts.length > 0 ? `${t.ask} → ${parts.join("; ")}` : t.ask;
  return t.cached;
}

function firstWords(command: string): string {
  const key = withoutLeadingCd(command);
  const words = key.split(" ").slice(0, 2).join(" ");
  return words.length > 30 ? words.slice(0, 29) + "…" : words;
}

function basename(path: string): string {
  const slash = path.lastIndexOf("/");
  return slash >= 0 ? path.slice(slash + 1) : path;
}

/** Same file when equal, or one is the other with a leading directory part (tsc prints cwd-relative). */
function sameFile(a: string, b: string): boolean {
  if (a === b) return true;
  return a.endsWith(`/${b}`) || b.endsWith(`/${a}`);
}

/** A fresh accumulator: `.add(blocks)` as the session grows, `.facts()` / `.artifacts()` any time. */
export function createFactsAccumulator(options: ExtractOptions = {}): FactsAccumulator {
  return new Accumulator(options);
}

/** Facts of a whole block list in one go (same result as one accumulator fed all blocks). */
export function extractFacts(blocks: Iterable<FactsBlock>, options: ExtractOptions = {}): SessionFacts {
  const acc = new Accumulator(options);
  acc.add(blocks);
  return acc.facts();
}

/** Durable artifacts of a whole block list in one go. */
export function extractArtifacts(blocks: Iterable<FactsBlock>, options: ExtractOptions = {}): DurableArtifacts {
  const acc = new Accumulator(options);
  acc.add(blocks);
  return acc.artifacts();
}
