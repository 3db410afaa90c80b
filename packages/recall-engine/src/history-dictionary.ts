// The history index's term dictionary: which sessions (by ordinal) hold each indexed term. A base file
// of terms sorted by their UTF-8 bytes, each with its sessions, looked up in place (binary search over an
// offset table, nothing decoded up front), plus an append-only log of (session, terms it gained) records
// that a merge folds into a new base. It only narrows which sessions a query opens: a stale claim (a
// session since replaced or deleted) costs one needless open, never a wrong hit, because every candidate
// is ranked by its own session index.
import { createHash } from "node:crypto";
import { readSync } from "node:fs";

const MAGIC = Buffer.from("CFHD");
/** Bumped when the dictionary's bytes change shape: an older dictionary is rebuilt, never read. */
export const DICTIONARY_FORMAT = 1;
const LOG_MAGIC = 0x43464c31; // "CFL1"

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

/**
 * Base bytes: magic, format, term count, an offset table (one u32 per term, into the entries), then the
 * entries [u16 byte length, term UTF-8, varint count, varint ordinal deltas], then a sha256 trailer.
 */
export function encodeDictionary(terms: TermSessions): Buffer {
  const keys = [...terms.keys()].map((t) => Buffer.from(t, "utf8")).sort(Buffer.compare);
  const offsets = Buffer.alloc(keys.length * 4);
  const parts: Buffer[] = [];
  let at = 0;
  keys.forEach((key, k) => {
    const ordinals = [...new Set(terms.get(key.toString("utf8")) ?? [])].sort((a, b) => a - b);
    const body: number[] = [];
    pushVarint(body, ordinals.length);
    let prev = 0;
    for (const o of ordinals) {
      pushVarint(body, o - prev);
      prev = o;
    }
    const head = Buffer.alloc(2);
    head.writeUInt16LE(Math.min(key.length, 0xffff));
    const entry = Buffer.concat([head, key.subarray(0, 0xffff), Buffer.from(body)]);
    offsets.writeUInt32LE(at, k * 4);
    parts.push(entry);
    at += entry.length;
  });
  const header = Buffer.alloc(12);
  MAGIC.copy(header, 0);
  header.writeUInt32LE(DICTIONARY_FORMAT, 4);
  header.writeUInt32LE(keys.length, 8);
  const body = Buffer.concat([header, offsets, ...parts]);
  return Buffer.concat([body, createHash("sha256").update(body).digest()]);
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

/** A file's bytes read on demand by aligned pages (kept), so a lookup reads the few pages its binary search visits. */
class FileSource implements ByteSource {
  readonly length: number;
  private readonly pages = new Map<number, Buffer>();
  constructor(
    private readonly fd: number,
    length: number,
  ) {
    this.length = length;
  }
  private page(p: number): Buffer {
    let have = this.pages.get(p);
    if (have === undefined) {
      const size = Math.min(PAGE, this.length - p * PAGE);
      have = Buffer.alloc(Math.max(0, size));
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
  bytes(at: number, length: number): Buffer {
    if (at < 0 || at + length > this.length) throw new RangeError(`dictionary range at byte ${String(at)} runs past its end`);
    const first = Math.floor(at / PAGE);
    const last = Math.floor((at + length - 1) / PAGE);
    if (length === 0) return Buffer.alloc(0);
    if (first === last) return this.page(first).subarray(at - first * PAGE, at - first * PAGE + length);
    const parts: Buffer[] = [];
    for (let p = first; p <= last; p++) parts.push(this.page(p));
    return Buffer.concat(parts).subarray(at - first * PAGE, at - first * PAGE + length);
  }
  u16(at: number): number {
    return this.bytes(at, 2).readUInt16LE(0);
  }
  u32(at: number): number {
    return this.bytes(at, 4).readUInt32LE(0);
  }
}

/** A base read for lookups; throws on bytes it cannot trust (the caller rebuilds). */
export class DictionaryBase {
  private readonly src: ByteSource;
  private readonly count: number;
  private readonly entries: number;

  /** A base held whole, its sha256 trailer checked (a merge rewrites the base from what it reads). */
  constructor(buf: Buffer, label: string) {
    if (buf.length < 12 + 32 || !buf.subarray(0, 4).equals(MAGIC)) throw new RangeError(`${label}: not a history dictionary`);
    if (buf.readUInt32LE(4) !== DICTIONARY_FORMAT) throw new RangeError(`${label}: dictionary format ${String(buf.readUInt32LE(4))}, this reader reads ${String(DICTIONARY_FORMAT)}`);
    const body = buf.subarray(0, buf.length - 32);
    if (!createHash("sha256").update(body).digest().equals(buf.subarray(buf.length - 32))) throw new RangeError(`${label}: dictionary checksum does not match its bytes`);
    this.src = bufferSource(body);
    this.count = buf.readUInt32LE(8);
    this.entries = 12 + this.count * 4;
    if (this.entries > body.length) throw new RangeError(`${label}: dictionary offset table runs past its end`);
  }

  /**
   * A base read in place from open file `fd` of `size` bytes, for one query: only the pages its lookups
   * visit are read, and its checksum is not (a wrong claim costs a needless open, never a wrong hit).
   */
  static inPlace(fd: number, size: number, label: string): DictionaryBase {
    if (size < 12 + 32) throw new RangeError(`${label}: not a history dictionary`);
    const src = new FileSource(fd, size - 32);
    const head = src.bytes(0, 12);
    if (!head.subarray(0, 4).equals(MAGIC)) throw new RangeError(`${label}: not a history dictionary`);
    if (head.readUInt32LE(4) !== DICTIONARY_FORMAT) throw new RangeError(`${label}: dictionary format ${String(head.readUInt32LE(4))}, this reader reads ${String(DICTIONARY_FORMAT)}`);
    const base = Object.create(DictionaryBase.prototype) as { src: ByteSource; count: number; entries: number };
    base.src = src;
    base.count = head.readUInt32LE(8);
    base.entries = 12 + base.count * 4;
    if (base.entries > src.length) throw new RangeError(`${label}: dictionary offset table runs past its end`);
    return base as unknown as DictionaryBase;
  }

  static empty(): DictionaryBase {
    return new DictionaryBase(encodeDictionary(new Map()), "empty");
  }

  get termCount(): number {
    return this.count;
  }

  private termAt(k: number): Buffer {
    const at = this.entries + this.src.u32(12 + k * 4);
    return this.src.bytes(at + 2, this.src.u16(at));
  }

  private ordinalsAt(k: number, into: Set<number>): void {
    const at = this.entries + this.src.u32(12 + k * 4);
    const start = at + 2 + this.src.u16(at);
    const end = k + 1 < this.count ? this.entries + this.src.u32(12 + (k + 1) * 4) : this.src.length;
    const buf = this.src.bytes(start, end - start);
    const [n, first] = readVarint(buf, 0);
    let pos = first;
    let prev = 0;
    for (let i = 0; i < n; i++) {
      let d: number;
      [d, pos] = readVarint(buf, pos);
      prev += d;
      into.add(prev);
    }
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
    const key = Buffer.from(prefix, "utf8");
    for (let k = this.lowerBound(key); k < this.count; k++) {
      const term = this.termAt(k);
      if (term.length < key.length || !term.subarray(0, key.length).equals(key)) break;
      this.ordinalsAt(k, into);
    }
  }

  /** Every term with its sessions (a merge rewrites the base from this plus the log). */
  toMap(): TermSessions {
    const out: TermSessions = new Map();
    for (let k = 0; k < this.count; k++) {
      const set = new Set<number>();
      this.ordinalsAt(k, set);
      out.set(this.termAt(k).toString("utf8"), [...set]);
    }
    return out;
  }
}

/** One log record: [u32 magic, u32 body length, body (varint ordinal, varint count, terms as u16 length + UTF-8), sha256 of body]. */
export function encodeLogRecord(ordinal: number, terms: readonly string[]): Buffer {
  const head: number[] = [];
  pushVarint(head, ordinal);
  pushVarint(head, terms.length);
  const parts: Buffer[] = [Buffer.from(head)];
  for (const t of terms) {
    const bytes = Buffer.from(t, "utf8").subarray(0, 0xffff);
    const len = Buffer.alloc(2);
    len.writeUInt16LE(bytes.length);
    parts.push(len, bytes);
  }
  const body = Buffer.concat(parts);
  const frame = Buffer.alloc(8);
  frame.writeUInt32LE(LOG_MAGIC, 0);
  frame.writeUInt32LE(body.length, 4);
  return Buffer.concat([frame, body, createHash("sha256").update(body).digest()]);
}

/**
 * The log's records up to the first torn or bad one (a crash mid-append leaves at most that one).
 * `verify` false skips the records' sha256 (a query's lookup: a wrong claim costs a needless open; a
 * merge, which rewrites the base from them, checks them).
 */
export function decodeLog(log: Buffer, verify = true): { records: { ordinal: number; terms: string[] }[]; bytes: number } {
  const records: { ordinal: number; terms: string[] }[] = [];
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
      const [n, afterCount] = readVarint(body, afterOrdinal);
      let pos = afterCount;
      const terms: string[] = [];
      for (let i = 0; i < n; i++) {
        const l = body.readUInt16LE(pos);
        terms.push(body.subarray(pos + 2, pos + 2 + l).toString("utf8"));
        pos += 2 + l;
      }
      records.push({ ordinal, terms });
    } catch {
      break;
    }
    at = end;
  }
  return { records, bytes: at };
}

/** The log's records as a lookup: exact terms in a map, prefixes by scanning (the log stays small: merged past a share of the base). */
export class DictionaryLog {
  private readonly byTerm = new Map<string, number[]>();

  constructor(records: readonly { ordinal: number; terms: readonly string[] }[]) {
    for (const r of records) addTerms(this.byTerm, r.ordinal, r.terms);
  }

  exact(term: string, into: Set<number>): void {
    for (const o of this.byTerm.get(term) ?? []) into.add(o);
  }

  prefixed(prefix: string, into: Set<number>): void {
    for (const [term, list] of this.byTerm) if (term.startsWith(prefix)) for (const o of list) into.add(o);
  }

  mergeInto(into: TermSessions): void {
    for (const [term, list] of this.byTerm) {
      const have = into.get(term);
      if (have === undefined) into.set(term, [...list]);
      else have.push(...list);
    }
  }
}

/**
 * The sessions whose log records may hold one of `exacts` or a term beginning with one of `prefixes`,
 * found by searching the log's bytes (a native byte search per term) rather than decoding its records:
 * an exact term is looked for with its length before it, a prefix as bytes. A match across two terms'
 * bytes claims a session that does not hold the term: a needless open, never a wrong hit. Records past
 * the first torn one are not read (as `decodeLog`); checksums are not checked (a merge checks them).
 */
export function logCandidates(log: Buffer, exacts: Iterable<string>, prefixes: Iterable<string>, into: Set<number>): void {
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
  if (starts.length === 0) return;
  const limit = at;
  const recordAt = (pos: number): number => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if ((starts[mid] as number) <= pos) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
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
