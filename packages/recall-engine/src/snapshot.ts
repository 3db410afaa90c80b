// A block table beside the recall cache, so a one-shot search (the CLI) can answer without parsing the
// ledger: the blocks' metadata, the lineage and the compaction segments, keyed to the exact ledger bytes
// it was read from. Block text is read back per block, when a result needs it, from the entry's bytes in
// the ledger, and checked against a hash of the text the full read saw: any difference ends the fast
// path (SnapshotStaleError) and the caller reads the ledger the full way.
import { readFileSync, statSync } from "node:fs";
import type { Block, BlockKind, Session } from "@context-fold/ledger-reader";
// Subpaths, not the packages' main entries: a one-shot search loads this module (see one-shot.ts).
import { blockTextAt } from "@context-fold/ledger-reader/block-text";
import { sha256Hex } from "@context-fold/seed-index-format/block-text";
import { SnapshotStaleError } from "./errors.js";
import { type CacheKey, cacheKeyFor, isCacheKey, ledgerEdges, writeAtomic } from "./index-cache.js";
import type { RecallSession } from "./recall-index.js";
import type { ScopeSource } from "./scope.js";

/** 1: columnar block table (this file's first format). */
export const SNAPSHOT_FORMAT = 1;

/** The block table's file, beside the cache it was written with. */
export function snapshotPath(cachePath: string): string {
  return `${cachePath}.blocks.json`;
}

/** Hex digits of a block text's sha256 kept per block (64 bits: a check, not a commitment). */
const SHA_CHARS = 16;

const KINDS: readonly BlockKind[] = ["user", "text", "thinking", "toolCall", "toolResult", "bash", "custom", "compaction", "branchSummary"];

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

/** One column per block field; nulls where a block has no such field. */
interface BlockColumns extends OptionalColumns {
  readonly entryId: string[];
  readonly entryPosition: number[];
  /** Index into KINDS. */
  readonly kind: number[];
  readonly role: string[];
  readonly turn: number[];
  readonly partIndex: (number | null)[];
  readonly timestamp: (string | null)[];
  readonly line: number[];
  readonly byteOffset: number[];
  readonly byteLength: number[];
  readonly sha: string[];
}

interface SnapshotDocument {
  readonly format: number;
  /** The ledger bytes it was read from, pinned as the cache's key pins them. */
  readonly key: CacheKey;
  readonly lineageIds: string[];
  readonly compactions: { number: number; segment: { from: number; to: number } | null; entryIds: string[] }[];
  readonly blocks: BlockColumns;
}

/**
 * Whether a session can be served from a snapshot: written as v3 (what Pi writes now; older files are
 * migrated in memory, so their bytes are not the blocks' source as is) and without damage (a recovered
 * torn line has no entry bytes of its own to read back).
 */
export function snapshotEligible(session: Session): boolean {
  return session.header.version === 3 && session.damaged.length === 0;
}

/**
 * The entry ids and text hashes of the block table beside `cachePath`, whatever ledger bytes it was
 * written for (null when there is none): the hashes recorded when each block was first indexed.
 */
export function readRecordedShas(cachePath: string): { readonly entryId: readonly string[]; readonly sha: readonly string[] } | null {
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(snapshotPath(cachePath), "utf8"));
  } catch {
    return null;
  }
  return isDocument(doc) ? { entryId: doc.blocks.entryId, sha: doc.blocks.sha } : null;
}

/**
 * Writes the block table of `session` beside `cachePath` (atomically); false when not eligible. A block the
 * previous table already held (same #N, same entry) keeps the hash recorded then: the first hash stands,
 * so text changed in the ledger since is never recorded as good.
 */
export function writeSnapshot(cachePath: string, session: Session): boolean {
  if (!snapshotEligible(session)) return false;
  const previous = readRecordedShas(cachePath);
  const c: BlockColumns = {
    entryId: [],
    entryPosition: [],
    kind: [],
    role: [],
    turn: [],
    partIndex: [],
    anchor: [],
    toolName: [],
    toolCallId: [],
    isError: [],
    exitCode: [],
    command: [],
    fullOutputPath: [],
    timestamp: [],
    line: [],
    byteOffset: [],
    byteLength: [],
    sha: [],
  };
  for (const b of session.blocks) {
    c.entryId.push(b.entryId);
    c.entryPosition.push(b.entryPosition);
    c.kind.push(KINDS.indexOf(b.kind));
    c.role.push(b.role);
    c.turn.push(b.turn);
    c.partIndex.push(b.partIndex ?? null);
    pushOptionalFields(c, b);
    c.timestamp.push(b.timestamp ?? null);
    c.line.push(b.line);
    c.byteOffset.push(b.byteOffset);
    c.byteLength.push(b.byteLength);
    const first = previous !== null && previous.entryId[b.index] === b.entryId ? previous.sha[b.index] : undefined;
    c.sha.push(first ?? sha256Hex(b.text).slice(0, SHA_CHARS));
  }
  const doc: SnapshotDocument = {
    format: SNAPSHOT_FORMAT,
    key: cacheKeyFor(session.path, session),
    lineageIds: [...session.lineageIds],
    compactions: session.compactions.map((s) => ({ number: s.number, segment: s.segment === null ? null : { from: s.segment.from, to: s.segment.to }, entryIds: [...s.entryIds] })),
    blocks: c,
  };
  writeAtomic(snapshotPath(cachePath), Buffer.from(JSON.stringify(doc), "utf8"));
  return true;
}

/** A session served from a snapshot: metadata in memory, each block's text read back on first use. */
export interface SnapshotSession extends RecallSession, ScopeSource {
  readonly path: string;
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

class SnapshotBlock extends ReadBackBlock {
  private declare readonly file: string;
  private declare readonly sha: string;
  // The fields spelled out, not passed on as `...rest`: a table holds thousands of blocks, built while the
  // code is still cold, where a spread call costs several times a plain one.
  constructor(
    file: string,
    sha: string,
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
    super(index, entryId, entryPosition, kind, role, turn, timestamp, line, byteOffset, byteLength);
    this.file = file;
    this.sha = sha;
  }

  protected readText(): string {
    let text: string | undefined;
    try {
      text = blockTextAt(this.file, this, this.kind, this.partIndex);
    } catch (error) {
      throw new SnapshotStaleError(this.file, `block #${String(this.index)} cannot be read: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (text === undefined || sha256Hex(text).slice(0, SHA_CHARS) !== this.sha) {
      throw new SnapshotStaleError(this.file, `block #${String(this.index)} at line ${String(this.line)}, byte ${String(this.byteOffset)} changed`);
    }
    return text;
  }
}

function isDocument(value: unknown): value is SnapshotDocument {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  const blocks = v["blocks"] as Record<string, unknown> | undefined;
  if (v["format"] !== SNAPSHOT_FORMAT || !isCacheKey(v["key"]) || !Array.isArray(v["lineageIds"]) || !Array.isArray(v["compactions"])) return false;
  if (typeof blocks !== "object" || blocks === null || !Array.isArray(blocks["entryId"])) return false;
  const n = (blocks["entryId"] as unknown[]).length;
  const columns = ["entryPosition", "kind", "role", "turn", "partIndex", "anchor", "toolName", "toolCallId", "isError", "exitCode", "command", "fullOutputPath", "timestamp", "line", "byteOffset", "byteLength", "sha"];
  return columns.every((name) => Array.isArray(blocks[name]) && (blocks[name] as unknown[]).length === n);
}

/**
 * The session as the snapshot beside `cachePath` recorded it, when that snapshot was read from exactly the
 * bytes `sessionFile` holds now (id, length, first and last 64 KiB); null otherwise (missing, another
 * format, unreadable, or the ledger changed).
 */
export function openSnapshot(cachePath: string, sessionFile: string): SnapshotSession | null {
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(snapshotPath(cachePath), "utf8"));
  } catch {
    return null;
  }
  if (!isDocument(doc)) return null;
  let size: number;
  try {
    size = statSync(sessionFile).size;
  } catch {
    return null;
  }
  if (size !== doc.key.byteLength) return null;
  const edges = ledgerEdges(sessionFile, size);
  if (edges.head !== doc.key.head || edges.tail !== doc.key.tail) return null;
  const c = doc.blocks;
  const blocks: SnapshotBlock[] = [];
  for (let i = 0; i < c.entryId.length; i++) {
    const kind = KINDS[c.kind[i] as number];
    if (kind === undefined) return null;
    const b = new SnapshotBlock(
      sessionFile,
      c.sha[i] as string,
      i,
      c.entryId[i] as string,
      c.entryPosition[i] as number,
      kind,
      c.role[i] as string,
      c.turn[i] as number,
      c.timestamp[i] ?? undefined,
      c.line[i] as number,
      c.byteOffset[i] as number,
      c.byteLength[i] as number,
    );
    setOptionalFields(b, c, i, c.partIndex[i]);
    blocks.push(b);
  }
  return {
    path: sessionFile,
    header: { id: doc.key.sessionId },
    byteLength: size,
    blocks,
    lineageIds: new Set(doc.lineageIds),
    compactions: doc.compactions,
  };
}
