// The shapes every other package reads a Pi session through. Numbering and anchors follow
// contract-decisions.md: `#N` is the 0-based block index in file order over all entries.

/** Where something sits in the session file. `line` is 1-based; `byteOffset` is the line's first byte. */
export interface FileLocation {
  readonly line: number;
  readonly byteOffset: number;
}

/**
 * The readable fields of text that does not parse (a malformed line, the cut-short part of a torn line,
 * a torn last line), found by a tolerant scan. Searchable, never numbered: it is shown as
 * `line N (salvaged)`.
 */
export interface Salvage {
  readonly type?: string;
  readonly id?: string;
  readonly parentId?: string;
  readonly role?: string;
  readonly toolName?: string;
  readonly toolCallId?: string;
  /** Every text-bearing string value (content, text, thinking, output, summary, command) joined by "\n"; "" without text. */
  readonly text: string;
}

/** A line the reader could not take as-is: reported, never silently dropped. */
export interface Damage extends FileLocation {
  readonly reason: string;
  /** true when the entries on the line were recovered (e.g. two objects glued by a torn write). */
  readonly recovered: boolean;
  readonly kind: "torn-line" | "malformed" | "blank" | "no-trailing-newline" | "not-an-entry";
  /** What a tolerant scan could still read of the part that does not parse (absent when nothing). */
  readonly salvage?: Salvage;
}

/**
 * One JSON object of the session file other than the header, after in-memory migration to v3.
 * `line` is its physical line; `byteOffset` is the first byte of this object's JSON text, which is the
 * line's first byte except for the second and later objects of a torn (glued) line: the bytes
 * `[byteOffset, byteOffset + byteLength)` are always exactly this entry's JSON.
 */
export interface Entry extends FileLocation {
  /** 0-based position among entries in file order (header excluded, recovered entries included). */
  readonly position: number;
  readonly id: string;
  readonly parentId: string | null;
  readonly type: string;
  readonly timestamp: string | undefined;
  /** Byte length of the JSON text of this entry on its line (for a glued line, just this object's part). */
  readonly byteLength: number;
  /**
   * true when recovered from a torn line. Pi drops these: they are in the recovered view (entries,
   * blocks, `#N`, recall) but never in the Pi view (lineage, leaf, roots, context, compactions).
   */
  readonly recovered: boolean;
  /** The migrated entry object as Pi would hold it (v3 field names). */
  readonly raw: Readonly<Record<string, unknown>>;
  /** 1-based count of user messages on the root→entry path, this entry included (0 before the first). */
  readonly turn: number;
}

export type BlockKind =
  | "user" // user message text (string content or text parts joined by "\n")
  | "text" // assistant text part
  | "thinking" // assistant thinking part
  | "toolCall" // assistant toolCall part (text = JSON of the arguments; never anchorable)
  | "toolResult" // a toolResult message (text parts joined by "\n")
  | "bash" // a user `!cmd` (bashExecution): text = the command's output
  | "custom" // custom_message / custom role message in context
  | "compaction" // compaction entry summary
  | "branchSummary"; // branch_summary entry summary

/** A block of one message, before a reader numbers it and places it in a file or a context. */
export interface MessageBlock {
  readonly kind: BlockKind;
  /** Message role or entry type it came from (`user`, `assistant`, `toolResult`, `bashExecution`, `custom`, `compaction`, `branch_summary`, …). */
  readonly role: string;
  /** Block text exactly as contract-decisions.md defines it (what sha256 covers when anchorable). */
  readonly text: string;
  /** Index into the assistant message's `content` array (assistant parts only). */
  readonly partIndex?: number;
  /** The contract anchor (`r:<toolCallId>` or `a:<responseId>:p<n>`), when the ids make one that reads back. */
  readonly anchor?: string;
  /** Tool name (toolCall, toolResult); "bash" for a user `!cmd`. */
  readonly toolName?: string;
  readonly toolCallId?: string;
  /** Parsed arguments of a toolCall; for a user `!cmd`, `{ command }`. */
  readonly args?: Readonly<Record<string, unknown>>;
  /** toolResult flagged isError by Pi, or a `!cmd` with non-zero exit code. */
  readonly isError?: boolean;
  /** bashExecution exit code. */
  readonly exitCode?: number;
  /** Pi's full-output file for a truncated result (details.fullOutputPath / bashExecution.fullOutputPath). */
  readonly fullOutputPath?: string;
  /** Image parts of a user message, tool result or custom message (not part of `text`). */
  readonly images?: number;
}

/** A normalized unit of session content: the thing `#N` counts, searches find and spans point at. */
export interface Block extends Omit<MessageBlock, "images"> {
  /** `#N`: 0-based, file order over all blocks of all entries. */
  readonly index: number;
  readonly entryId: string;
  /** Entry position (0-based among entries). */
  readonly entryPosition: number;
  /** 1-based count of user messages on the root→block path (0 before the first user message). */
  readonly turn: number;
  readonly timestamp: string | undefined;
  /** Location of the entry in the file: its line, and the byte offset and length of its JSON text. */
  readonly line: number;
  readonly byteOffset: number;
  readonly byteLength: number;
}

/** The header line (`{"type":"session"}`), with the version the file was written in. */
export interface SessionHeader {
  readonly id: string;
  /** The file's version before in-memory migration (a missing version is 1; newer ones read as 3). */
  readonly version: 1 | 2 | 3;
  readonly timestamp: string | undefined;
  readonly cwd: string | undefined;
  readonly parentSession?: string;
  readonly raw: Readonly<Record<string, unknown>>;
  /**
   * true when the file has no header line and was read as a fragment on request (`fragment: true`):
   * the header is made up — id `fragment-<first 12 hex of the file's sha256>`, version 3, no cwd.
   * Pi refuses such a file.
   */
  readonly fragment?: true;
}

/** Compaction k on the active lineage and the entries it summarized. */
export interface CompactionSegment {
  /** 1-based along the active lineage. */
  readonly number: number;
  readonly entryId: string;
  /** null when Pi could not map it (a v1 index pointing at the header or past the compaction). */
  readonly firstKeptEntryId: string | null;
  readonly tokensBefore?: number;
  readonly fromHook?: boolean;
  readonly summary: string;
  /** Inclusive `#N` range of the blocks of the summarized entries; null when they hold no block. */
  readonly segment: { readonly from: number; readonly to: number } | null;
  /** The lineage entries this compaction summarized (from the previous kept boundary to its own). */
  readonly entryIds: readonly string[];
}

/**
 * A whole session file, read. Arrays are in file order; `lineage` runs root → active leaf.
 *
 * Two views of one file. The *Pi view* is what Pi 1.6 builds from it — Pi drops every line that does
 * not parse, both objects of a torn line included: `leafId`, `lineage`, `lineageIds`, `roots`,
 * `branchPoints`, `compactions` and the context view. The *recovered view* adds what Pi drops:
 * `entries` and `blocks` (recovered torn-line objects numbered in file position), `recoveredLineageIds`,
 * and the salvaged text of lines that do not parse (`damaged[].salvage`).
 */
export interface Session {
  readonly path: string;
  readonly header: SessionHeader;
  readonly entries: readonly Entry[];
  readonly blocks: readonly Block[];
  readonly damaged: readonly Damage[];
  readonly byId: ReadonlyMap<string, Entry>;
  /** Last entry in file order that Pi keeps (recovered entries excluded): Pi's leaf on load; null without one. */
  readonly leafId: string | null;
  /** Pi's active branch: the parent chain from `leafId`, never through a recovered entry. */
  readonly lineage: readonly Entry[];
  readonly lineageIds: ReadonlySet<string>;
  /**
   * The recovered view of the active branch: `lineageIds`, every recovered entry, and the chain from
   * the last entry in file order walked through recovered parents (what a torn line cut off). The
   * same set as `lineageIds` when nothing was recovered.
   */
  readonly recoveredLineageIds: ReadonlySet<string>;
  /** Ids of entries with two or more children Pi keeps, in the order they became branch points. */
  readonly branchPoints: readonly string[];
  /** Ids of entries Pi keeps with a null parent, themselves as parent, or a parent Pi did not see before them. */
  readonly roots: readonly string[];
  readonly compactions: readonly CompactionSegment[];
  /** Bytes consumed: where `updateSession` resumes. An incomplete last line is not consumed. */
  readonly byteLength: number;
  /** false when read with `withText: false`: block text is "" and message content is not held. */
  readonly withText: boolean;
}

/** One message of the model context Pi would build, with the entry it came from. */
export interface ContextItem {
  readonly entry: Entry;
  /** Message role: user, assistant, toolResult, bashExecution, custom, system, compactionSummary, branchSummary. */
  readonly role: string;
  /** The message as Pi hands it to the agent (context edits applied). */
  readonly message: Readonly<Record<string, unknown>>;
  /** The context_edit entry whose replacement this message carries. */
  readonly editId?: string;
}

export type ResolveResult =
  | {
      readonly status: "ok";
      readonly anchor: string;
      readonly text: string;
      readonly sha256: string;
      /** true/false when an expected sha256 was given, null otherwise. */
      readonly verified: boolean | null;
      readonly block: Block;
      readonly editId?: string;
    }
  | { readonly status: "missing"; readonly anchor: string; readonly reason: string }
  | { readonly status: "ambiguous"; readonly anchor: string; readonly candidates: readonly Block[] }
  | { readonly status: "malformed"; readonly anchor: string; readonly reason: string };

/** What `streamEntries` yields, in file order. */
export type StreamItem =
  | { readonly kind: "header"; readonly header: SessionHeader }
  | { readonly kind: "entry"; readonly entry: Entry; readonly blocks: readonly Block[] }
  | { readonly kind: "damage"; readonly damage: Damage };
