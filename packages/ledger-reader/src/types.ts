// The shapes every other package reads a Pi session through. Numbering and anchors follow
// contract-decisions.md: `#N` is the 0-based block index in file order over all entries.

/** Where something sits in the session file. `line` is 1-based; `byteOffset` is the line's first byte. */
export interface FileLocation {
  readonly line: number;
  readonly byteOffset: number;
}

/** A line the reader could not take as-is: reported, never silently dropped. */
export interface Damage extends FileLocation {
  readonly reason: string;
  /** true when the entries on the line were recovered (e.g. two objects glued by a torn write). */
  readonly recovered: boolean;
  readonly kind: "torn-line" | "malformed" | "blank" | "no-trailing-newline" | "not-an-entry";
}

/** One JSON object of the session file other than the header, after in-memory migration to v3. */
export interface Entry extends FileLocation {
  /** 0-based position among entries in file order (header excluded, recovered entries included). */
  readonly position: number;
  readonly id: string;
  readonly parentId: string | null;
  readonly type: string;
  readonly timestamp: string | undefined;
  /** Byte length of the JSON text of this entry on its line (for a glued line, just this object's part). */
  readonly byteLength: number;
  /** true when recovered from a torn line (Pi itself drops these). */
  readonly recovered: boolean;
  /** The migrated entry object as Pi would hold it (v3 field names). */
  readonly raw: Readonly<Record<string, unknown>>;
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

/** A normalized unit of session content: the thing `#N` counts, searches find and spans point at. */
export interface Block {
  /** `#N`: 0-based, file order over all blocks of all entries. */
  readonly index: number;
  readonly entryId: string;
  /** Entry position (0-based among entries). */
  readonly entryPosition: number;
  readonly kind: BlockKind;
  /** Message role or entry type it came from (`user`, `assistant`, `toolResult`, `bashExecution`, `custom`, `compaction`, `branch_summary`, …). */
  readonly role: string;
  /** 1-based count of user messages on the root→block path (0 before the first user message). */
  readonly turn: number;
  /** Index into the assistant message's `content` array (assistant parts only). */
  readonly partIndex?: number;
  /** The contract anchor (`r:<toolCallId>` or `a:<responseId>:p<n>`) when anchorable. */
  readonly anchor?: string;
  /** Tool name (toolCall, toolResult) ; "bash" for a user `!cmd`. */
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
  /** Block text exactly as contract-decisions.md defines it (what sha256 covers when anchorable). */
  readonly text: string;
  readonly timestamp: string | undefined;
  /** Location of the entry's line in the file. */
  readonly line: number;
  readonly byteOffset: number;
}
