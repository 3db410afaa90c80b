// Shapes of the summary facts and durable artifacts extracted from session blocks.
// Every item carries `index` (#N, the global block index) so summaries can point at the block it came from.

/**
 * The subset of the ledger reader's `Block` that extraction reads. Structural, so a `Block` from
 * `@context-fold/ledger-reader` is accepted as-is and tests can hand-build blocks.
 */
export interface FactsBlock {
  readonly index: number;
  readonly kind: string;
  readonly role: string;
  readonly turn: number;
  readonly toolName?: string;
  readonly toolCallId?: string;
  readonly args?: Readonly<Record<string, unknown>>;
  readonly isError?: boolean;
  readonly exitCode?: number;
  readonly text: string;
}

/** A user-written line kept verbatim, with where it was said. */
export interface UserStatement {
  readonly text: string;
  /** 1-based user turn (Block.turn). */
  readonly turn: number;
  /** #N of the block it came from. */
  readonly index: number;
}

/** A user statement kept once: duplicates (same `statementKey`, or one containing the other) counted. */
export interface UserStatementFact extends UserStatement {
  /** How many user messages said it (1 when said once). */
  readonly count: number;
}

export type FileStatus = "modified" | "created" | "read";

export interface FileFact {
  /** Path as normalized against cwd (relative when inside cwd, else absolute). */
  readonly path: string;
  /** Strongest status seen: created > modified > read (a created file later edited stays "created"). */
  readonly status: FileStatus;
  /** Exported / top-level symbol names seen in tool arguments or results for this file, in first-seen order. */
  readonly symbols: readonly string[];
  /** #N of the first and last block that touched the file. */
  readonly firstIndex: number;
  readonly lastIndex: number;
  /** #N of the last block that modified (edit/write) the file, if any. */
  readonly lastModifiedIndex?: number;
}

/** One exact exported signature line from a file, capped per file and overall (modified files first). */
export interface TypeCatalogEntry {
  readonly path: string;
  readonly status: FileStatus;
  readonly line: string;
  readonly index: number;
}

export type CommitKind = "commit" | "amend" | "merge" | "cherry-pick";

export interface CommitFact {
  /** Abbreviated (or full) hash exactly as git printed it. */
  readonly hash: string;
  readonly subject: string;
  readonly branch?: string;
  readonly kind: CommitKind;
  readonly turn: number;
  /** #N of the tool result / `!cmd` block whose output showed the commit. */
  readonly index: number;
}

export type Severity = "ERROR" | "WARN" | "INFO";

/** Where an outstanding item was found. */
export type OutstandingSource =
  | "bash-exit" // non-zero exit code of a shell command
  | "tsc" // TypeScript compiler diagnostic
  | "tests" // failing test (vitest, jest, pytest, go test, cargo test, …)
  | "no-matches" // empty grep / find / glob
  | "tool" // tool result flagged isError
  | "compiler" // other compiler / linter diagnostic (rustc, go, gcc, eslint, …)
  | "user" // blocker the user wrote
  | "output" // failure line (fatal log line, failed migration) in the output of a command that exited 0
  | "question"; // the session ends on a question nobody answered

export interface OutstandingItem {
  readonly severity: Severity;
  /** true when the referenced file was edited afterwards or the same command later succeeded. */
  readonly resolved: boolean;
  /** #N of the block that resolved it (edit of the file / successful re-run). */
  readonly resolvedIndex?: number;
  /** One line, trimmed to a few hundred characters. */
  readonly text: string;
  readonly source: OutstandingSource;
  /** Tool name or shell label for display, e.g. "bash:exit 1", "tsc", "read". */
  readonly label: string;
  readonly file?: string;
  readonly command?: string;
  /** Diagnostic id when known (TS2304, E0308, …). */
  readonly errorId?: string;
  readonly turn: number;
  readonly index: number;
}

export interface TurnLine {
  readonly turn: number;
  /** #N of the user block that opened the turn. */
  readonly index: number;
  /** "<user ask, trimmed> → read a.ts, edited b.ts, ran pnpm test" */
  readonly oneLine: string;
}

export interface CurrentStatus {
  /** The latest user ask (trimmed), or the goal when there is none. */
  readonly focus: string;
  readonly focusIndex: number | null;
  /** e.g. `Edit "src/a.ts"` with its #N. */
  readonly lastModification?: { readonly text: string; readonly index: number };
  /** Next steps found in the latest assistant text ("next, …", "TODO", numbered plan lines). */
  readonly nextSteps: readonly string[];
}

export interface Anchors {
  readonly commits: readonly string[];
  readonly errorIds: readonly string[];
  readonly keyFiles: readonly string[];
}

export interface SessionFacts {
  /** The founding request (first user message), verbatim. */
  readonly goal: UserStatement | null;
  /** Later user messages that change or widen the task ("also …", "now …", "instead …"). */
  readonly scopeChanges: readonly UserStatement[];
  /** always / never / prefer / don't … lines from user messages. */
  readonly preferences: readonly UserStatement[];
  /**
   * Everything else the user said: every user message after the goal that is not bare
   * (`isBareMessage`), verbatim, in session order; duplicates once, with a count.
   */
  readonly statements: readonly UserStatementFact[];
  /**
   * Summaries of abandoned branches on this lineage (Pi's `branch_summary` entries, written when the
   * user navigated away from a branch), verbatim, in order. Absent in facts made before they were read.
   */
  readonly branchSummaries?: readonly UserStatement[];
  /** Files in first-touched order. */
  readonly files: readonly FileFact[];
  readonly typeCatalog: readonly TypeCatalogEntry[];
  /** Commits in the order they appeared (deduplicated by hash). */
  readonly commits: readonly CommitFact[];
  /** Deduplicated; unresolved first by severity, then in session order. */
  readonly outstanding: readonly OutstandingItem[];
  /** One per user turn, in order. */
  readonly turns: readonly TurnLine[];
  readonly status: CurrentStatus;
  readonly anchors: Anchors;
  /** #N range the facts cover (null when no blocks). */
  readonly range: { readonly first: number; readonly last: number } | null;
}

export interface ErrorLedgerEntry {
  readonly text: string;
  readonly source: OutstandingSource;
  readonly severity: Severity;
  readonly resolved: boolean;
  readonly file?: string;
  readonly command?: string;
  readonly errorId?: string;
  readonly index: number;
}

export interface WorkingCommand {
  readonly command: string;
  /** #N of the last failing run before the success. */
  readonly failedIndex: number;
  /** #N of the successful run. */
  readonly succeededIndex: number;
}

export interface HexConstant {
  /** As written (e.g. 0xDEADBEEF). Commit hashes are never reported here. */
  readonly value: string;
  readonly index: number;
}

/** Artifact categories in their preservation priority (highest first). */
export const ARTIFACT_PRIORITY = [
  "initialPrompts",
  "corrections",
  "errorLedger",
  "workingCommands",
  "hexConstants",
  "files",
] as const;

export type ArtifactCategory = (typeof ARTIFACT_PRIORITY)[number];

export interface DurableArtifacts {
  /** The founding request(s) verbatim: the first user message (and any pasted before the first reply). */
  readonly initialPrompts: readonly UserStatement[];
  /** User redirects verbatim ("no,", "actually", "instead", "stop", "don't", …). */
  readonly corrections: readonly UserStatement[];
  readonly errorLedger: readonly ErrorLedgerEntry[];
  readonly workingCommands: readonly WorkingCommand[];
  readonly hexConstants: readonly HexConstant[];
  /** Files modified or created (paths), in first-touched order. */
  readonly files: readonly string[];
}

export interface ExtractOptions {
  /** Session working directory (`session.header.cwd`); paths under it are reported relative. */
  readonly cwd?: string | undefined;
}

/** Incremental extraction: feed blocks turn by turn; snapshots are cheap and never re-scan old blocks. */
/**
 * What a summary takes from blocks outside its window (the kept tail, a branch's cut-off part): the goal
 * and statements said, the files and commits, and the #N range: `facts()`'s fields of those names.
 */
export type OutsideFacts = Pick<SessionFacts, "goal" | "statements" | "files" | "commits" | "range">;

export interface FactsAccumulator {
  /** Adds blocks in ascending #N order (blocks at or below the last index seen are ignored). */
  add(blocks: Iterable<FactsBlock>): void;
  facts(): SessionFacts;
  /** `facts()`'s fields a summary reads of blocks outside its window, made alone (the rest is not made). */
  outsideFacts(): OutsideFacts;
  artifacts(): DurableArtifacts;
  /** Number of blocks consumed so far. */
  readonly blockCount: number;
  /** #N of the last block consumed (-1 before any): feed blocks after it next. */
  readonly lastIndex: number;
}
