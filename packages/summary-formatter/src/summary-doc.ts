// The structured form of a context-fold summary: what the renderers print, what `parseSummary` reads
// back (exactly), and what merging works on. Every `index` is a global block number `#N`.

/** A user-written text kept verbatim (may span lines). */
export interface VerbatimItem {
  readonly text: string;
  readonly index: number;
}

/** One line of text with the block it came from. */
export interface LineItem {
  readonly text: string;
  readonly index: number;
}

/** Something the user said (one line, clipped with "…"), with how many messages said it. */
export interface StatementItem {
  readonly text: string;
  readonly index: number;
  /** 1 when said once; duplicates (normalised equal or contained) are listed once with their count. */
  readonly count: number;
}

export type FileStatus = "modified" | "created" | "read";

export interface FileItem {
  readonly status: FileStatus;
  readonly path: string;
  /** Symbol names (no whitespace, commas or parentheses). */
  readonly symbols: readonly string[];
  /** #N of the last block that touched the file. */
  readonly index: number;
}

export interface CommitItem {
  readonly hash: string;
  readonly subject: string;
  readonly index: number;
}

export interface AnchorsDoc {
  readonly commits: readonly string[];
  readonly errors: readonly string[];
  readonly files: readonly string[];
}

export interface CatalogFile {
  readonly path: string;
  readonly status: FileStatus;
  readonly lines: readonly string[];
}

export type OutstandingTag = "ERROR" | "WARN" | "INFO" | "RESOLVED";

export interface OutstandingDoc {
  readonly tag: OutstandingTag;
  /** e.g. "bash:exit 1", "tsc" (no "]"). */
  readonly label: string;
  readonly text: string;
  readonly index: number;
  readonly resolvedIndex?: number;
}

export interface StatusDoc {
  readonly focus: LineItem | null;
  readonly lastAction: LineItem | null;
  readonly next: readonly string[];
}

/** A summary we did not write (Pi's LLM summary, pi-vcc's), kept verbatim line by line. */
export interface PreviousSummaryDoc {
  /** Which compaction it came from ("1", "2", … along the lineage, or "file"). */
  readonly label: string;
  /** #N of the compaction block holding the full text (recall expands it); null when it came from a file. */
  readonly index: number | null;
  readonly lines: readonly string[];
}

/** "… and 37 more read files (recall: files)": what a cap left out, counted, with where to look. */
export interface Omission {
  readonly count: number;
  /** "more read files", "earlier turns", … */
  readonly what: string;
  /** Recall hint: a topic ("files") or a `#N` list/range. */
  readonly recall: string;
}

export interface FooterDoc {
  /** ISO time of the compaction (an input; default: the last entry's timestamp). */
  readonly at: string;
  /** Messages summarized in this compaction's window. */
  readonly messages: number;
  /** Estimated tokens of the summarized window. */
  readonly windowTokens: number;
  /** Estimated tokens of the summary body (everything above the footer). */
  readonly summaryTokens: number;
  readonly tailMessages: number;
  readonly tailTokens: number;
  /** Inclusive #N range the summary covers (across merged compactions); null when empty. */
  readonly range: { readonly from: number; readonly to: number } | null;
}

export interface SummaryDoc {
  readonly goal: VerbatimItem | null;
  readonly scopeChanges: readonly LineItem[];
  readonly scopeOmitted: Omission | null;
  readonly preferences: readonly LineItem[];
  /** User corrections, verbatim. */
  readonly corrections: readonly VerbatimItem[];
  readonly correctionsOmitted: Omission | null;
  /** What else the user said (decisions, facts, constraints, reminders in any phrasing), in session order. */
  readonly statements: readonly StatementItem[];
  readonly statementsOmitted: Omission | null;
  readonly files: readonly FileItem[];
  readonly filesOmitted: readonly Omission[];
  readonly commits: readonly CommitItem[];
  readonly commitsOmitted: Omission | null;
  readonly anchors: AnchorsDoc;
  readonly previous: readonly PreviousSummaryDoc[];
  readonly typeCatalog: readonly CatalogFile[];
  readonly typeCatalogOmitted: Omission | null;
  readonly outstanding: readonly OutstandingDoc[];
  readonly outstandingOmitted: Omission | null;
  readonly earlierTurns: readonly LineItem[];
  readonly earlierTurnsOmitted: Omission | null;
  readonly status: StatusDoc;
  /** Brief transcript lines (one line each, each ending in its `(#N)`). */
  readonly brief: readonly string[];
  readonly briefOmitted: Omission | null;
  readonly footer: FooterDoc;
}

export function emptyDoc(footer: FooterDoc): SummaryDoc {
  return {
    goal: null,
    scopeChanges: [],
    scopeOmitted: null,
    preferences: [],
    corrections: [],
    correctionsOmitted: null,
    statements: [],
    statementsOmitted: null,
    files: [],
    filesOmitted: [],
    commits: [],
    commitsOmitted: null,
    anchors: { commits: [], errors: [], files: [] },
    previous: [],
    typeCatalog: [],
    typeCatalogOmitted: null,
    outstanding: [],
    outstandingOmitted: null,
    earlierTurns: [],
    earlierTurnsOmitted: null,
    status: { focus: null, lastAction: null, next: [] },
    brief: [],
    briefOmitted: null,
    footer,
  };
}
