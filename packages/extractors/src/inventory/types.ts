// Shapes of the context inventory: the pre-compaction accounting of what fills the model's window
// (floor, tool output, dormant content, live conversation) with per-item age and reclaim flags.

/**
 * The subset of the ledger reader's `Block` the inventory reads. Structural, so a `Block` is accepted
 * as-is and the Pi extension can build these from the messages it holds (a folded stub included).
 */
export interface InventoryBlock {
  /** `#N` (or any increasing position: items are taken in this order). */
  readonly index: number;
  readonly kind: string;
  /** 1-based user turn the block belongs to. */
  readonly turn: number;
  readonly anchor?: string;
  readonly toolName?: string;
  readonly toolCallId?: string;
  readonly args?: Readonly<Record<string, unknown>>;
  readonly text: string;
  /** Tokens when measured elsewhere (an image, a provider count); default: the estimator over `text`. */
  readonly tokens?: number;
}

/** The irreducible base of every request. A number is taken as tokens; a string is measured. */
export interface FloorInput {
  /** The system prompt (skills and context files included), as tokens or its text. */
  readonly systemPrompt?: number | string;
  /** The tool declarations (names, descriptions, JSON schemas), as tokens or their serialized text. */
  readonly tools?: number | string;
}

export interface InventoryOptions {
  readonly floor?: FloorInput;
  /** Why the floor is unknown when no floor input is given (default "no live Pi"). */
  readonly floorUnknownReason?: string;
  /** The turn ages are measured from (default: the highest block turn). */
  readonly currentTurn?: number;
  /** Idle turns after which content counts as dormant (default `DORMANT_TURNS`). */
  readonly dormantTurns?: number;
  /** What a fold leaves behind, in tokens: only the excess is reclaimable (default `INVENTORY_STUB_TOKENS`). */
  readonly stubTokens?: number;
  /** Session working directory: paths are compared repo-relative. */
  readonly cwd?: string | undefined;
  /** Token estimator (default `estimateTextTokens`: ceil(UTF-8 bytes / 4)). */
  readonly estimate?: (text: string) => number;
  /**
   * Anchors already folded behind a stub: reported as folded, counted as at most a stub, never reclaimable
   * again. Only asked `has` (a `CompactBlockSet` holds a seed index's million anchors without their text).
   */
  readonly folded?: { has(anchor: string): boolean };
  /**
   * Codes already assigned (blockId → code, e.g. from the seed index), kept as they are: the pairs, or
   * codes kept already (a `CompactCodeAssigner` given the pairs, for a million of them).
   */
  readonly codes?: Iterable<[string, string]> | { codeOf(blockId: string): string | undefined; holds(code: string): boolean; holderOf(code: string): string | undefined };
}

/** The three buckets of the window above the floor; every item is in exactly one. */
export type InventoryBucket = "toolOutput" | "dormant" | "live";

/**
 * Why an item is redundant: `reread` the same file (same range) read again later; `rerun` the same
 * command / tool call with the same arguments run again later; `superseded` a read of a file that was
 * edited or written afterwards.
 */
export type RedundantReason = "reread" | "rerun" | "superseded";

export interface InventoryItem {
  readonly index: number;
  readonly kind: string;
  readonly bucket: InventoryBucket;
  readonly turn: number;
  /** Turns since the block was produced (currentTurn - turn). */
  readonly ageTurns: number;
  /** Turns since the block or its subject (a file path it names) was last referenced. */
  readonly idleTurns: number;
  readonly tokens: number;
  readonly tool?: string;
  /** What the output is of: the file path or the command (clipped), when known. */
  readonly subject?: string;
  readonly anchor?: string;
  readonly code?: string;
  readonly dormant: boolean;
  readonly redundant: boolean;
  readonly redundantReason?: RedundantReason;
  /** `#N` of the later block that makes this one redundant. */
  readonly supersededBy?: number;
  readonly folded: boolean;
  readonly reclaimable: boolean;
  /** tokens - stubTokens when reclaimable, else 0. */
  readonly reclaimableTokens: number;
}

export interface ToolSummary {
  readonly tool: string;
  readonly items: number;
  readonly tokens: number;
  readonly dormantItems: number;
  readonly redundantItems: number;
  readonly reclaimableItems: number;
  readonly reclaimableTokens: number;
  readonly oldestAgeTurns: number;
}

export interface FloorAccount {
  /** false when no floor input was given: `tokens` is then 0 and `note` says why. */
  readonly known: boolean;
  readonly tokens: number;
  readonly systemPrompt: number | null;
  readonly tools: number | null;
  readonly note?: string;
}

export interface BucketAccount {
  readonly items: number;
  readonly tokens: number;
}

export interface ContextInventory {
  readonly currentTurn: number;
  readonly dormantTurns: number;
  readonly stubTokens: number;
  /** How tokens were estimated (for display). */
  readonly estimator: string;
  readonly floor: FloorAccount;
  /** Every in-context block, in order. Σ tokens = total.conversation. */
  readonly items: readonly InventoryItem[];
  readonly toolOutput: BucketAccount & { readonly byTool: readonly ToolSummary[] };
  readonly dormant: BucketAccount;
  readonly live: BucketAccount;
  /** Tokens per block kind (sorted by kind); sums to total.conversation. */
  readonly byKind: readonly { readonly kind: string; readonly items: number; readonly tokens: number }[];
  readonly reclaimable: BucketAccount;
  readonly redundant: BucketAccount;
  readonly total: {
    /** floor.tokens + conversation (the floor counts 0 when unknown). */
    readonly tokens: number;
    readonly conversation: number;
  };
}
