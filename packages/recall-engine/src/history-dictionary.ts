// The history index's term dictionary: which sessions (by ordinal) hold each indexed term. A base file
// of terms sorted by their UTF-8 bytes, each with its sessions, looked up in place (binary search over an
// offset table, nothing decoded up front), plus an append-only log of (session, terms it gained) records
// that a merge folds into a new base. It only narrows which sessions a query opens: a stale claim (a
// session since replaced or deleted) costs one needless open, never a wrong hit, because every candidate
// is ranked by its own session index. Beside each session of a term it keeps two bytes: an upper bound
// of what the term can add to a score in that session (rank.ts termScoreBound) and the term's idf there,
// so a search orders and leaves out sessions by their score bound without opening them.
import { createHash } from "node:crypto";
import { readSync } from "node:fs";
import { lastAtOrBefore } from "./sorted-search.js";

const MAGIC = Buffer.from("CFHD");
/** Bumped when the dictionary's bytes change shape: an older dictionary is rebuilt, never read. 2: offset table after the entries (streamed). 3: a score bound and an idf byte per session of a term. */
export const DICTIONARY_FORMAT = 3;
const LOG_MAGIC = 0x43464c31; // "CFL1"

/** A byte of the scale no value is known by: read as Infinity. */
const SCALE_UNKNOWN = 255;
/** Bounds and idfs are kept as bytes of a geometric scale: byte c stands for SCALE_BASE × SCALE_STEP^c (3% apart). */
const SCALE_BASE = 0.02;
const SCALE_STEP = 1.03;

/** Each scale byte's value, worked out once: a search reads a code per term and session (thousands). */
const SCALE = Float64Array.from({ length: SCALE_UNKNOWN + 1 }, (_, c) => (c >= SCALE_UNKNOWN ? Number.POSITIVE_INFINITY : SCALE_BASE * SCALE_STEP ** c));

/** The value scale byte `c` stands for (Infinity for SCALE_UNKNOWN). */
export function scaleOf(c: number): number {
  return c >= SCALE_UNKNOWN ? Number.POSITIVE_INFINITY : (SCALE[c] as number);
}

/** The byte of the least value of the scale at or above `value` (rounded up: a bound stays a bound); SCALE_UNKNOWN past the scale. */
export function scaleCode(value: number): number {
  if (!Number.isFinite(value) || Number.isNaN(value)) return SCALE_UNKNOWN;
  if (value <= SCALE_BASE) return 0;
  let c = Math.max(0, Math.floor(Math.log(value / SCALE_BASE) / Math.log(SCALE_STEP)));
  while (c < SCALE_UNKNOWN && scaleOf(c) < value) c++;
  return Math.min(c, SCALE_UNKNOWN);
}

/**
 * A term's code in one session, as the dictionary keeps it (two bytes): its score bound's scale byte × 256
 * + its idf's. BOUND_UNKNOWN where neither is known (a grown session's terms, a session not served from a
 * segment): the greatest code, so of two codes of one session the greater is the safer.
 */
export const BOUND_UNKNOWN = 0xffff;

/** The code of a term's score bound and idf in a session. */
export function boundsCode(bound: number, idf: number): number {
  const b = scaleCode(bound);
  const i = scaleCode(idf);
  return b === SCALE_UNKNOWN || i === SCALE_UNKNOWN ? BOUND_UNKNOWN : b * 256 + i;
}

/** The score bound a code keeps (Infinity when unknown). */
export function boundOfCode(code: number): number {
  return code === BOUND_UNKNOWN ? Number.POSITIVE_INFINITY : scaleOf(code >>> 8);
}

/** The idf a code keeps (Infinity when unknown). */
export function idfOfCode(code: number): number {
  return code === BOUND_UNKNOWN ? Number.POSITIVE_INFINITY : scaleOf(code & 0xff);
}

/**
 * The dictionary key under which a session keeps the bound of a term's prefix match (rank.ts
 * `prefixScoreBound`: the union of the longer terms it begins, as ranking scores it for that term as a
 * query word), beside the term's own. A NUL first: no token holds one, so no word or prefix looked up
 * reaches these keys, and they sort before every term.
 */
export function unionKey(term: string): string {
  return `\u0000${term}`;
}

/**
 * The dictionary key under which a session keeps the bound of the prefix match of a query token it does
 * not hold whose stem is `stem` (rank.ts `stemUnionScoreBound`). Two NULs first: apart from every term and
 * every union key (a term holds no NUL), and sorted before them all.
 */
export function stemKey(stem: string): string {
  return `\u0000\u0000${stem}`;
}

/** Appends `value` (a non-negative integer below 2^53) as a LEB128 varint. */
export function pushVarint(out: number[], value: number): void {
  let v = value;
  while (v >= 0x80) {
    out.push((v & 0x7f) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
}

/** The varint at `pos` and the position after it. */
export function readVarint(buf: Buffer, at: number): [number, number] {
  let value = 0;
  let scale = 1;
  let pos = at;
  for (;;) {
    const byte = buf[pos++];
    if (byte === undefined) throw new RangeError("varint runs past the end");
    value += (byte & 0x7f) * scale;
    if (byte < 0x80) return [value, pos];
    scale *= 128;
  }
}

/** Reads varints one after another from `pos` (no tuple per value: hot loops read millions). */
export class VarintCursor {
  constructor(
    private readonly buf: Buffer,
    public pos = 0,
  ) {}
  next(): number {
    const buf = this.buf;
    let value = 0;
    let scale = 1;
    for (;;) {
      const byte = buf[this.pos++];
      if (byte === undefined) throw new RangeError("varint runs past the end");
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
      scale *= 128;
    }
  }
}

/** term → sorted session ordinals, as held in memory while a base is (re)written. */
export type TermSessions = Map<string, number[]>;

/** Adds `terms` of session `ordinal` to `into` (ordinals added in any order; sorted and deduplicated on encode). */
export function addTerms(into: TermSessions, ordinal: number, terms: Iterable<string>): void {
  for (const term of terms) {
    const list = into.get(term);
    if (list === undefined) into.set(term, [ordinal]);
    else if (list[list.length - 1] !== ordinal) list.push(ordinal);
  }
}

/** One base entry: a term's UTF-8 bytes, its sessions (ascending ordinals) and their codes (`boundsCode`; all BOUND_UNKNOWN when absent). */
export interface DictionaryEntry {
  readonly key: Buffer;
  readonly ordinals: readonly number[];
  readonly codes?: ArrayLike<number>;
}

/** Entries go out in chunks of about this many bytes (a base is streamed to its file, never held whole). */
const CHUNK = 1 << 20;

/**
 * Base bytes, streamed: magic, format, then the entries [u16 byte length, term UTF-8, varint count,
 * varint ordinal deltas, a u16 code per ordinal (`boundsCode`)] in byte order of their terms, then an offset table (one u32 per term, into the
 * entries), the term count (u32) and a sha256 trailer. The table follows the entries so a merge writes
 * each entry as it is found, keeping only its offsets. `entries` must come sorted by key, each once.
 */
export function* dictionaryChunks(entries: Iterable<DictionaryEntry>): Generator<Buffer> {
  const hash = createHash("sha256");
  const emit = (chunk: Buffer): Buffer => {
    hash.update(chunk);
    return chunk;
  };
  const header = Buffer.alloc(8);
  MAGIC.copy(header, 0);
  header.writeUInt32LE(DICTIONARY_FORMAT, 4);
  yield emit(header);
  let offsets = new Uint32Array(1024);
  let count = 0;
  let at = 0;
  // Entries are written into a chunk buffer, handed out once full (an entry that does not fit starts the next).
  let chunk = Buffer.allocUnsafe(CHUNK);
  let used = 0;
  const varint = (v: number): void => {
    let rest = v;
    while (rest >= 0x80) {
      chunk[used++] = (rest & 0x7f) | 0x80;
      rest = Math.floor(rest / 128);
    }
    chunk[used++] = rest;
  };
  let previous: Buffer | null = null;
  for (const { key: whole, ordinals, codes } of entries) {
    const key = whole.subarray(0, 0xffff);
    if (previous !== null && Buffer.compare(previous, key) >= 0) throw new RangeError("dictionary entries out of order");
    previous = key;
    if (count === offsets.length) {
      const grown = new Uint32Array(offsets.length * 2);
      grown.set(offsets);
      offsets = grown;
    }
    offsets[count++] = at;
    // At most: the u16, the key, 8 bytes per varint (count and deltas) and a u16 code per ordinal.
    const most = 2 + key.length + 10 * (ordinals.length + 1);
    if (used + most > chunk.length) {
      if (used > 0) yield emit(Buffer.from(chunk.subarray(0, used)));
      if (most > chunk.length) chunk = Buffer.allocUnsafe(most);
      used = 0;
    }
    const start = used;
    chunk.writeUInt16LE(key.length, used);
    used += 2;
    key.copy(chunk, used);
    used += key.length;
    varint(ordinals.length);
    let prev = 0;
    for (const o of ordinals) {
      varint(o - prev);
      prev = o;
    }
    for (let i = 0; i < ordinals.length; i++) {
      chunk.writeUInt16LE(codes === undefined ? BOUND_UNKNOWN : (codes[i] as number), used);
      used += 2;
    }
    at += used - start;
  }
  if (used > 0) yield emit(Buffer.from(chunk.subarray(0, used)));
  const table = Buffer.alloc(count * 4);
  for (let k = 0; k < count; k++) table.writeUInt32LE(offsets[k] as number, k * 4);
  yield emit(table);
  const tail = Buffer.alloc(4);
  tail.writeUInt32LE(count, 0);
  yield emit(tail);
  yield hash.digest();
}

/** The entries of `terms`, sorted by their terms' bytes, ordinals sorted and each once. */
function* sortedEntries(terms: TermSessions): Generator<DictionaryEntry> {
  const keys = [...terms.keys()].map((t) => Buffer.from(t, "utf8")).sort(Buffer.compare);
  for (const key of keys) yield { key, ordinals: [...new Set(terms.get(key.toString("utf8")) ?? [])].sort((a, b) => a - b) };
}

/** Base bytes for `terms`, held whole (tests, and an empty base; a merge streams `dictionaryChunks`). */
export function encodeDictionary(terms: TermSessions): Buffer {
  return Buffer.concat([...dictionaryChunks(sortedEntries(terms))]);
}

/** Where a base's bytes come from: a buffer held whole, or a file read in place a page at a time. */
interface ByteSource {
  readonly length: number;
  u16(at: number): number;
  u32(at: number): number;
  bytes(at: number, length: number): Buffer;
}

function bufferSource(buf: Buffer): ByteSource {
  return { length: buf.length, u16: (at) => buf.readUInt16LE(at), u32: (at) => buf.readUInt32LE(at), bytes: (at, length) => buf.subarray(at, at + length) };
}

const PAGE = 4096;
/** The ordinals of one entry as a prefix scan decodes them (`DictionaryBase.eachPrefixedEntry`), grown as needed. */
let prefixScratch = new Uint32Array(1024);
/** Where a base's entries start: after the magic and the format. */
const ENTRIES = 8;

/**
 * Pages a process keeps of one base file between its searches (`DictionaryPages`) at most: a search's
 * lookups visit a few hundred (each binary search some forty), and every query shares the first levels.
 */
const KEPT_PAGES = 4096;

/**
 * The pages of a base file read so far, by page number, and the file they were read from (its inode,
 * size and time): a history keeps them between searches while the file stays the one read (a base is
 * replaced whole, by rename, never written in place), so a warm search reads only pages no search read.
 */
export class DictionaryPages {
  readonly pages = new Map<number, Buffer>();
  private identity = "";
  /** The pages for a base file of this identity (fstat of the descriptor read): these, or none when the file is another. */
  forFile(st: { readonly ino: number; readonly size: number; readonly mtimeMs: number }): Map<number, Buffer> {
    const identity = `${String(st.ino)}:${String(st.size)}:${String(st.mtimeMs)}`;
    if (identity !== this.identity || this.pages.size > KEPT_PAGES) this.pages.clear();
    this.identity = identity;
    return this.pages;
  }
}

/** A file's bytes read on demand by aligned pages (kept), so a lookup reads the few pages its binary search visits. */
class FileSource implements ByteSource {
  readonly length: number;
  constructor(
    private readonly fd: number,
    length: number,
    private readonly pages: Map<number, Buffer>,
  ) {
    this.length = length;
  }
  private page(p: number): Buffer {
    let have = this.pages.get(p);
    if (have === undefined) {
      const size = Math.min(PAGE, this.length - p * PAGE);
      // Filled whole by the reads below (or thrown away): not zeroed first.
      have = Buffer.allocUnsafe(Math.max(0, size));
      let got = 0;
      while (got < have.length) {
        const n = readSync(this.fd, have, got, have.length - got, p * PAGE + got);
        if (n === 0) throw new RangeError(`dictionary ends at byte ${String(p * PAGE + got)}`);
        got += n;
      }
      this.pages.set(p, have);
    }
    return have;
  }
  /** A long range (a prefix's entries) read whole, past the page cache. */
  private read(at: number, length: number): Buffer {
    const out = Buffer.allocUnsafe(length);
    let got = 0;
    while (got < length) {
      const n = readSync(this.fd, out, got, length - got, at + got);
      if (n === 0) throw new RangeError(`dictionary ends at byte ${String(at + got)}`);
      got += n;
    }
    return out;
  }
  bytes(at: number, length: number): Buffer {
    if (at < 0 || at + length > this.length) throw new RangeError(`dictionary range at byte ${String(at)} runs past its end`);
    const first = Math.floor(at / PAGE);
    const last = Math.floor((at + length - 1) / PAGE);
    if (length === 0) return Buffer.alloc(0);
    if (first === last) return this.page(first).subarray(at - first * PAGE, at - first * PAGE + length);
    if (last - first > 2) return this.read(at, length);
    const parts: Buffer[] = [];
    for (let p = first; p <= last; p++) parts.push(this.page(p));
    return Buffer.concat(parts).subarray(at - first * PAGE, at - first * PAGE + length);
  }
  // Read off the page itself when the value does not straddle two (a lookup reads thousands: no Buffer made for each).
  u16(at: number): number {
    const p = Math.floor(at / PAGE);
    const off = at - p * PAGE;
    if (at >= 0 && at + 2 <= this.length && off + 2 <= PAGE) return this.page(p).readUInt16LE(off);
    return this.bytes(at, 2).readUInt16LE(0);
  }
  u32(at: number): number {
    const p = Math.floor(at / PAGE);
    const off = at - p * PAGE;
    if (at >= 0 && at + 4 <= this.length && off + 4 <= PAGE) return this.page(p).readUInt32LE(off);
    return this.bytes(at, 4).readUInt32LE(0);
  }
}

/** A base read for lookups; throws on bytes it cannot trust (the caller rebuilds). */
export class DictionaryBase {
  private readonly src: ByteSource;
  private readonly count: number;
  /** Where the offset table starts (the entries run from byte 8 to it). */
  private readonly table: number;

  /** A base held whole, its sha256 trailer checked (a merge rewrites the base from what it reads). */
  constructor(buf: Buffer, label: string) {
    if (buf.length < 12 + 32 || !buf.subarray(0, 4).equals(MAGIC)) throw new RangeError(`${label}: not a history dictionary`);
    if (buf.readUInt32LE(4) !== DICTIONARY_FORMAT) throw new RangeError(`${label}: dictionary format ${String(buf.readUInt32LE(4))}, this reader reads ${String(DICTIONARY_FORMAT)}`);
    const body = buf.subarray(0, buf.length - 32);
    if (!createHash("sha256").update(body).digest().equals(buf.subarray(buf.length - 32))) throw new RangeError(`${label}: dictionary checksum does not match its bytes`);
    this.src = bufferSource(body);
    this.count = body.readUInt32LE(body.length - 4);
    this.table = body.length - 4 - this.count * 4;
    if (this.table < 8) throw new RangeError(`${label}: dictionary offset table runs past its start`);
  }

  /**
   * A base read in place from open file `fd` of `size` bytes, for one query: only the pages its lookups
   * visit are read, and its checksum is not (a wrong claim costs a needless open, never a wrong hit).
   */
  static inPlace(fd: number, size: number, label: string, pages: Map<number, Buffer> = new Map()): DictionaryBase {
    if (size < 12 + 32) throw new RangeError(`${label}: not a history dictionary`);
    const src = new FileSource(fd, size - 32, pages);
    const head = src.bytes(0, 8);
    if (!head.subarray(0, 4).equals(MAGIC)) throw new RangeError(`${label}: not a history dictionary`);
    if (head.readUInt32LE(4) !== DICTIONARY_FORMAT) throw new RangeError(`${label}: dictionary format ${String(head.readUInt32LE(4))}, this reader reads ${String(DICTIONARY_FORMAT)}`);
    const base = Object.create(DictionaryBase.prototype) as { src: ByteSource; count: number; table: number };
    base.src = src;
    base.count = src.u32(src.length - 4);
    base.table = src.length - 4 - base.count * 4;
    if (base.table < 8) throw new RangeError(`${label}: dictionary offset table runs past its start`);
    return base as unknown as DictionaryBase;
  }

  static empty(): DictionaryBase {
    return new DictionaryBase(encodeDictionary(new Map()), "empty");
  }

  get termCount(): number {
    return this.count;
  }

  private entryAt(k: number): number {
    return ENTRIES + this.src.u32(this.table + k * 4);
  }

  private termAt(k: number): Buffer {
    const at = this.entryAt(k);
    return this.src.bytes(at + 2, this.src.u16(at));
  }

  private ordinalsAt(k: number, into: { add(o: number): unknown }): void {
    this.eachAt(k, (o) => into.add(o));
  }

  /** Each session of entry `k` with its code (`boundsCode`). */
  private eachAt(k: number, visit: (ordinal: number, code: number) => void): void {
    const at = this.entryAt(k);
    const start = at + 2 + this.src.u16(at);
    const end = k + 1 < this.count ? this.entryAt(k + 1) : this.table;
    const buf = this.src.bytes(start, end - start);
    const c = new VarintCursor(buf);
    const n = c.next();
    const ordinals = new Array<number>(n);
    let prev = 0;
    for (let i = 0; i < n; i++) {
      prev += c.next();
      ordinals[i] = prev;
    }
    if (c.pos + 2 * n !== buf.length) throw new RangeError(`dictionary entry ${String(k)} does not fill its range`);
    for (let i = 0; i < n; i++) visit(ordinals[i] as number, buf.readUInt16LE(c.pos + 2 * i));
  }
  /** First entry whose term is ≥ `key` (byte order). */
  private lowerBound(key: Buffer): number {
    let lo = 0;
    let hi = this.count;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (Buffer.compare(this.termAt(mid), key) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Adds the sessions holding `term` exactly. */
  exact(term: string, into: Set<number>): void {
    const key = Buffer.from(term, "utf8");
    const k = this.lowerBound(key);
    if (k < this.count && this.termAt(k).equals(key)) this.ordinalsAt(k, into);
  }

  /** Adds the sessions holding a term that begins with `prefix` (itself included). */
  prefixed(prefix: string, into: Set<number>): void {
    // A common word begins a thousand terms of a thousand sessions each: each session is added once.
    let seen = new Uint8Array(1024);
    this.eachPrefixedEntry(prefix, (_, ordinals, n) => {
      for (let i = 0; i < n; i++) {
        const o = ordinals[i] as number;
        if (o >= seen.length) {
          const grown = new Uint8Array(Math.max(2 * seen.length, o + 1));
          grown.set(seen);
          seen = grown;
        }
        if (seen[o] === 1) continue;
        seen[o] = 1;
        into.add(o);
      }
    });
  }

  /**
   * Each entry whose term begins with `prefix` (itself included), in term order: its term's bytes, its
   * sessions (`ordinals[0, n)`, a scratch array reused for the next entry) and their codes (u16 at
   * `codes[codesAt + 2i]`). The entries are one range of the base, read at once and decoded in one pass
   * (a common word begins a thousand terms, each held by hundreds of sessions): the range's end is found
   * by a binary search (the terms beginning with the prefix follow each other), not term by term.
   */
  eachPrefixedEntry(prefix: string, visit: (term: Buffer, ordinals: Uint32Array, n: number, codes: Buffer, codesAt: number) => void): void {
    const key = Buffer.from(prefix, "utf8");
    const first = this.lowerBound(key);
    let lo = first;
    let hi = this.count;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const term = this.termAt(mid);
      if (term.length >= key.length && term.compare(key, 0, key.length, 0, key.length) === 0) lo = mid + 1;
      else hi = mid;
    }
    if (lo === first) return;
    const from = this.entryAt(first);
    const to = lo < this.count ? this.entryAt(lo) : this.table;
    const buf = this.src.bytes(from, to - from);
    let ordinals = prefixScratch;
    let pos = 0;
    for (let k = first; k < lo; k++) {
      if (pos + 2 > buf.length) throw new RangeError(`dictionary entry ${String(k)} runs past its range`);
      const length = (buf[pos] as number) | ((buf[pos + 1] as number) << 8);
      const term = buf.subarray(pos + 2, pos + 2 + length);
      pos += 2 + length;
      // The count, then the ordinals' deltas: varints, read inline.
      let n = 0;
      let scale = 1;
      for (;;) {
        const byte = buf[pos++];
        if (byte === undefined) throw new RangeError(`dictionary entry ${String(k)} runs past its range`);
        n += (byte & 0x7f) * scale;
        if (byte < 0x80) break;
        scale *= 128;
      }
      if (n > ordinals.length) ordinals = prefixScratch = new Uint32Array(Math.max(n, 2 * ordinals.length));
      let prev = 0;
      for (let i = 0; i < n; i++) {
        let value = 0;
        scale = 1;
        for (;;) {
          const byte = buf[pos++];
          if (byte === undefined) throw new RangeError(`dictionary entry ${String(k)} runs past its range`);
          value += (byte & 0x7f) * scale;
          if (byte < 0x80) break;
          scale *= 128;
        }
        prev += value;
        ordinals[i] = prev;
      }
      const codesAt = pos;
      pos += 2 * n;
      if (pos > buf.length) throw new RangeError(`dictionary entry ${String(k)} runs past its range`);
      visit(term, ordinals, n, buf, codesAt);
    }
    if (pos !== buf.length) throw new RangeError(`dictionary entries ${String(first)}-${String(lo - 1)} do not fill their range`);
  }

  /** Each session holding `term` exactly, with its code. */
  eachExact(term: string, visit: (ordinal: number, code: number) => void): void {
    const key = Buffer.from(term, "utf8");
    const k = this.lowerBound(key);
    if (k < this.count && this.termAt(k).equals(key)) this.eachAt(k, visit);
  }

  /** Each (term, session, code) of the terms beginning with `prefix` (itself included), in term order. */
  eachPrefixed(prefix: string, visit: (term: Buffer, ordinal: number, code: number) => void): void {
    this.eachPrefixedEntry(prefix, (term, ordinals, n, codes, codesAt) => {
      for (let i = 0; i < n; i++) visit(term, ordinals[i] as number, codes.readUInt16LE(codesAt + 2 * i));
    });
  }

  /** Every term with its sessions (tests; a merge walks `entries`). */
  toMap(): TermSessions {
    const out: TermSessions = new Map();
    for (const e of this.entries()) out.set(e.key.toString("utf8"), [...e.ordinals]);
    return out;
  }

  /** The terms' bytes in order (a merge counts them before it gathers them). */
  *keys(): Generator<Buffer> {
    for (let k = 0; k < this.count; k++) yield this.termAt(k);
  }

  /** The entries in order, one at a time (a merge walks the base beside the log's records). */
  *entries(): Generator<DictionaryEntry> {
    for (let k = 0; k < this.count; k++) {
      const ordinals: number[] = [];
      const codes: number[] = [];
      this.eachAt(k, (o, code) => {
        ordinals.push(o);
        codes.push(code);
      });
      yield { key: this.termAt(k), ordinals, codes };
    }
  }
}

/**
 * One log record: [u32 magic, u32 body length, body (varint ordinal, varint count, terms as u16 length +
 * UTF-8, a u16 code per term (`boundsCode`)), sha256 of body]. `codes` absent: every bound unknown.
 */
export function encodeLogRecord(ordinal: number, terms: readonly string[], codes?: ArrayLike<number>): Buffer {
  const head: number[] = [];
  pushVarint(head, ordinal);
  pushVarint(head, terms.length);
  // One buffer for the whole record: its size is the terms' UTF-8 lengths (cut at 0xffff bytes, as the u16 says).
  // Each term's UTF-8 length, worked out once (an ASCII term's is its own: most are).
  const lengths = new Int32Array(terms.length);
  let size = 8 + head.length + 2 * terms.length;
  for (let i = 0; i < terms.length; i++) {
    const length = utf8Length(terms[i] as string);
    lengths[i] = length;
    size += 2 + Math.min(0xffff, length);
  }
  const out = Buffer.allocUnsafe(size + 32);
  out.writeUInt32LE(LOG_MAGIC, 0);
  out.writeUInt32LE(size - 8, 4);
  let at = 8;
  for (const b of head) out[at++] = b;
  for (let i = 0; i < terms.length; i++) {
    const t = terms[i] as string;
    const whole = lengths[i] as number;
    const length = Math.min(0xffff, whole);
    out[at] = length & 0xff;
    out[at + 1] = length >>> 8;
    at += 2;
    if (whole === t.length) for (let k = 0; k < length; k++) out[at + k] = t.charCodeAt(k);
    else if (length === whole) out.write(t, at, "utf8");
    else Buffer.from(t, "utf8").copy(out, at, 0, length);
    at += length;
  }
  for (let i = 0; i < terms.length; i++) {
    const code = codes === undefined ? BOUND_UNKNOWN : (codes[i] as number);
    out[at] = code & 0xff;
    out[at + 1] = (code >>> 8) & 0xff;
    at += 2;
  }
  createHash("sha256").update(out.subarray(8, size)).digest().copy(out, size);
  return out;
}

/** The length of `t`'s UTF-8: its own for ASCII (a character per byte), else counted by Buffer. */
function utf8Length(t: string): number {
  for (let i = 0; i < t.length; i++) if (t.charCodeAt(i) >= 0x80) return Buffer.byteLength(t, "utf8");
  return t.length;
}

/** The whole length (frame, body, hash) of the log record whose frame `buf` begins with; null when it does not begin one. */
export function logRecordLength(buf: Buffer): number | null {
  if (buf.length < 8 || buf.readUInt32LE(0) !== LOG_MAGIC) return null;
  return 8 + buf.readUInt32LE(4) + 32;
}

/** Where one log record's terms sit in the log's bytes: its session, how many terms, where the first begins, where their codes begin. */
export interface LogRecordRange {
  readonly ordinal: number;
  readonly count: number;
  readonly termsAt: number;
  readonly codesAt: number;
  readonly end: number;
}

/**
 * The log's records up to the first torn or bad one (a crash mid-append leaves at most that one), as
 * ranges of `log` (nothing decoded). `verify` false skips the records' sha256 (a query's lookup: a wrong
 * claim costs a needless open; a merge, which rewrites the base from them, checks them).
 */
export function logRecordRanges(log: Buffer, verify = true): { records: LogRecordRange[]; bytes: number } {
  const records: LogRecordRange[] = [];
  let at = 0;
  while (at + 8 <= log.length) {
    if (log.readUInt32LE(at) !== LOG_MAGIC) break;
    const len = log.readUInt32LE(at + 4);
    const end = at + 8 + len + 32;
    if (end > log.length) break;
    const body = log.subarray(at + 8, at + 8 + len);
    if (verify && !createHash("sha256").update(body).digest().equals(log.subarray(at + 8 + len, end))) break;
    try {
      const [ordinal, afterOrdinal] = readVarint(body, 0);
      const [count, afterCount] = readVarint(body, afterOrdinal);
      // The terms must fill the body exactly (a record whose lengths disagree with its frame is bad).
      let pos = afterCount;
      for (let i = 0; i < count; i++) {
        if (pos + 2 > body.length) throw new RangeError("record runs past its frame");
        pos += 2 + body.readUInt16LE(pos);
      }
      if (pos + 2 * count !== body.length) throw new RangeError("record does not fill its frame");
      records.push({ ordinal, count, termsAt: at + 8 + afterCount, codesAt: at + 8 + pos, end: at + 8 + len });
    } catch {
      break;
    }
    at = end;
  }
  return { records, bytes: at };
}

/** The log's records up to the first torn or bad one, decoded (see `logRecordRanges`). */
export function decodeLog(log: Buffer, verify = true): { records: { ordinal: number; terms: string[]; codes: number[] }[]; bytes: number } {
  const { records, bytes } = logRecordRanges(log, verify);
  return {
    records: records.map((r) => {
      const terms: string[] = [];
      let pos = r.termsAt;
      for (let i = 0; i < r.count; i++) {
        const l = log.readUInt16LE(pos);
        terms.push(log.toString("utf8", pos + 2, pos + 2 + l));
        pos += 2 + l;
      }
      return { ordinal: r.ordinal, terms, codes: Array.from({ length: r.count }, (_, i) => log.readUInt16LE(r.codesAt + 2 * i)) };
    }),
    bytes,
  };
}

/**
 * The sessions whose log records may hold one of `exacts` or a term beginning with one of `prefixes`,
 * found by searching the log's bytes (a native byte search per term) rather than decoding its records:
 * an exact term is looked for with its length before it, a prefix as bytes. A match across two terms'
 * bytes claims a session that does not hold the term: a needless open, never a wrong hit. Records past
 * the first torn one are not read (as `decodeLog`); checksums are not checked (a merge checks them).
 * `present` gathers every record's session (their score bounds are not read from the log).
 */
export function logCandidates(log: Buffer, exacts: Iterable<string>, prefixes: Iterable<string>, into: Set<number>, present?: Set<number>): void {
  const starts: number[] = [];
  const ends: number[] = [];
  const ordinals: number[] = [];
  let at = 0;
  while (at + 8 <= log.length) {
    if (log.readUInt32LE(at) !== LOG_MAGIC) break;
    const len = log.readUInt32LE(at + 4);
    const end = at + 8 + len + 32;
    if (end > log.length || len === 0) break;
    try {
      ordinals.push(readVarint(log.subarray(at + 8, at + 8 + len), 0)[0]);
    } catch {
      break;
    }
    starts.push(at + 8);
    ends.push(at + 8 + len);
    at = end;
  }
  if (present !== undefined) for (const o of ordinals) present.add(o);
  if (starts.length === 0) return;
  const limit = at;
  const recordAt = (pos: number): number => lastAtOrBefore(starts, pos);
  const find = (needle: Buffer): void => {
    let pos = log.indexOf(needle, 0);
    while (pos >= 0 && pos < limit) {
      const r = recordAt(pos);
      if (pos + needle.length <= (ends[r] as number)) into.add(ordinals[r] as number);
      pos = log.indexOf(needle, Math.max(pos + 1, r + 1 < starts.length ? (starts[r + 1] as number) : limit));
    }
  };
  for (const term of exacts) {
    const bytes = Buffer.from(term, "utf8").subarray(0, 0xffff);
    const needle = Buffer.alloc(2 + bytes.length);
    needle.writeUInt16LE(bytes.length, 0);
    bytes.copy(needle, 2);
    find(needle);
  }
  for (const prefix of prefixes) find(Buffer.from(prefix, "utf8"));
}
