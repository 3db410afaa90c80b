// A block table beside the recall cache, so a one-shot search (the CLI) can answer without parsing the
// ledger: the blocks' metadata, the lineage and the compaction segments, keyed to the exact ledger bytes
// it was read from (its bytes: block-table.ts; written by snapshot-write.ts). Block text is read back per
// block, when a result needs it, from the entry's bytes in the ledger, and checked against a hash of the
// text the full read saw: any difference ends the fast path (SnapshotStaleError) and the caller reads the
// ledger the full way.
import { statSync } from "node:fs";
import type { Block, BlockKind, Session } from "@context-fold/ledger-reader";
// Subpaths, not the packages' main entries: a one-shot search loads this module (see one-shot.ts).
import { blockTextAt } from "@context-fold/ledger-reader/block-text";
import { sha256Hex } from "@context-fold/seed-index-format/block-text";
import { BlockTable } from "./block-table.js";
import { SnapshotStaleError } from "./errors.js";
import { type KnownEdges, ledgerEdges } from "./index-cache.js";
import type { RecallSession } from "./recall-index.js";
import type { ScopeSource } from "./scope.js";

/** The block table's file, beside the cache it was written with. */
export function snapshotPath(cachePath: string): string {
  return `${cachePath}.blocks`;
}

/** Where the table was kept while it was a JSON document (format 1): removed when a new one is written. */
export function formerSnapshotPath(cachePath: string): string {
  return `${cachePath}.blocks.json`;
}

/** Hex digits of a block text's sha256 kept per block (64 bits: a check, not a commitment). */
export const SHA_CHARS = 16;

/**
 * The block fields a block may lack, one column each (null, or 0 for isError, where it has none): the
 * columns this block table and the history's block table (history-table.ts) both keep, written and read
 * back by `pushOptionalFields` and `setOptionalFields` (one home for which fields they are and how).
 */
export interface OptionalColumns {
  readonly anchor: (string | null)[];
  readonly toolName: (string | null)[];
  readonly toolCallId: (string | null)[];
  readonly isError: (0 | 1)[];
  readonly exitCode: (number | null)[];
  /** A user `!cmd`'s command (the only arguments results show). */
  readonly command: (string | null)[];
  readonly fullOutputPath: (string | null)[];
}

/** The optional fields a block read back from a table can carry. */
export interface OptionalFields {
  partIndex?: number;
  anchor?: string;
  toolName?: string;
  toolCallId?: string;
  args?: Readonly<Record<string, unknown>>;
  isError?: boolean;
  exitCode?: number;
  fullOutputPath?: string;
}

/** Appends block `b`'s optional fields to `c` (nulls where it has none). */
export function pushOptionalFields(c: OptionalColumns, b: Block): void {
  const command = b.kind === "bash" ? b.args?.["command"] : undefined;
  c.anchor.push(b.anchor ?? null);
  c.toolName.push(b.toolName ?? null);
  c.toolCallId.push(b.toolCallId ?? null);
  c.isError.push(b.isError === true ? 1 : 0);
  c.exitCode.push(b.exitCode ?? null);
  c.command.push(typeof command === "string" ? command : null);
  c.fullOutputPath.push(b.fullOutputPath ?? null);
}

/**
 * Sets on `b` the optional fields row `i` of `c` holds, and `part` (where the table keeps the part
 * index: a column here, the text locations in the history's table) when it is one; absent ones stay unset.
 */
export function setOptionalFields(b: OptionalFields, c: OptionalColumns, i: number, part: number | null | undefined): void {
  if (part !== null && part !== undefined && part >= 0) b.partIndex = part;
  const anchor = c.anchor[i];
  if (anchor !== null && anchor !== undefined) b.anchor = anchor;
  const toolName = c.toolName[i];
  if (toolName !== null && toolName !== undefined) b.toolName = toolName;
  const toolCallId = c.toolCallId[i];
  if (toolCallId !== null && toolCallId !== undefined) b.toolCallId = toolCallId;
  if (c.isError[i] === 1) b.isError = true;
  const exitCode = c.exitCode[i];
  if (exitCode !== null && exitCode !== undefined) b.exitCode = exitCode;
  const command = c.command[i];
  if (command !== null && command !== undefined) b.args = { command };
  const fullOutputPath = c.fullOutputPath[i];
  if (fullOutputPath !== null && fullOutputPath !== undefined) b.fullOutputPath = fullOutputPath;
}

/**
 * Whether a session can be served from a snapshot: written as v3 (what Pi writes now; older files are
 * migrated in memory, so their bytes are not the blocks' source as is) and without damage (a recovered
 * torn line has no entry bytes of its own to read back).
 */
export function snapshotEligible(session: Session): boolean {
  // The table stores Pi's lineage: a session whose recovered view reaches further (a line lost without
  // a trace, so an orphan crosses to the entry before it) is searched from the ledger, as damage is.
  return session.header.version === 3 && session.damaged.length === 0 && session.recoveredLineageIds.size === session.lineageIds.size;
}

/**
 * The entry ids and text hashes of the block table beside `cachePath`, whatever ledger bytes it was
 * written for (null when there is none): the hashes recorded when each block was first indexed.
 */
export function readRecordedShas(cachePath: string): { readonly entryId: readonly string[]; readonly sha: readonly string[] } | null {
  return readTable(cachePath)?.recorded() ?? null;
}

/** The block table beside `cachePath`, or null when there is none of this format. */
function readTable(cachePath: string, wholeColumnsUpTo?: number): BlockTable | null {
  // Read by offset, each column as it is asked for (block-table.ts): a search holds its masks and page.
  return BlockTable.open(snapshotPath(cachePath), wholeColumnsUpTo);
}

/** A session served from a snapshot: metadata in memory, each block's text read back on first use. */
export interface SnapshotSession extends RecallSession, ScopeSource {
  readonly path: string;
  /** The ledger's edge hashes as checked against the table (the cache's key check reuses them). */
  readonly edges: KnownEdges;
}

/**
 * A block whose fields were decoded from a table and whose text is read back from the ledger on first
 * use (by `readText`, which checks it against the recorded hash): the snapshot's blocks and the history
 * table's.
 */
export abstract class ReadBackBlock implements Block, OptionalFields {
  // Declared, not defined as class fields: a table builds thousands of these while the code is still cold,
  // where each field definition costs a store of its own before the constructor's. A field a block does
  // not have stays absent (reads undefined), as on the blocks the ledger reader builds.
  declare readonly index: number;
  declare readonly entryId: string;
  declare readonly entryPosition: number;
  declare readonly kind: BlockKind;
  declare readonly role: string;
  declare readonly turn: number;
  declare readonly timestamp: string | undefined;
  declare readonly line: number;
  declare readonly byteOffset: number;
  declare readonly byteLength: number;
  private declare cached: string | undefined;
  declare partIndex?: number;
  declare anchor?: string;
  declare toolName?: string;
  declare toolCallId?: string;
  declare args?: Readonly<Record<string, unknown>>;
  declare isError?: boolean;
  declare exitCode?: number;
  declare fullOutputPath?: string;
  constructor(
    index: number,
    entryId: string,
    entryPosition: number,
    kind: BlockKind,
    role: string,
    turn: number,
    timestamp: string | undefined,
    line: number,
    byteOffset: number,
    byteLength: number,
  ) {
    this.index = index;
    this.entryId = entryId;
    this.entryPosition = entryPosition;
    this.kind = kind;
    this.role = role;
    this.turn = turn;
    this.timestamp = timestamp;
    this.line = line;
    this.byteOffset = byteOffset;
    this.byteLength = byteLength;
  }
  /** The block's text from the ledger, verified; throws when it cannot be read or changed. */
  protected abstract readText(): string;
  get text(): string {
    this.cached ??= this.readText();
    return this.cached;
  }
}

/**
 * Characters of block text a snapshot keeps once read (about 8 MB of one-byte text). A search reads the
 * text of every candidate of its phrases, then reads again only the few best of them (at most the
 * proximity, value and verbatim checks' hundreds, and its page), so what it reads once need not stay:
 * kept whole, the texts a search ever read stayed for as long as the session did (eval's needles over
 * the 1 GB bench session: 110 MB of text, in ~45,000 blocks). The newest reads are kept, the oldest let
 * go first; a text let go is read back (and checked) again when asked for, so every answer is the same.
 */
export const SNAPSHOT_TEXT_CHARS = 8 * 1024 * 1024;

/** The block texts a snapshot keeps (see SNAPSHOT_TEXT_CHARS): by `#N`, oldest read first. */
class TextsKept {
  private readonly texts = new Map<number, string>();
  private chars = 0;
  constructor(private readonly limit: number) {}
  get(index: number): string | undefined {
    return this.texts.get(index);
  }
  keep(index: number, text: string): void {
    this.texts.set(index, text);
    this.chars += text.length;
    while (this.chars > this.limit && this.texts.size > 1) {
      const [oldest, dropped] = this.texts.entries().next().value as [number, string];
      this.texts.delete(oldest);
      this.chars -= dropped.length;
    }
  }
}

/** What every block of one snapshot shares: one field per block, not three. */
interface SnapshotShared {
  readonly table: BlockTable;
  readonly file: string;
  readonly texts: TextsKept;
}

/**
 * A block of the table: each field read from the table's columns when asked for (a search asks most
 * blocks for a few fields only), its text read back from the ledger and checked when asked for (kept
 * among the snapshot's latest texts read: SNAPSHOT_TEXT_CHARS). A field the block does not have reads
 * undefined, as on the blocks the ledger reader builds (which is why it is not declared `implements
 * Block`: an optional field there is absent, here a getter that returns undefined).
 */
class SnapshotBlock {
  // Declared, not defined as class fields (as on ReadBackBlock): a search opens a table of thousands of
  // these while the code is still cold, where defining each field costs a store of its own before the
  // constructor's (about half the cost of building them on a 4 MB session). The one set later stays
  // absent until then.
  declare readonly index: number;
  /** A field of its own: the one a search reads of every block in scope (where segments start). */
  declare readonly kind: BlockKind;
  private declare readonly shared: SnapshotShared;
  private declare command: { readonly command: string } | undefined;
  constructor(shared: SnapshotShared, index: number, kind: BlockKind) {
    this.shared = shared;
    this.index = index;
    this.kind = kind;
  }
  private get table(): BlockTable {
    return this.shared.table;
  }
  get entryId(): string {
    return this.table.string("entryId", this.index) ?? "";
  }
  get entryPosition(): number {
    return this.table.entryPosition(this.index);
  }
  get role(): string {
    return this.table.string("role", this.index) ?? "";
  }
  get turn(): number {
    return this.table.turn(this.index);
  }
  get timestamp(): string | undefined {
    return this.table.string("timestamp", this.index);
  }
  get line(): number {
    return this.table.line(this.index);
  }
  get byteOffset(): number {
    return this.table.byteOffset(this.index);
  }
  get byteLength(): number {
    return this.table.byteLength(this.index);
  }
  get partIndex(): number | undefined {
    return this.table.partIndex(this.index);
  }
  get anchor(): string | undefined {
    return this.table.string("anchor", this.index);
  }
  get toolName(): string | undefined {
    return this.table.string("toolName", this.index);
  }
  get toolCallId(): string | undefined {
    return this.table.string("toolCallId", this.index);
  }
  /** A user `!cmd`'s command (the only arguments results show). */
  get args(): Readonly<Record<string, unknown>> | undefined {
    if (this.command === undefined) {
      const command = this.table.string("command", this.index);
      if (command === undefined) return undefined;
      this.command = { command };
    }
    return this.command;
  }
  get isError(): boolean | undefined {
    return this.table.isError(this.index) ? true : undefined;
  }
  get exitCode(): number | undefined {
    return this.table.exitCode(this.index);
  }
  get fullOutputPath(): string | undefined {
    return this.table.string("fullOutputPath", this.index);
  }
  /** The block's text from the ledger, verified; throws SnapshotStaleError when it cannot be read or changed. */
  get text(): string {
    const { texts } = this.shared;
    let text = texts.get(this.index);
    if (text === undefined) {
      text = this.readText();
      texts.keep(this.index, text);
    }
    return text;
  }
  private readText(): string {
    const { file } = this.shared;
    let text: string | undefined;
    try {
      text = blockTextAt(file, this as unknown as Block, this.kind, this.partIndex);
    } catch (error) {
      throw new SnapshotStaleError(file, `block #${String(this.index)} cannot be read: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (text === undefined || sha256Hex(text).slice(0, SHA_CHARS) !== this.table.shaHex(this.index)) {
      throw new SnapshotStaleError(file, `block #${String(this.index)} at line ${String(this.line)}, byte ${String(this.byteOffset)} changed`);
    }
    return text;
  }
}

/**
 * The session as the snapshot beside `cachePath` recorded it, when that snapshot was read from exactly the
 * bytes `sessionFile` holds now (id, length, first and last 64 KiB); null otherwise (missing, another
 * format, unreadable, or the ledger changed). `textChars`: how much block text it keeps once read
 * (SNAPSHOT_TEXT_CHARS; a test makes it small to see texts read back again); `wholeColumnsUpTo`: see
 * block-table.ts's WHOLE_COLUMNS_UP_TO (a test makes it 0 to read a small table value by value).
 */
export function openSnapshot(cachePath: string, sessionFile: string, textChars = SNAPSHOT_TEXT_CHARS, wholeColumnsUpTo?: number): SnapshotSession | null {
  const table = readTable(cachePath, wholeColumnsUpTo);
  if (table === null) return null;
  let size: number;
  try {
    size = statSync(sessionFile).size;
  } catch {
    return null;
  }
  if (size !== table.key.byteLength) return null;
  const edges = ledgerEdges(sessionFile, size);
  if (edges.head !== table.key.head || edges.tail !== table.key.tail) return null;
  const kinds = table.kinds();
  if (kinds === null) return null;
  const built = new Array<SnapshotBlock>(kinds.length);
  const shared: SnapshotShared = { table, file: sessionFile, texts: new TextsKept(textChars) };
  for (let i = 0; i < kinds.length; i++) built[i] = new SnapshotBlock(shared, i, kinds[i] as BlockKind);
  // Every field of Block is there (see SnapshotBlock); only the optional ones' absence is a getter's undefined.
  const blocks = built as unknown as Block[];
  let lineage: ReadonlySet<string> | undefined;
  return {
    path: sessionFile,
    header: { id: table.key.sessionId },
    byteLength: size,
    edges: { byteLength: size, head: edges.head, tail: edges.tail },
    blocks,
    // A search of another scope never asks for it.
    get lineageIds(): ReadonlySet<string> {
      lineage ??= new Set(table.lineageIds());
      return lineage;
    },
    compactions: table.compactions,
    lineageMask: () => table.lineageMask(),
    notHistoryMask: () => table.notHistoryMask(),
    callResults: () => table.callResults(),
  };
}
