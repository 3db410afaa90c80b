// One session's block table in the history index: what ranking needs of each block (its kind, whether
// the active lineage holds it, which tool result answers a call, its turn) and where its text sits in the ledger
// (entry byte range, part, line) with a hash of the text as first indexed; then the fields results show
// (entry id, role, turn, tool, …) and the compactions, decoded only for the sessions a page of results
// shows: each distinct value once, then a column of value numbers per field (`encodePage`). No text is kept: a block's text is read back from the ledger at its offset and
// checked against its hash (SnapshotStaleError when it differs), as the one-session block table does.
import { createHash } from "node:crypto";
import { closeSync, openSync, readFileSync, readSync } from "node:fs";
import { blockTextAt, type Block, type BlockKind, type Session } from "@context-fold/ledger-reader";
import { sha256Hex } from "@context-fold/seed-index-format";
import { callResultsOf } from "./call-results.js";
import { CorruptIndexError, SnapshotStaleError } from "./errors.js";
import { pushVarint, VarintCursor } from "./history-dictionary.js";
import { sha256Hex as plainSha256Hex } from "./sha256-text.js";
import { isNotHistory } from "./not-history.js";
import type { ScopeSource } from "./scope.js";
import { i32Column, smallCopy, smallUint8, u32Column } from "./small-arrays.js";
import { type OptionalColumns, pushOptionalFields, ReadBackBlock, setOptionalFields } from "./snapshot.js";

/**
 * 2: a turn column beside the call/result pairs (ranking reads a prose block's turn without the page fields).
 * 3: the tool output (or user message) each prose block quotes, when the table was written with its whole
 * segment (quoted-sources.ts over the session's own terms): a search reads no prose text to find them.
 * 4: a flag for a failed tool output (`isError`): a question asking for a failure decodes no page fields.
 * 5: the page fields as their distinct values and a column of value numbers per field (`encodePage`), no
 * longer deflated JSON: a page of results decodes them without node:zlib (loading it and inflating five
 * sessions' fields was some 10 ms of a warm `recall --sessions` process); the turns, each call's result and
 * each prose block's quoted block as little-endian 32-bit columns viewed in place (decoding them as
 * varints was most of a table's read for ranking, at a hundred tables a search).
 */
const MAGIC = Buffer.from("CFHTAB5\n", "latin1");
const KINDS: readonly BlockKind[] = ["user", "text", "thinking", "toolCall", "toolResult", "bash", "custom", "compaction", "branchSummary"];
const LINEAGE = 0x10;
const HAS_PART = 0x20;
/** The block is a failed tool output (its `isError`), as ranking asks of a question about a failure. */
const FAILED = 0x40;
/** Bytes a table read for ranking reads first: its head and, for a session of a few thousand blocks, its rank section. */
const RANK_READ = 16 * 1024;

/** Where `forRanking` reads a table's first RANK_READ bytes (reads are synchronous; what is kept is copied out). */
const rankScratch = Buffer.allocUnsafe(RANK_READ);

/** Reads `fd` from `at` into `buf` until it is full or the file ends; the bytes read. */
function readFully(fd: number, buf: Buffer, at: number): number {
  let got = 0;
  while (at + got < buf.length) {
    const n = readSync(fd, buf, at + got, buf.length - at - got, at + got);
    if (n === 0) break;
    got += n;
  }
  return got;
}

/** Bytes of a text's sha256 kept per block (a check, not a commitment). */
const SHA_BYTES = 8;
const NONE: readonly number[] = [];

interface PageColumns extends OptionalColumns {
  readonly entryId: string[];
  readonly entryPosition: number[];
  readonly role: string[];
  readonly timestamp: (string | null)[];
  readonly compactions: ScopeSource["compactions"];
}

/** The page fields kept per block, in the order their columns are written. */
const PAGE_COLUMNS = ["entryId", "entryPosition", "role", "timestamp", "anchor", "toolName", "toolCallId", "isError", "exitCode", "command", "fullOutputPath"] as const;

/**
 * The page fields' bytes: varint length of a JSON text `[[values…], compactions]`, that text (each distinct
 * value of the columns once, as JSON writes it), then per column of PAGE_COLUMNS (in that order) one
 * varint per block: 0 for null (what JSON writes as null), else 1 + the value's place in the list. Decoded
 * (`decodePage`) the columns hold what JSON.parse of JSON.stringify(page) gives: what the deflated JSON of
 * format 4 held. Blocks of one entry share its id and time, a tool call and its result their names: the
 * list holds each once (at 1,000 generated sessions some 37 KB a table, against 12.5 KB deflated and 60 KB of JSON).
 */
function encodePage(page: PageColumns): Buffer {
  const texts: string[] = [];
  // Each distinct value's number, by the value (a string or a finite number: -0 is 0, as JSON writes it),
  // else by its JSON text: a value is written as JSON once, not once per block (a growth rewrites the table).
  const byValue = new Map<unknown, number>();
  const byText = new Map<string, number>();
  const cells: number[] = [];
  for (const name of PAGE_COLUMNS) {
    for (const value of page[name] as readonly unknown[]) {
      const plain = typeof value === "string" || (typeof value === "number" && Number.isFinite(value));
      let k = plain ? byValue.get(value) : undefined;
      if (k === undefined) {
        const text = JSON.stringify(value);
        if (text === undefined || text === "null") {
          cells.push(0);
          continue;
        }
        k = byText.get(text);
        if (k === undefined) {
          texts.push(text);
          k = texts.length;
          byText.set(text, k);
        }
        if (plain) byValue.set(value, k);
      }
      pushVarint(cells, k);
    }
  }
  const json = Buffer.from(`[[${texts.join(",")}],${JSON.stringify(page.compactions)}]`, "utf8");
  const head: number[] = [];
  pushVarint(head, json.length);
  return Buffer.concat([Buffer.from(head), json, Buffer.from(cells)]);
}

/** The page fields of `n` blocks from their bytes (`encodePage`); a RangeError or SyntaxError when they do not read as such. */
function decodePage(bytes: Buffer, n: number): PageColumns {
  const c = new VarintCursor(bytes);
  const length = c.next();
  if (c.pos + length > bytes.length) throw new RangeError("page values run past their section");
  const doc = JSON.parse(bytes.toString("utf8", c.pos, c.pos + length)) as unknown;
  if (!Array.isArray(doc) || doc.length !== 2 || !Array.isArray(doc[0]) || !Array.isArray(doc[1])) throw new RangeError("page values have another shape");
  c.pos += length;
  const values = doc[0] as readonly unknown[];
  const out: Record<string, unknown> = {};
  for (const name of PAGE_COLUMNS) {
    const column = new Array<unknown>(n);
    for (let i = 0; i < n; i++) {
      const k = c.next();
      if (k > values.length) throw new RangeError(`page value ${String(k)} past the ${String(values.length)} kept`);
      column[i] = k === 0 ? null : values[k - 1];
    }
    out[name] = column;
  }
  if (c.pos !== bytes.length) throw new RangeError("page columns do not fill their section");
  out["compactions"] = doc[1];
  return out as unknown as PageColumns;
}

/** Hex sha256 prefix of a block text, as the table keeps it (node:crypto: a table hashes every block of its session). */
export function textHash(text: string): string {
  return sha256Hex(text).slice(0, SHA_BYTES * 2);
}

/** Texts up to this many characters are checked by `shownTextHash` in plain code. */
const PLAIN_HASH_MAX = 64 * 1024;

/**
 * `textHash` of a text read back to be shown or expanded: a page of results checks a few blocks (some
 * 2 KB of text in all at 1,000 sessions), hashed in plain code (sha256-text.ts) so that a search does not
 * load node:crypto, whose module (its cipher and stream classes) costs the process more CPU than the
 * hashes; a longer text by node:crypto. The same digest either way.
 */
export function shownTextHash(text: string): string {
  return text.length <= PLAIN_HASH_MAX ? plainSha256Hex(text).slice(0, SHA_BYTES * 2) : textHash(text);
}

/**
 * Table bytes for `session`; `kept` are hashes recorded earlier for its first blocks (a grown session
 * keeps the hash each block had when first indexed, so a text changed since is noticed). `quotes`: per
 * block, the block its prose quotes (-1: none), as found over the whole segment the table is written
 * with; null when the segment is a grown one's (a term's document frequency, which decides what is rare
 * enough to count as quoted, then moves with each growth: a search finds them as it ranks).
 */
export function encodeTable(session: Session, kept: readonly string[] = [], quotes: Int32Array | null = null): Buffer {
  const flags = Buffer.alloc(session.blocks.length);
  const locations: number[] = [];
  const lineage = session.recoveredLineageIds;
  // One column written in place: a Buffer per block's hash cost a growth's table more than the rest of it.
  const shas = Buffer.alloc(session.blocks.length * SHA_BYTES);
  let at = 0;
  const page: PageColumns = { entryId: [], entryPosition: [], role: [], anchor: [], toolName: [], toolCallId: [], isError: [], exitCode: [], command: [], fullOutputPath: [], timestamp: [], compactions: session.compactions.map((c) => ({ number: c.number, segment: c.segment === null ? null : { from: c.segment.from, to: c.segment.to }, entryIds: [...c.entryIds] })) };
  for (const b of session.blocks) {
    const kind = KINDS.indexOf(b.kind);
    if (kind < 0) throw new RangeError(`block #${String(b.index)} has an unknown kind ${b.kind}`);
    flags[b.index] = kind | (lineage.has(b.entryId) ? LINEAGE : 0) | (b.partIndex === undefined ? 0 : HAS_PART) | (b.isError === true ? FAILED : 0);
    pushVarint(locations, b.byteOffset);
    pushVarint(locations, b.byteLength);
    pushVarint(locations, b.line);
    if (b.partIndex !== undefined) pushVarint(locations, b.partIndex);
    const earlier = kept[b.index];
    shas.write(earlier ?? textHash(b.text), at, SHA_BYTES, "hex");
    at += SHA_BYTES;
    page.entryId.push(b.entryId);
    page.entryPosition.push(b.entryPosition);
    page.role.push(b.role);
    pushOptionalFields(page, b);
    page.timestamp.push(b.timestamp ?? null);
  }
  // The pairing ranking reads a call's words with (call-results.ts): per block, its result (-1: none).
  const results = callResultsOf(session.blocks, (block) => isNotHistory(session, block));
  const n = session.blocks.length;
  // Flags and hashes, then (from a 4-byte boundary of the file) the turn, result and quote columns, all read
  // in place; then the text locations (varints, decoded when a text is first read). `rankColumns` reads them.
  const pad = (4 - ((MAGIC.length + 12 + n * (1 + SHA_BYTES)) % 4)) % 4;
  const columns = Buffer.alloc(pad + 4 * (2 * n + 1) + (quotes === null ? 0 : 4 * n));
  let w = pad;
  for (const b of session.blocks) w = columns.writeUInt32LE(b.turn, w);
  for (let i = 0; i < n; i++) w = columns.writeInt32LE(results[i] ?? -1, w);
  // The quoting prose's source, per block (-1: none), after a 1; a 0 where the table keeps none.
  w = columns.writeUInt32LE(quotes === null ? 0 : 1, w);
  if (quotes !== null) for (let i = 0; i < n; i++) w = columns.writeInt32LE(quotes[i] ?? -1, w);
  const rankBytes = Buffer.concat([flags, shas, columns, Buffer.from(locations)]);
  const pageBytes = encodePage(page);
  const head = Buffer.alloc(12);
  head.writeUInt32LE(session.blocks.length, 0);
  head.writeUInt32LE(rankBytes.length, 4);
  head.writeUInt32LE(pageBytes.length, 8);
  const body = Buffer.concat([MAGIC, head, rankBytes, pageBytes]);
  return Buffer.concat([body, createHash("sha256").update(body).digest()]);
}

/** A block served from the table: fields decoded, text read back from the ledger on first use and checked. */
class TableBlock extends ReadBackBlock {
  constructor(
    private readonly table: BlockTable,
    ...fields: ConstructorParameters<typeof ReadBackBlock>
  ) {
    super(...fields);
  }
  protected readText(): string {
    return this.table.textOf(this.index);
  }
}

/** What quoted-sources.ts reads of a block, served from the table's columns (text from the ledger, checked). */
export class QuoteBlock implements Pick<Block, "kind" | "turn" | "text"> {
  constructor(
    private readonly table: BlockTable,
    readonly index: number,
  ) {}
  get kind(): BlockKind {
    return this.table.kindOf(this.index);
  }
  get turn(): number {
    return this.table.turnOf(this.index);
  }
  get text(): string {
    return this.table.rankText(this.index);
  }
}

/** A session's block table as read for a query (see the file comment). */
export class BlockTable {
  readonly file: string;
  readonly count: number;
  /** Per block: kind index, lineage and part flags. */
  private readonly flags: Buffer;
  private readonly shas: Buffer;
  /** Per block, the result answering it (a call), or -1. */
  private readonly results: Int32Array;
  private readonly turns: Uint32Array;
  /** Per block, the block its prose quotes (-1: none); null when the table keeps none (see `encodeTable`). */
  private readonly quotes: Int32Array | null;
  private quoting: readonly QuoteBlock[] | undefined;
  /** The text locations' varints, decoded on the first text read. */
  private readonly locationBytes: Buffer;
  private locations: { offset: Float64Array; length: Uint32Array; line: Uint32Array; part: Int32Array } | undefined;
  /** The page fields' bytes (`encodePage`); null until read (`forRanking` reads a table without them). */
  private pageBytes: Buffer | null;
  /** Where the page fields are read from when the table was read without them, and the rank section they must come with. */
  private readonly pageSource: { readonly path: string; readonly rank: Buffer } | null;
  /** Texts read back so far (`rankText`), and the blocks whose text was checked against its hash (`textOf`). */
  private readonly texts = new Map<number, string>();
  private readonly checked = new Set<number>();
  private readonly label: string;
  private page: { blocks: TableBlock[]; source: ScopeSource } | undefined;

  private constructor(file: string, buf: Buffer, label: string, pagePath: string | null = null) {
    const bad = (why: string): CorruptIndexError => new CorruptIndexError(`${label}: ${why}`);
    if (buf.length < MAGIC.length + 12 || !buf.subarray(0, MAGIC.length).equals(MAGIC)) throw bad("not a history block table");
    this.file = file;
    const n = buf.readUInt32LE(MAGIC.length);
    const rankLength = buf.readUInt32LE(MAGIC.length + 4);
    const pageLength = buf.readUInt32LE(MAGIC.length + 8);
    const start = MAGIC.length + 12;
    // Read for ranking (`pagePath`): the head and the rank section; the page fields when a page shows the session.
    if (start + rankLength + (pagePath === null ? pageLength : 0) > buf.length) throw bad("block table is shorter than its head says");
    this.count = n;
    if (rankLength < n * (1 + SHA_BYTES)) throw bad("block table's rank section is shorter than its blocks");
    this.flags = buf.subarray(start, start + n);
    for (let i = 0; i < n; i++) if (((this.flags[i] as number) & 0x0f) >= KINDS.length) throw bad(`block #${String(i)} has kind ${String((this.flags[i] as number) & 0x0f)}`);
    this.shas = buf.subarray(start + n, start + n + n * SHA_BYTES);
    // The columns, from the 4-byte boundary after the hashes (as `encodeTable` writes them).
    const end = start + rankLength;
    let at = (start + n * (1 + SHA_BYTES) + 3) & ~3;
    if (at + 4 * (2 * n + 1) > end) throw bad("block table's columns run past its rank section");
    this.turns = u32Column(buf, at, n);
    at += 4 * n;
    this.results = i32Column(buf, at, n);
    at += 4 * n;
    const quoting = buf.readUInt32LE(at);
    at += 4;
    if (quoting > 1 || (quoting === 1 && at + 4 * n > end)) throw bad("block table's quote column runs past its rank section");
    this.quotes = quoting === 0 ? null : i32Column(buf, at, n);
    if (this.quotes !== null) at += 4 * n;
    const results = this.results;
    const quotes = this.quotes;
    for (let i = 0; i < n; i++) {
      const result = results[i] as number;
      if (result < -1 || result >= n) throw bad(`call #${String(i)} → result #${String(result)} past the ${String(n)} blocks`);
      if (quotes !== null && ((quotes[i] as number) < -1 || (quotes[i] as number) >= n)) throw bad(`prose #${String(i)} quoting #${String(quotes[i])} past the ${String(n)} blocks`);
    }
    this.locationBytes = buf.subarray(at, end);
    this.label = label;
    this.pageBytes = pagePath === null ? buf.subarray(start + rankLength, start + rankLength + pageLength) : null;
    this.pageSource = pagePath === null ? null : { path: pagePath, rank: buf.subarray(0, start + rankLength) };
  }

  /** The table of `file` from its bytes (structure checked; `checksum`: the sha256 trailer too). */
  static read(file: string, buf: Buffer, label: string, checksum = false): BlockTable {
    if (checksum) {
      const body = buf.subarray(0, Math.max(0, buf.length - 32));
      if (buf.length < 32 || !createHash("sha256").update(body).digest().equals(buf.subarray(buf.length - 32))) throw new CorruptIndexError(`${label}: block table checksum does not match its bytes`);
    }
    return new BlockTable(file, buf, label);
  }

  /**
   * The table at `path` read for ranking: its head and rank section (kinds, lineage, hashes, turns, pairs,
   * text locations), not the page fields results show (more than half its bytes), which are read when a
   * page of results shows the session (and must then come with the same rank section: else the table was
   * replaced since, SnapshotStaleError). Structure checked, not the checksum (as `read` without it).
   */
  static forRanking(file: string, path: string): BlockTable {
    const fd = openSync(path, "r");
    try {
      // Read into the shared scratch, then the head and rank section copied out at their own size: a
      // search reads hundreds of tables, and a buffer of RANK_READ bytes kept for each is garbage to collect.
      const head = rankScratch;
      const got = readFully(fd, head, 0);
      if (got < MAGIC.length + 12) return new BlockTable(file, smallCopy(head.subarray(0, got)), path);
      const end = MAGIC.length + 12 + head.readUInt32LE(MAGIC.length + 4);
      if (end <= got) return new BlockTable(file, smallCopy(head.subarray(0, end)), path, path);
      const whole = Buffer.allocUnsafe(end);
      head.copy(whole, 0, 0, got);
      return new BlockTable(file, whole.subarray(0, got + readFully(fd, whole, got)), path, path);
    } finally {
      closeSync(fd);
    }
  }

  /** The page fields' bytes, read from the table's file when it was read for ranking. */
  private pageFields(): Buffer {
    if (this.pageBytes !== null) return this.pageBytes;
    const source = this.pageSource as NonNullable<BlockTable["pageSource"]>;
    let buf: Buffer;
    try {
      buf = readFileSync(source.path);
    } catch (error) {
      throw new SnapshotStaleError(this.file, `its block table cannot be read again (${error instanceof Error ? error.message : String(error)})`);
    }
    const at = source.rank.length;
    if (buf.length < at || !buf.subarray(0, at).equals(source.rank)) throw new SnapshotStaleError(this.file, "its block table was replaced while it was read");
    this.pageBytes = buf.subarray(at, at + buf.readUInt32LE(MAGIC.length + 8));
    return this.pageBytes;
  }

  kindOf(doc: number): BlockKind {
    return KINDS[(this.flags[doc] as number) & 0x0f] as BlockKind;
  }
  /** Per block, 1 where the active lineage holds it (`inLineage` of each block, read in one pass over the flags: a search ranks hundreds of tables). */
  lineageMask(): Uint8Array {
    const n = this.count;
    const mask = smallUint8(n);
    for (let i = 0; i < n; i++) if (((this.flags[i] as number) & LINEAGE) !== 0) mask[i] = 1;
    return mask;
  }
  /** The blocks of kind `kind`, in order (`kindOf` of each block, in one pass over the flags). */
  blocksOfKind(kind: BlockKind): number[] {
    const want = KINDS.indexOf(kind);
    const out: number[] = [];
    const n = this.count;
    for (let i = 0; i < n; i++) if (((this.flags[i] as number) & 0x0f) === want) out.push(i);
    return out;
  }
  inLineage(doc: number): boolean {
    return ((this.flags[doc] as number) & LINEAGE) !== 0;
  }
  /** Whether block `doc` is a failed tool output (its `isError`), read from the flags: no page field decoded. */
  failed(doc: number): boolean {
    return ((this.flags[doc] as number) & FAILED) !== 0;
  }
  /** The `#N` of the tool result answering call `doc`, or -1. */
  resultOf(doc: number): number {
    return this.results[doc] ?? -1;
  }
  /** The blocks prose block `doc` quotes (quoted-sources.ts), as the table keeps them; null when it keeps none. */
  quotedBy(doc: number): readonly number[] | null {
    if (this.quotes === null) return null;
    const source = this.quotes[doc] ?? -1;
    return source < 0 ? NONE : [source];
  }
  /** The turn block `doc` belongs to. */
  turnOf(doc: number): number {
    return this.turns[doc] ?? 0;
  }

  /**
   * The blocks as quoted-sources.ts reads them (kind, turn, text read back on first use), without the
   * page fields: a prose block among a session's best is checked for the output it quotes in every
   * session ranked, and decoding the page fields of each would cost more than the ranking itself.
   */
  quoteBlocks(): readonly QuoteBlock[] {
    if (this.quoting !== undefined) return this.quoting;
    const out: QuoteBlock[] = [];
    for (let i = 0; i < this.count; i++) out.push(new QuoteBlock(this, i));
    this.quoting = out;
    return out;
  }

  /** The hash recorded for block `doc` (hex). */
  hashOf(doc: number): string {
    return this.shas.subarray(doc * SHA_BYTES, (doc + 1) * SHA_BYTES).toString("hex");
  }
  /** The recorded hashes of every block, in order (what a grown session's table keeps). */
  hashes(): string[] {
    const out: string[] = [];
    for (let i = 0; i < this.count; i++) out.push(this.hashOf(i));
    return out;
  }

  /** Where each block's text sits in the ledger (decoded once, on the first text read or page). */
  private where(): NonNullable<BlockTable["locations"]> {
    if (this.locations !== undefined) return this.locations;
    const n = this.count;
    const loc = { offset: new Float64Array(n), length: new Uint32Array(n), line: new Uint32Array(n), part: new Int32Array(n).fill(-1) };
    const c = new VarintCursor(this.locationBytes);
    try {
      for (let i = 0; i < n; i++) {
        loc.offset[i] = c.next();
        loc.length[i] = c.next();
        loc.line[i] = c.next();
        if (((this.flags[i] as number) & HAS_PART) !== 0) loc.part[i] = c.next();
      }
    } catch (error) {
      if (error instanceof RangeError) throw new CorruptIndexError(`${this.label}: text locations: ${error.message}`);
      throw error;
    }
    if (c.pos !== this.locationBytes.length) throw new CorruptIndexError(`${this.label}: text locations do not fill their range`);
    this.locations = loc;
    return loc;
  }

  /**
   * Block `doc`'s text read back from the ledger, for ranking: not checked against its recorded hash.
   * A search ranks a session only when its ledger's size and modification time are those the history
   * indexed (HistoryIndex's freshness rule); the texts a page of results shows are checked (`textOf`),
   * and one found changed there sends the search back to reading ledgers in full. A ranking that reads a
   * hundred texts of each of hundreds of sessions does not hash them all.
   */
  rankText(doc: number): string {
    const have = this.texts.get(doc);
    if (have !== undefined) return have;
    const kind = this.kindOf(doc);
    const loc = this.where();
    const part = loc.part[doc] as number;
    const at = { byteOffset: loc.offset[doc] as number, byteLength: loc.length[doc] as number };
    let text: string | undefined;
    try {
      text = blockTextAt(this.file, at, kind, part < 0 ? undefined : part);
    } catch (error) {
      throw new SnapshotStaleError(this.file, `block #${String(doc)} cannot be read: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (text === undefined) throw this.changed(doc);
    this.texts.set(doc, text);
    return text;
  }

  /** Block `doc`'s text read back from the ledger, checked against its recorded hash (once). */
  textOf(doc: number): string {
    const text = this.rankText(doc);
    if (this.checked.has(doc)) return text;
    if (shownTextHash(text) !== this.hashOf(doc)) throw this.changed(doc);
    this.checked.add(doc);
    return text;
  }

  private changed(doc: number): SnapshotStaleError {
    const loc = this.where();
    return new SnapshotStaleError(this.file, `block #${String(doc)} at line ${String(loc.line[doc])}, byte ${String(loc.offset[doc])} changed`);
  }

  /** The blocks as results show them, and what scopes are built from (decoded on first use). */
  source(): { blocks: readonly Block[]; source: ScopeSource } {
    if (this.page !== undefined) return this.page;
    const fields = this.pageFields();
    let c: PageColumns;
    try {
      c = decodePage(fields, this.count);
    } catch (error) {
      throw new CorruptIndexError(`${this.file}: block table fields cannot be read (${error instanceof Error ? error.message : String(error)})`);
    }
    if (!Array.isArray(c.entryId) || c.entryId.length !== this.count) throw new CorruptIndexError(`${this.file}: block table fields hold another block count`);
    const blocks: TableBlock[] = [];
    const lineageIds = new Set<string>();
    const loc = this.where();
    for (let i = 0; i < this.count; i++) {
      const b = new TableBlock(this, i, c.entryId[i] as string, c.entryPosition[i] as number, this.kindOf(i), c.role[i] as string, this.turnOf(i), c.timestamp[i] ?? undefined, loc.line[i] as number, loc.offset[i] as number, loc.length[i] as number);
      setOptionalFields(b, c, i, loc.part[i]);
      if (this.inLineage(i)) lineageIds.add(b.entryId);
      blocks.push(b);
    }
    this.page = { blocks, source: { blocks, lineageIds, compactions: c.compactions } };
    return this.page;
  }
}
