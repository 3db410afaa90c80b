// Shell outcomes: what one shell run (a bash tool call or a user's `!cmd`) tells — commits it made,
// diagnostics it printed, a failing exit, failure lines a clean exit does not rule out, files it wrote —
// and which commands first failed and then worked.
import { posix } from "node:path";
import { errorLines } from "../lexicon/errors.js";
import { cleanPath, normalizePath } from "../lexicon/paths.js";
import { memoizeByOwner } from "../text-memo.js";
import { diagnosticsGist, failureGist, parseDiagnostics } from "./diagnostics.js";
import { recentGitCommits } from "./git-commits.js";
import type { Ledgers } from "./ledgers.js";
import { checksRemovedPaths, commandDir, commandKey, endsInSearch, isSearchCommand, mayWriteFiles, shellWrites, shortCommand } from "./shell-command.js";
import type { FactsBlock, WorkingCommand } from "./types.js";

/** Failure lines taken from one clean-exit output. */
const MAX_OUTPUT_FAILURES = 3;
/**
 * Failure lines that stand for a failure even when the command exited 0 (bounded, no nesting; run on
 * error lines of at most 240 chars): fatal/panic/traceback lines, an ERROR log level, "failed to
 * apply/start/…", a migration that failed.
 */
const STRONG_FAILURE =
  /\b(?:FATAL|[Ff]atal|PANIC|panic:|Traceback|Segmentation fault|core dumped|Uncaught|Unhandled)|\bERROR\b|\b(?:[Ff]ailed|FAILED) to (?:apply|start|connect|bind|load|migrate|run|open|listen)\b|\b[Mm]igrations?\b[^\n]{0,80}\b(?:failed|FAILED)\b/;

/**
 * Every STRONG_FAILURE match contains one of these literals: an output holding none is skipped before
 * the error lexicon runs over it (most clean outputs), with the same result as scanning it.
 */
const STRONG_LITERALS = ["ERROR", "ailed", "FAILED", "atal", "FATAL", "PANIC", "panic:", "Traceback", "Segmentation fault", "core dumped", "Uncaught", "Unhandled", "igration"];

/**
 * Any of STRONG_LITERALS, in one pass: plain literals in one alternation (linear; no quantifier, no
 * nesting), which V8 scans with a lookahead over the alternatives' leading characters. Measured on
 * 2026-12-03 (Node 22): 13-17 µs per 20 KB bench output and 6-7 µs per 20 KB of prose, against
 * 27-34 µs and 12-13 µs for an `includes` per literal (every literal a scan of the whole text).
 */
const STRONG_LITERAL = new RegExp(STRONG_LITERALS.map((l) => l.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|"));

function mayHoldStrongFailure(text: string): boolean {
  return STRONG_LITERAL.test(text);
}

/** Head and tail of a clean output looked at for failure lines (a log ends on its fatal line). */
const WINDOW_HEAD = 4 * 1024;
const WINDOW_TAIL = 16 * 1024;

/**
 * The part of a clean output looked at for failure lines: all of it, or its first 4 KB and last 16 KB,
 * so the cost per output is bounded (every clean output is looked at, and big ones are common).
 */
function failureWindow(output: string): string {
  if (output.length <= WINDOW_HEAD + WINDOW_TAIL) return output;
  return `${output.slice(0, WINDOW_HEAD)}\n${output.slice(-WINDOW_TAIL)}`;
}

/** `mayHoldStrongFailure(failureWindow(output))`, without joining the window. */
function windowMayHoldStrongFailure(output: string): boolean {
  if (output.length <= WINDOW_HEAD + WINDOW_TAIL) return mayHoldStrongFailure(output);
  return mayHoldStrongFailure(output.slice(0, WINDOW_HEAD)) || mayHoldStrongFailure(output.slice(-WINDOW_TAIL));
}

/** `parseDiagnostics` and `windowMayHoldStrongFailure` of the last turns' outputs, by block. */
const recentDiagnostics = memoizeByOwner((output: string) => parseDiagnostics(output));
const recentMayHoldStrongFailure = memoizeByOwner((output: string) => windowMayHoldStrongFailure(output));

function isStrongFailure(line: string): boolean {
  return STRONG_FAILURE.test(line);
}

export class ShellOutcomes {
  /** command key → last failing #N (cleared on success). */
  private readonly failedCommands = new Map<string, { command: string; index: number }>();
  private readonly working = new Map<string, WorkingCommand>();

  constructor(private readonly l: Ledgers) {}

  /** Commands that failed and later succeeded, in the order they succeeded. */
  workingCommands(): WorkingCommand[] {
    return [...this.working.values()].sort((a, b) => a.succeededIndex - b.succeededIndex);
  }

  add(b: FactsBlock, command: string, exitCode: number, output: string, label: string): void {
    const l = this.l;
    // A line that ends by checking that the paths it removed are gone (`rm -f a; ls a`) fails by design:
    // "no such file" is the removal confirmed, so the run counts as the success it is.
    const expected = exitCode !== 0 && checksRemovedPaths(command);
    const exit = expected ? 0 : exitCode;
    const key = commandKey(command, l.cwd);
    if (command.length > 0) l.turns.note("runs", shortCommand(command, 60));
    l.commits.add(recentGitCommits(b, output, command.length > 0 ? command : undefined), b.turn, b.index);
    // A clean exit of an unpiped command cannot carry failing tests or compiler errors (runners and
    // compilers exit non-zero on them), so its output is not scanned: most big outputs are skipped here.
    const diagnostics = exit !== 0 || command.includes("|") || command.length === 0 ? recentDiagnostics(b, output, undefined) : [];
    // Compilers print paths relative to where they ran: resolve against the command's `cd`, so the same
    // error reported from two directories is one item, and an edit of the file resolves it.
    const dir = diagnostics.length > 0 ? commandDir(command, l.cwd) : undefined;
    for (const d of diagnostics) {
      const file = d.file !== undefined ? normalizePath(dir !== undefined ? posix.resolve(dir, d.file) : d.file, l.cwd) : undefined;
      l.outstanding.upsert({
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
    // Asked at most once per run, and only when needed: it normalises the command several times over.
    let searchMemo: boolean | undefined;
    const isSearch = (): boolean => (searchMemo ??= isSearchCommand(command));
    if (exit === 0 && !expected && command.includes("|") && !isSearch()) {
      const tail = output.length > 256 * 1024 ? output.slice(-256 * 1024) : output;
      if (diagnostics.length > 0 || errorLines(tail).length > 0) shown = -1;
    }
    if (shown === 0 && command.length > 0) this.addShellWrites(command, b.index);
    if (shown === 0) {
      if (diagnostics.length === 0) l.outstanding.resolveCommand(key, b.index);
      if (command.length > 0) {
        // The window is joined only when a literal is in it (the literals hold no newline, so looking in
        // its two parts apart finds what looking in the joined window does): a clean output allocates nothing.
        if (recentMayHoldStrongFailure(b, output, undefined) && !isSearch()) this.addOutputFailures(b, command, key, failureWindow(output));
      }
      const failed = this.failedCommands.get(key);
      if (failed !== undefined && key.length > 0) {
        this.working.delete(key);
        this.working.set(key, { command: failed.command, failedIndex: failed.index, succeededIndex: b.index });
        this.failedCommands.delete(key);
      }
      return;
    }
    // Pi's "Command exited with code N" trailer cut by position (a `\s*…$` regex would be quadratic on blank runs).
    const trailer = output.lastIndexOf("Command exited with code");
    const trimmed = (trailer >= 0 && trailer >= output.length - 40 ? output.slice(0, trailer) : output).trim();
    // The exit status was reported (Pi's trailer, a `!cmd`'s exitCode), not inferred from an error flag: a
    // harness that refused to run the command flags its refusal as an error and reports no status.
    const reported = (trailer >= 0 && trailer >= output.length - 40) || b.exitCode !== undefined;
    if (exit === 1 && (((trimmed.length === 0 || trimmed === "(no output)") && isSearch()) || (reported && endsInSearch(command) && errorLines(trimmed).length === 0))) {
      // A search that found nothing is not a failure: an empty output, or a line whose last statement
      // searches (`echo "== x =="; grep -n x f`) and printed no error — grep's exit 1 is "no match".
      this.addNoMatches(b, command, key);
      return;
    }
    if (key.length > 0) this.failedCommands.set(key, { command: shortCommand(command, 300), index: b.index });
    const gist = diagnostics.length > 0 ? diagnosticsGist(diagnostics) : failureGist(output);
    l.outstanding.upsert({
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

  private addNoMatches(b: FactsBlock, command: string, key: string): void {
    this.l.outstanding.upsert({
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
  }

  /**
   * Failure lines a clean exit does not rule out: a service log's fatal line, a migration that failed
   * to apply, a traceback printed by a runner that exits 0. Head and tail of the output, a few lines.
   */
  private addOutputFailures(b: FactsBlock, command: string, key: string, scan: string): void {
    let n = 0;
    for (const line of errorLines(scan)) {
      if (n >= MAX_OUTPUT_FAILURES) break;
      if (!isStrongFailure(line)) continue;
      n += 1;
      this.l.outstanding.upsert({
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

  /** Files a successful shell command wrote (`> f`, `sed -i`, `tee`, `cp`/`mv` destinations) or removed (`rm`) count as modified or created. */
  private addShellWrites(command: string, index: number): void {
    if (!mayWriteFiles(command)) return;
    const writes = shellWrites(command);
    if (writes.length === 0) return;
    const dir = commandDir(command, this.l.cwd);
    for (const w of writes) {
      // "~/x" is the home directory's, not a path under the command's directory.
      const path = cleanPath(dir !== undefined && !w.path.startsWith("~") ? posix.resolve(dir, w.path) : w.path, this.l.cwd);
      if (path === undefined) continue;
      const created = w.mode === "truncate" && !this.l.files.has(path);
      const action = created ? `bash > ${JSON.stringify(path)}` : w.mode === "remove" ? `bash rm ${JSON.stringify(path)}` : `bash edit ${JSON.stringify(path)}`;
      this.l.files.recordModification(path, created ? "created" : "modified", index, action);
      this.l.turns.note(created ? "writes" : "edits", path);
    }
  }
}
