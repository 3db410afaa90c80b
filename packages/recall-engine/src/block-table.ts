// The block table's bytes: the one home of its format, writer and reader together. A one-shot search
// (the CLI) opens it on every run, so it is read without a parse: fixed-width columns the reader views in
// place (typed arrays over the file's bytes), and string columns kept as one text each, cut per block
// only when that block's field is asked for. The blocks on a result page are all that get built in full.
//
// Layout (integers little-endian; every section starts at a multiple of 8 bytes):
//   "CFBT" · u32 format · u32 meta length · meta (JSON, UTF-8: the cache key, compactions, block count,
//   the string columns' sizes and encodings)
//   f64 byteOffset[n] · i32 entryPosition[n], turn[n], partIndex[n] (-1: none), line[n], byteLength[n],
//   exitCode[n], callResult[n] · u8 kind[n], flags[n] (1: isError, 2: has an exit code), onLineage[n] (1:
//   on the active lineage), notHistory[n] (1: not history) · sha[n × 8 bytes]
//   then per string column (STRING_COLUMNS order): i32 length[count] (UTF-16 units, -1: none) · its text
//   (latin1 when every character fits a byte, else UTF-16LE, so any string comes back exactly).
// What a search computes over every block before it ranks (the lineage, what is not history, which
// result answers which call) is kept per block too, computed by the full read that writes the table,
// so a search reads those columns instead of asking every block for its fields.
import type { Block, BlockKind } from "@context-fold/ledger-reader";
import { SnapshotStaleError } from "./errors.js";
import { type CacheKey, isCacheKey } from "./index-cache.js";
import { bufferSource, FileSource } from "./paged-postings.js";
import { type ByteSink, MemorySink, MemoryText, type TextSink } from "./spill-files.js";
import type { ByteSource } from "./term-codec.js";

/** 2: this binary layout (1 was a JSON document). */
export const BLOCK_TABLE_FORMAT = 2;

const MAGIC = "CFBT";
const KINDS: readonly BlockKind[] = ["user", "text", "thinking", "toolCall", "toolResult", "bash", "custom", "compaction", "branchSummary"];
/** Bytes of a block text's sha256 kept per block (64 bits: a check, not a commitment). */
const SHA_BYTES = 8;
const IS_ERROR = 1;
const HAS_EXIT_CODE = 2;
/** The i32 columns, in file order. */
const INT_COLUMNS = 7;

/** The per-block string columns, then the lineage's entry ids (a list of its own length). */
const STRING_COLUMNS = ["entryId", "role", "timestamp", "anchor", "toolName", "toolCallId", "command", "fullOutputPath", "lineageIds"] as const;
type StringColumn = (typeof STRING_COLUMNS)[number];

/** The compaction segments as a scope reads them. */
export interface TableCompaction {
  readonly number: number;
  readonly segment: { readonly from: number; readonly to: number } | null;
  readonly entryIds: readonly string[];
}

/** What a table is written from: the blocks (their text is not kept), each text's hash, the lineage and compactions. */
export interface BlockTableInput {
  readonly key: CacheKey;
  readonly blocks: readonly Block[];
  /** Per block, the hex sha256 of its text (at least 16 digits; the first 16 are kept). */
  readonly shaHex: readonly string[];
  readonly lineageIds: ReadonlySet<string>;
  readonly compactions: readonly TableCompaction[];
  /** `[#N] === 1` for the blocks that are not history (see not-history.ts). */
  readonly notHistory: Uint8Array;
  /** Tool call `#N` → the `#N` of its result, -1 for other blocks (see call-results.ts). */
  readonly callResults: Int32Array;
}

interface ColumnMeta {
  readonly count: number;
  readonly bytes: number;
  /** The sum of its strings' lengths (UTF-16 units). */
  readonly units: number;
  readonly latin1: boolean;
}

interface Meta {
  readonly key: CacheKey;
  readonly count: number;
  readonly compactions: TableCompaction[];
  readonly strings: Record<StringColumn, ColumnMeta>;
}

const pad8 = (n: number): number => (n + 7) & ~7;

/** Whether this machine stores typed arrays little-endian, as the table is laid out. */
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;


/** One string column as it is written: each value's length (-1: none), and the text (see TextSink). */
class StringSink {
  private readonly lengths: ByteSink;
  private readonly text: TextSink;
  private count = 0;
  constructor(lengths: ByteSink, text: TextSink) {
    this.lengths = lengths;
    this.text = text;
  }
  add(v: string | null | undefined): void {
    this.count++;
    if (v === null || v === undefined) {
      this.lengths.i32(-1);
      return;
    }
    this.lengths.i32(v.length);
    this.text.add(v);
  }
  get meta(): ColumnMeta {
    const latin1 = this.text.latin1();
    return { count: this.count, bytes: this.text.units * (latin1 ? 1 : 2), units: this.text.units, latin1 };
  }
  pieces(): { readonly lengths: Iterable<Uint8Array>; readonly text: Iterable<Uint8Array> } {
    return { lengths: this.lengths.pieces(), text: this.text.pieces() };
  }
}

/** Where a table writer puts its columns: a sink per fixed-width section and per string column's text, named by the column. */
export interface TableSinks {
  bytes(name: string): ByteSink;
  text(name: string): TextSink;
}

/**
 * Writes a block table a block at a time: each column goes to a sink of its own (in memory, or spilled
 * to a file by a streamed build), so the blocks need not be held; `finish` gives the file's bytes in order.
 * The one home of how a block's fields are laid out in the table.
 */
export class BlockTableWriter {
  private readonly byteOffset: ByteSink;
  private readonly ints: readonly ByteSink[];
  private readonly u8s: readonly ByteSink[];
  private readonly sha: ByteSink;
  private readonly strings: Record<StringColumn, StringSink>;
  count = 0;

  constructor(sinks: TableSinks) {
    const sinkFor = (name: string): ByteSink => sinks.bytes(name);
    if (!LITTLE_ENDIAN) throw new Error("the block table is written little-endian only");
    this.byteOffset = sinkFor("byteOffset");
    // entryPosition, turn, partIndex, line, byteLength, exitCode (callResult comes whole at the end).
    this.ints = Array.from({ length: INT_COLUMNS - 1 }, (_, c) => sinkFor(`int${String(c)}`));
    // kind, flags, notHistory (onLineage comes whole at the end).
    this.u8s = Array.from({ length: 3 }, (_, c) => sinkFor(`u8${String(c)}`));
    this.sha = sinkFor("sha");
    this.strings = Object.fromEntries(STRING_COLUMNS.map((name) => [name, new StringSink(sinkFor(`${name}.lengths`), sinks.text(name))])) as Record<StringColumn, StringSink>;
  }

  /** The next block (`#N` = blocks added before it), its text's hex sha256, and whether it is history. */
  add(b: Block, shaHex: string, notHistory: boolean): void {
    const i = this.count;
    const k = KINDS.indexOf(b.kind);
    if (k === -1) throw new Error(`block #${String(i)} has an unknown kind ${b.kind}`);
    this.byteOffset.f64(b.byteOffset);
    // Indexed, not destructured: this runs per block while the code is still cold, where a destructuring walks an iterator.
    const ints = this.ints;
    (ints[0] as ByteSink).i32(b.entryPosition);
    (ints[1] as ByteSink).i32(b.turn);
    (ints[2] as ByteSink).i32(b.partIndex ?? -1);
    (ints[3] as ByteSink).i32(b.line);
    (ints[4] as ByteSink).i32(b.byteLength);
    (ints[5] as ByteSink).i32(b.exitCode ?? 0);
    const u8s = this.u8s;
    (u8s[0] as ByteSink).u8(k);
    (u8s[1] as ByteSink).u8((b.isError === true ? IS_ERROR : 0) | (b.exitCode === undefined ? 0 : HAS_EXIT_CODE));
    (u8s[2] as ByteSink).u8(notHistory ? 1 : 0);
    if (this.sha.hex(shaHex.slice(0, SHA_BYTES * 2), SHA_BYTES) !== SHA_BYTES) throw new Error(`block #${String(i)} has no 16-digit hash`);
    const command = b.kind === "bash" ? b.args?.["command"] : undefined;
    const s = this.strings;
    s.entryId.add(b.entryId);
    s.role.add(b.role);
    s.timestamp.add(b.timestamp);
    s.anchor.add(b.anchor);
    s.toolName.add(b.toolName);
    s.toolCallId.add(b.toolCallId);
    s.command.add(typeof command === "string" ? command : null);
    s.fullOutputPath.add(b.fullOutputPath);
    this.count = i + 1;
  }

  /** One id of the active lineage (in the lineage's order). */
  addLineageId(id: string): void {
    this.strings.lineageIds.add(id);
  }

  /**
   * The table's bytes in order (each sink's pieces as they are read back), for `key`, `compactions`, the
   * call pairing and which blocks are on the active lineage (what is known only once the whole ledger was read).
   */
  finish(key: CacheKey, compactions: readonly TableCompaction[], callResults: Int32Array, onLineage: Uint8Array): { readonly chunks: Iterable<Uint8Array>; readonly byteLength: number } {
    const n = this.count;
    if (callResults.length !== n || onLineage.length !== n) throw new Error("the block table's columns must hold one value per block");
    const meta: Meta = {
      key,
      count: n,
      compactions: compactions.map((c) => ({ number: c.number, segment: c.segment === null ? null : { from: c.segment.from, to: c.segment.to }, entryIds: [...c.entryIds] })),
      strings: Object.fromEntries(STRING_COLUMNS.map((name) => [name, this.strings[name].meta])) as Record<StringColumn, ColumnMeta>,
    };
    const metaBytes = Buffer.from(JSON.stringify(meta), "utf8");
    const head = Buffer.alloc(12);
    head.write(MAGIC, 0, "latin1");
    head.writeUInt32LE(BLOCK_TABLE_FORMAT, 4);
    head.writeUInt32LE(metaBytes.length, 8);
    const sections: { readonly size: number; readonly pieces: Iterable<Uint8Array> }[] = [
      { size: 12, pieces: [head] },
      { size: metaBytes.length, pieces: [metaBytes] },
      this.section(this.byteOffset),
      ...this.ints.map((sink) => this.section(sink)),
      { size: 4 * n, pieces: [new Uint8Array(callResults.buffer, callResults.byteOffset, 4 * n)] },
      this.section(this.u8s[0] as ByteSink),
      this.section(this.u8s[1] as ByteSink),
      { size: n, pieces: [onLineage] },
      this.section(this.u8s[2] as ByteSink),
      this.section(this.sha),
    ];
    for (const name of STRING_COLUMNS) {
      const column = this.strings[name];
      const { lengths, text } = column.pieces();
      sections.push({ size: 4 * column.meta.count, pieces: lengths }, { size: column.meta.bytes, pieces: text });
    }
    // Every section after the head starts at a multiple of 8 (the head is 12 bytes: the meta right after it).
    let byteLength = 0;
    const gaps: number[] = [];
    for (let j = 0; j < sections.length; j++) {
      byteLength += (sections[j] as { size: number }).size;
      const gap = j === 0 ? 0 : pad8(byteLength) - byteLength;
      gaps.push(gap);
      byteLength += gap;
    }
    function* chunks(): Iterable<Uint8Array> {
      for (let j = 0; j < sections.length; j++) {
        const section = sections[j] as { pieces: Iterable<Uint8Array> };
        yield* section.pieces;
        const gap = gaps[j] as number;
        if (gap > 0) yield Buffer.alloc(gap);
      }
    }
    return { chunks: chunks(), byteLength };
  }

  private section(sink: ByteSink): { readonly size: number; readonly pieces: Iterable<Uint8Array> } {
    return { size: sink.size, pieces: sink.pieces() };
  }
}

/** The table's bytes for `input`. */
export function encodeBlockTable(input: BlockTableInput): Buffer {
  const parts = encodeBlockTableParts(input);
  return Buffer.concat(parts.chunks, parts.byteLength);
}

/**
 * The table's bytes for `input` as its sections in order: what a write streams to the file, so the table
 * (254 MB for a 1 GB session) never lies in memory twice.
 */
export function encodeBlockTableParts(input: BlockTableInput): { readonly chunks: readonly Uint8Array[]; readonly byteLength: number } {
  const blocks = input.blocks;
  const n = blocks.length;
  if (input.callResults.length !== n || input.notHistory.length !== n) throw new Error("the block table's columns must hold one value per block");
  const writer = new BlockTableWriter({ bytes: (name) => new MemorySink((name === "byteOffset" ? 8 : name.startsWith("u8") ? 1 : 4) * n), text: () => new MemoryText() });
  const onLineage = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const b = blocks[i] as Block;
    writer.add(b, input.shaHex[i] ?? "", input.notHistory[i] === 1);
    if (input.lineageIds.has(b.entryId)) onLineage[i] = 1;
  }
  for (const id of input.lineageIds) writer.addLineageId(id);
  const { chunks, byteLength } = writer.finish(input.key, input.compactions, input.callResults, onLineage);
  return { chunks: [...chunks], byteLength };
}

/**
 * Blocks above which a table read from its file reads the per-block fields a search asks of a few blocks
 * only (byte offset and length, part index, line, turn, entry position, exit code, hash) value by value,
 * not each column whole: a 1 GB session's table (1.5 million blocks) held 46 MB of them for the texts a
 * search reads (its phrases' candidates), a few thousand blocks. Below it, a column read whole costs less
 * than the reads of its values (a 100 MB session's table: 150,000 blocks).
 */
export const WHOLE_COLUMNS_UP_TO = 1 << 20;

/** Bytes of a string column read at once (and kept, a few at a time) when a table is read from its file. */
const WINDOW_BYTES = 64 * 1024;
/** Windows kept per column. */
const WINDOWS_KEPT = 16;

/**
 * One string column as read: its lengths read on first use (and checked against the text's size: a table
 * that fails the check is stale to its reader, SnapshotStaleError, as a changed block is), each value cut
 * from its text on request. Read from bytes in memory, the text is decoded whole on first use; read from
 * its file, only the window of text a value lies in is read (a search asks for the fields of the blocks
 * on its page, a few dozen values).
 */
class Strings {
  private readonly name: string;
  private readonly source: string;
  private readonly bytes: ByteSource;
  private readonly lengthsAt: number;
  private readonly textAt: number;
  private readonly whole: boolean;
  private readonly meta: ColumnMeta;
  /**
   * Where each value starts in the text (UTF-16 units), and where the last ends (`count + 1` of them): a
   * value's length is the next start less its own. Its lengths as stored are not kept beside them (a
   * column of the 1 GB bench session's 1.5 million blocks: 5.8 MB each that a search read whole).
   */
  private starts: Int32Array | undefined;
  /** Bit `i` set: value `i` is none (its length stored as -1), not "". */
  private none: Uint8Array | undefined;
  private text: string | undefined;
  private readonly windows = new Map<number, string>();
  constructor(name: string, source: string, bytes: ByteSource, lengthsAt: number, textAt: number, meta: ColumnMeta, whole: boolean) {
    this.name = name;
    this.source = source;
    this.bytes = bytes;
    this.lengthsAt = lengthsAt;
    this.textAt = textAt;
    this.meta = meta;
    this.whole = whole;
  }
  get count(): number {
    return this.meta.count;
  }
  private get unitBytes(): number {
    return this.meta.latin1 ? 1 : 2;
  }
  private decode(buf: Buffer): string {
    return buf.toString(this.meta.latin1 ? "latin1" : "utf16le");
  }
  /** Where each value starts in the text (UTF-16 units; see `starts`), checked to add up to the text on first use. */
  private startsOf(): Int32Array {
    if (this.starts === undefined) {
      const count = this.meta.count;
      const lengths = int32s(this.bytes.read(this.lengthsAt, count * 4), count);
      const starts = new Int32Array(count + 1);
      const none = new Uint8Array((count + 7) >> 3);
      let at = 0;
      for (let k = 0; k < count; k++) {
        starts[k] = at;
        const len = lengths[k] as number;
        if (len > 0) at += len;
        else if (len === -1) none[k >> 3] = (none[k >> 3] as number) | (1 << (k & 7));
        else if (len < -1) at = Infinity;
      }
      if (at !== this.meta.units) throw new SnapshotStaleError(this.source, `the block table's ${this.name} column does not add up`);
      starts[count] = at;
      this.none = none;
      this.starts = starts;
    }
    return this.starts;
  }
  /** Whether value `i` is none (see `none`; `startsOf` first). */
  private isNone(i: number): boolean {
    return (((this.none as Uint8Array)[i >> 3] as number) & (1 << (i & 7))) !== 0;
  }
  /** Units [start, start + len) of the text, read from the window they lie in when they fit one. */
  private cut(start: number, len: number): string {
    if (this.whole) {
      this.text ??= this.decode(this.bytes.read(this.textAt, this.meta.bytes));
      return this.text.slice(start, start + len);
    }
    const units = WINDOW_BYTES / this.unitBytes;
    const w = Math.floor(start / units);
    if (start + len > (w + 1) * units) return this.decode(this.bytes.read(this.textAt + start * this.unitBytes, len * this.unitBytes));
    let window = this.windows.get(w);
    if (window === undefined) {
      const from = w * WINDOW_BYTES;
      window = this.decode(this.bytes.read(this.textAt + from, Math.min(WINDOW_BYTES, this.meta.bytes - from)));
      if (this.windows.size >= WINDOWS_KEPT) this.windows.delete(this.windows.keys().next().value as number);
      this.windows.set(w, window);
    }
    return window.slice(start - w * units, start - w * units + len);
  }
  /** Value `i`, or undefined when it has none. */
  at(i: number): string | undefined {
    const starts = this.startsOf();
    if (i < 0 || i >= this.meta.count || this.isNone(i)) return undefined;
    return this.cut(starts[i] as number, (starts[i + 1] as number) - (starts[i] as number));
  }
  /** Every value (none: null), decoded now (the text read whole once). */
  all(): (string | null)[] {
    const starts = this.startsOf();
    const text = this.text ?? this.decode(this.bytes.read(this.textAt, this.meta.bytes));
    return Array.from({ length: this.count }, (_, i) => (this.isNone(i) ? null : text.slice(starts[i] as number, starts[i + 1] as number)));
  }
}

/** `n` i32 read in place from `buf` when they lie 4-aligned in memory, else from a copy. */
function int32s(buf: Buffer, n: number): Int32Array {
  if (buf.byteOffset % 4 === 0) return new Int32Array(buf.buffer, buf.byteOffset, n);
  return new Int32Array(Uint8Array.from(buf).buffer, 0, n);
}

/** `n` f64 read in place from `buf` when they lie 8-aligned in memory, else from a copy. */
function float64s(buf: Buffer, n: number): Float64Array {
  if (buf.byteOffset % 8 === 0) return new Float64Array(buf.buffer, buf.byteOffset, n);
  return new Float64Array(Uint8Array.from(buf).buffer, 0, n);
}

/** Where a table's sections lie: positions in its bytes. */
interface Sections {
  readonly offsetsAt: number;
  readonly intsAt: readonly number[];
  readonly bytesAt: readonly number[];
  readonly shaAt: number;
}

/**
 * A block table read from its bytes: the key and compactions, and each block's fields on request. Each
 * fixed-width column is read when first asked for (a search reads the kinds and masks of every block,
 * the other columns for the blocks on its page only), so a table read from its file holds what its
 * reader asked for, not the whole file (254 MB for a 1 GB session, most of it strings a search never cuts).
 */
export class BlockTable {
  readonly key: CacheKey;
  readonly count: number;
  readonly compactions: readonly TableCompaction[];
  private readonly bytes: ByteSource;
  private readonly sections: Sections;
  private readonly columns: (Float64Array | Int32Array | Uint8Array | Buffer | undefined)[] = [];
  private readonly strings: Record<StringColumn, Strings>;
  /** The per-block fields are read value by value (see WHOLE_COLUMNS_UP_TO). */
  private readonly byValue: boolean;

  private constructor(meta: Meta, bytes: ByteSource, sections: Sections, strings: Record<StringColumn, Strings>, byValue: boolean) {
    this.byValue = byValue;
    this.key = meta.key;
    this.count = meta.count;
    this.compactions = meta.compactions;
    this.bytes = bytes;
    this.sections = sections;
    this.strings = strings;
  }

  /**
   * The table in `bytes`, or null when they are not one of this format (another format, torn, or
   * foreign). `source` names the table in a SnapshotStaleError, should a column fail its check on use.
   */
  static decode(bytes: Buffer, source = "block table"): BlockTable | null {
    // Typed arrays view the bytes in place, which needs the sections aligned in memory as in the file.
    const buf = bytes.byteOffset % 8 === 0 ? bytes : Buffer.from(bytes);
    return BlockTable.fromSource(bufferSource(buf), source, true, Infinity);
  }

  /**
   * The table in the file at `path`, read by offset through a descriptor kept open (each column when
   * first asked for, string values a window at a time); null when there is none, or it is not one of
   * this format. A table of more than `wholeColumnsUpTo` blocks reads its per-block fields value by value.
   */
  static open(path: string, wholeColumnsUpTo = WHOLE_COLUMNS_UP_TO): BlockTable | null {
    let file: FileSource;
    try {
      file = new FileSource(path);
    } catch {
      return null;
    }
    try {
      const table = BlockTable.fromSource(file, path, false, wholeColumnsUpTo);
      if (table === null) file.close();
      return table;
    } catch (error) {
      file.close();
      throw error;
    }
  }

  private static fromSource(bytes: ByteSource, source: string, whole: boolean, wholeColumnsUpTo: number): BlockTable | null {
    if (!LITTLE_ENDIAN || bytes.size < 12) return null;
    const fixed = bytes.read(0, 12);
    if (fixed.toString("latin1", 0, 4) !== MAGIC || fixed.readUInt32LE(4) !== BLOCK_TABLE_FORMAT) return null;
    const metaLength = fixed.readUInt32LE(8);
    if (12 + metaLength > bytes.size) return null;
    let meta: Meta;
    try {
      meta = JSON.parse(bytes.read(12, metaLength).toString("utf8")) as Meta;
    } catch {
      return null;
    }
    if (!isMeta(meta)) return null;
    const n = meta.count;
    let at = pad8(12 + metaLength);
    const take = (length: number): number | null => {
      const start = at;
      if (start + length > bytes.size) return null;
      at = pad8(start + length);
      return start;
    };
    const offsetsAt = take(n * 8);
    if (offsetsAt === null) return null;
    const intsAt: number[] = [];
    for (let c = 0; c < INT_COLUMNS; c++) {
      const start = take(n * 4);
      if (start === null) return null;
      intsAt.push(start);
    }
    const bytesAt: number[] = [];
    for (let c = 0; c < 4; c++) {
      const start = take(n);
      if (start === null) return null;
      bytesAt.push(start);
    }
    const shaAt = take(n * SHA_BYTES);
    if (shaAt === null) return null;
    const strings = {} as Record<StringColumn, Strings>;
    for (const name of STRING_COLUMNS) {
      const column = meta.strings[name];
      if (name !== "lineageIds" && column.count !== n) return null;
      const lengthsAt = take(column.count * 4);
      if (lengthsAt === null) return null;
      const textAt = take(column.bytes);
      if (textAt === null || column.units * (column.latin1 ? 1 : 2) !== column.bytes) return null;
      strings[name] = new Strings(name, source, bytes, lengthsAt, textAt, column, whole);
    }
    if (at !== pad8(bytes.size)) return null;
    return new BlockTable(meta, bytes, { offsetsAt, intsAt, bytesAt, shaAt }, strings, n > wholeColumnsUpTo);
  }

  /** Column `slot` (0: byte offsets, 1–7: the i32 columns, 8–11: the u8 ones, 12: hashes), read on first use. */
  private column(slot: number): Float64Array | Int32Array | Uint8Array | Buffer {
    let column = this.columns[slot];
    if (column === undefined) {
      const n = this.count;
      const { offsetsAt, intsAt, bytesAt, shaAt } = this.sections;
      if (slot === 0) {
        column = float64s(this.bytes.read(offsetsAt, n * 8), n);
      } else if (slot <= INT_COLUMNS) {
        column = int32s(this.bytes.read(intsAt[slot - 1] as number, n * 4), n);
      } else if (slot <= INT_COLUMNS + 4) column = this.bytes.read(bytesAt[slot - INT_COLUMNS - 1] as number, n);
      else column = this.bytes.read(shaAt, n * SHA_BYTES);
      this.columns[slot] = column;
    }
    return column;
  }
  private int(c: number): Int32Array {
    return this.column(1 + c) as Int32Array;
  }
  private byteColumn(c: number): Uint8Array {
    return this.column(1 + INT_COLUMNS + c) as Buffer;
  }
  /** Value `i` of i32 column `c` (0–5: the per-block fields), from the column or read alone (`byValue`). */
  private intAt(c: number, i: number): number {
    if (!this.byValue) return this.int(c)[i] as number;
    return this.bytes.read((this.sections.intsAt[c] as number) + 4 * i, 4).readInt32LE(0);
  }

  /** Block `i`'s kind; undefined when the table holds no kind there (then it is not to be trusted). */
  kind(i: number): BlockKind | undefined {
    return KINDS[this.byteColumn(0)[i] as number];
  }
  /**
   * Every block's kind in order (what `kind` gives each); null when one has none. One loop over the
   * column without a call per block: a snapshot opens with all of them while its code is still cold,
   * where three calls per block cost more than the blocks.
   */
  kinds(): BlockKind[] | null {
    const column = this.byteColumn(0);
    const n = this.count;
    const out = new Array<BlockKind>(n);
    for (let i = 0; i < n; i++) {
      const kind = KINDS[column[i] as number];
      if (kind === undefined) return null;
      out[i] = kind;
    }
    return out;
  }
  byteOffset(i: number): number {
    if (this.byValue) return this.bytes.read(this.sections.offsetsAt + 8 * i, 8).readDoubleLE(0);
    return (this.column(0) as Float64Array)[i] as number;
  }
  entryPosition(i: number): number {
    return this.intAt(0, i);
  }
  turn(i: number): number {
    return this.intAt(1, i);
  }
  partIndex(i: number): number | undefined {
    const part = this.intAt(2, i);
    return part < 0 ? undefined : part;
  }
  line(i: number): number {
    return this.intAt(3, i);
  }
  byteLength(i: number): number {
    return this.intAt(4, i);
  }
  exitCode(i: number): number | undefined {
    return ((this.byteColumn(1)[i] as number) & HAS_EXIT_CODE) === 0 ? undefined : this.intAt(5, i);
  }
  isError(i: number): boolean {
    return ((this.byteColumn(1)[i] as number) & IS_ERROR) !== 0;
  }
  /** `[#N] === 1` for the blocks on the active lineage. */
  lineageMask(): Uint8Array {
    return this.byteColumn(2);
  }
  /** `[#N] === 1` for the blocks that are not history. */
  notHistoryMask(): Uint8Array {
    return this.byteColumn(3);
  }
  /** Tool call `#N` → the `#N` of its result, -1 for other blocks. */
  callResults(): Int32Array {
    return this.int(6);
  }
  /** The first 16 hex digits of the sha256 of block `i`'s text, as recorded. */
  shaHex(i: number): string {
    if (this.byValue) return this.bytes.read(this.sections.shaAt + i * SHA_BYTES, SHA_BYTES).toString("hex");
    return (this.column(1 + INT_COLUMNS + 4) as Buffer).toString("hex", i * SHA_BYTES, (i + 1) * SHA_BYTES);
  }
  string(name: Exclude<StringColumn, "lineageIds">, i: number): string | undefined {
    return this.strings[name].at(i);
  }
  /** The active lineage's entry ids. */
  lineageIds(): string[] {
    return this.strings.lineageIds.all().map((id) => id ?? "");
  }
  /** Every block's entry id and recorded hash (what a rewrite of the table and expand's check read). */
  recorded(): { readonly entryId: readonly string[]; readonly sha: readonly string[] } {
    // Every hash: the column read whole, however the table reads one block's.
    const sha = this.column(1 + INT_COLUMNS + 4) as Buffer;
    return { entryId: this.strings.entryId.all().map((id) => id ?? ""), sha: Array.from({ length: this.count }, (_, i) => sha.toString("hex", i * SHA_BYTES, (i + 1) * SHA_BYTES)) };
  }
}

function isMeta(value: unknown): value is Meta {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  const strings = v["strings"] as Record<string, unknown> | undefined;
  if (!isCacheKey(v["key"]) || !Number.isSafeInteger(v["count"]) || (v["count"] as number) < 0 || !Array.isArray(v["compactions"])) return false;
  if (typeof strings !== "object" || strings === null) return false;
  return STRING_COLUMNS.every((name) => {
    const c = strings[name] as Record<string, unknown> | undefined;
    return typeof c === "object" && c !== null && Number.isSafeInteger(c["count"]) && (c["count"] as number) >= 0 && Number.isSafeInteger(c["bytes"]) && (c["bytes"] as number) >= 0 && Number.isSafeInteger(c["units"]) && (c["units"] as number) >= 0 && typeof c["latin1"] === "boolean";
  });
}
