// One session's postings in the history index, compact and read in place. Terms sorted by their UTF-8
// bytes in blocks of SPARSE terms (front-coded: the bytes shared with the term before, then the rest),
// each with its id in the session's own term order (first seen, as the one-session index numbers them),
// its document frequency and the byte length of its postings; postings as varint (doc delta, tf) pairs.
// The directory starts (per block: where it and its postings begin, and its first term) and the document
// lengths are fixed-width little-endian u32s (`Sparse`), read in place as typed arrays: a search opens a
// hundred segments, and decoding them as varints was most of an open. A query reads the head (the
// directory starts and lengths), then per
// query term one block of the directory and the postings it points at, each by `readSync` at its offset:
// nothing else of the segment is read. No block text is kept: texts are read back from the ledger.
// This file holds the format (its constants, its head, writing and checked decoding); a segment is read in
// place by history-segment-reader.ts, a grown session's parts together by history-segment-parts.ts.
import { createHash } from "node:crypto";
import { CorruptIndexError } from "./errors.js";
import { pushVarint, VarintCursor } from "./history-dictionary.js";
import type { PostingList } from "./term-index.js";

/** 2: directory starts and document lengths as u32s (`Sparse`), not varints. */
export const MAGIC = Buffer.from("CFHSEG2\n", "latin1");
/** Terms per directory block: one block is read per looked-up term. */
export const SPARSE = 32;

/** A term's UTF-8 bytes read as latin1 (one character per byte: string order is byte order, the segment's); an ASCII term is its own. */
export function byteString(term: string): string {
  for (let i = 0; i < term.length; i++) if (term.charCodeAt(i) >= 0x80) return Buffer.from(term, "utf8").toString("latin1");
  return term;
}

/**
 * One term of a segment as written: its UTF-8 bytes, its id in the session's term order, its document
 * frequency and its postings already varint-coded (doc deltas from 0, then tf).
 */
export interface SegmentTerm {
  readonly key: Buffer;
  readonly id: number;
  readonly df: number;
  readonly bytes: Buffer;
}

/** `lists` ([doc, tf, …] in doc order, all after document `after`) varint-coded as a segment holds them. */
export function encodePostings(lists: readonly PostingList[], after: number): { bytes: Buffer; df: number; lastDoc: number } {
  const out: number[] = [];
  let last = after;
  let df = 0;
  for (const list of lists) {
    for (let i = 0; i < list.length; i += 2) {
      const doc = list[i] as number;
      pushVarint(out, doc - last);
      pushVarint(out, list[i + 1] as number);
      last = doc;
      df++;
    }
  }
  return { bytes: Buffer.from(out), df, lastDoc: last };
}

export interface Head {
  /** Documents this segment holds the lengths of: `firstDoc` on (a grown session's later part starts past its earlier ones). */
  readonly docCount: number;
  readonly firstDoc?: number;
  /** Terms of the session through this segment (ids below it): a later part's new terms continue its earlier ones' ids. */
  readonly termCount: number;
  readonly totalLength: number;
  readonly blocks: number;
  /** Byte ranges, from the file's start: [offset, length]. */
  readonly sparse: readonly [number, number];
  readonly lengths: readonly [number, number];
  readonly terms: readonly [number, number];
  readonly postings: readonly [number, number];
}

/** Bytes of a directory start: four u32s (the block's offset in the terms section, its postings' offset in the postings section, its first term's start and end in the sparse section). */
export const SPARSE_ENTRY = 16;

/**
 * The sparse section: per directory block four little-endian u32s (where the block starts in the terms
 * section, where its terms' postings start in the postings section, where its first term's bytes start and
 * end in this section), then those first terms' bytes, then zeros to a multiple of 4 bytes (so the lengths
 * after it are read as u32s in place). Blocks added with `add`, in order.
 */
class Sparse {
  private readonly starts: number[] = [];
  private readonly keys: Buffer[] = [];
  private keyBytes = 0;
  add(dirAt: number, postingsAt: number, key: Buffer): void {
    this.starts.push(dirAt, postingsAt, this.keyBytes, key.length);
    this.keys.push(key);
    this.keyBytes += key.length;
  }
  done(): Buffer {
    const blocks = this.keys.length;
    const head = blocks * SPARSE_ENTRY;
    const out = Buffer.alloc(head + ((this.keyBytes + 3) & ~3));
    for (let b = 0; b < blocks; b++) {
      const dirAt = this.starts[4 * b] as number;
      const postingsAt = this.starts[4 * b + 1] as number;
      const keyAt = head + (this.starts[4 * b + 2] as number);
      const keyEnd = keyAt + (this.starts[4 * b + 3] as number);
      if (postingsAt > 0xffffffff || dirAt > 0xffffffff || keyEnd > 0xffffffff) throw new RangeError("segment section past 4 GB");
      out.writeUInt32LE(dirAt, SPARSE_ENTRY * b);
      out.writeUInt32LE(postingsAt, SPARSE_ENTRY * b + 4);
      out.writeUInt32LE(keyAt, SPARSE_ENTRY * b + 8);
      out.writeUInt32LE(keyEnd, SPARSE_ENTRY * b + 12);
      (this.keys[b] as Buffer).copy(out, keyAt);
    }
    return out;
  }
}

/** Bytes written one after another into a buffer sized up front (the caller's bound). */
class ByteWriter {
  private readonly buf: Buffer;
  length = 0;
  constructor(bound: number) {
    this.buf = Buffer.allocUnsafe(bound);
  }
  varint(value: number): void {
    let v = value;
    while (v >= 0x80) {
      this.buf[this.length++] = (v & 0x7f) | 0x80;
      v = Math.floor(v / 128);
    }
    this.buf[this.length++] = v;
  }
  bytes(from: Buffer, start: number): void {
    if (this.length + from.length - start > this.buf.length) throw new RangeError("segment section outgrew its bound");
    this.length += from.copy(this.buf, this.length, start);
  }
  done(): Buffer {
    // A varint past the end is dropped by the typed array, but still counted: caught here.
    if (this.length > this.buf.length) throw new RangeError("segment section outgrew its bound");
    return this.buf.subarray(0, this.length);
  }
}

/**
 * Segment bytes for `terms` (any order) over documents of `lengths`, numbered from `firstDoc`, the session
 * holding `termCount` terms through it (a later part of a grown session: the documents appended, the ids
 * of terms its earlier parts hold kept); a sha256 trailer covers them. `byteOrder`: the places of `terms`
 * in the byte order of their keys, when the caller sorted them already.
 */
export function encodeSegment(terms: readonly SegmentTerm[], lengths: ArrayLike<number>, firstDoc = 0, termCount = terms.length, byteOrder?: ArrayLike<number>): Buffer {
  let order: ArrayLike<number>;
  if (byteOrder !== undefined && byteOrder.length === terms.length) order = byteOrder;
  else {
    // Sorted by the keys read as latin1: one character per byte, so string order is byte order (and a
    // string comparison is far cheaper than a Buffer.compare per pair).
    const bytesOf = terms.map((t) => t.key.toString("latin1"));
    order = Array.from(terms.keys()).sort((a, b) => {
      const x = bytesOf[a] as string;
      const y = bytesOf[b] as string;
      return x < y ? -1 : x > y ? 1 : 0;
    });
  }
  const sorted = Array.from(order, (k) => terms[k] as SegmentTerm);
  // Upper bounds of the sections' sizes (a varint of a number below 2^35 takes at most 5 bytes), so each is
  // written into one buffer byte by byte rather than grown.
  let keyBytes = 0;
  for (const t of terms) keyBytes += t.key.length;
  const dir = new ByteWriter(keyBytes + terms.length * 25);
  const sparse = new Sparse();
  const postings: Buffer[] = [];
  let postingsLength = 0;
  let blocks = 0;
  let prev: Buffer = Buffer.alloc(0);
  for (let k = 0; k < sorted.length; k++) {
    const t = sorted[k] as SegmentTerm;
    const key = t.key;
    if (k % SPARSE === 0) {
      sparse.add(dir.length, postingsLength, key);
      blocks++;
      prev = Buffer.alloc(0);
    }
    let shared = 0;
    const most = Math.min(prev.length, key.length);
    while (shared < most && prev[shared] === key[shared]) shared++;
    dir.varint(shared);
    dir.varint(key.length - shared);
    dir.bytes(key, shared);
    dir.varint(t.id);
    dir.varint(t.df);
    dir.varint(t.bytes.length);
    postings.push(t.bytes);
    postingsLength += t.bytes.length;
    prev = key;
  }
  const { lens, total } = encodeLengths(lengths);
  return assemble([sparse.done(), lens.done(), dir.done(), Buffer.concat(postings, postingsLength)], lengths.length, firstDoc, termCount, total, blocks);
}

/** The lengths section (a little-endian u32 a block) and the lengths' sum. */
function encodeLengths(lengths: ArrayLike<number>): { lens: { done(): Buffer }; total: number } {
  const out = Buffer.allocUnsafe(4 * lengths.length);
  let total = 0;
  for (let d = 0; d < lengths.length; d++) {
    const length = lengths[d] as number;
    if (!(length >= 0 && length <= 0xffffffff)) throw new RangeError(`block length ${String(length)} does not fit a segment`);
    out.writeUInt32LE(length, 4 * d);
    total += length;
  }
  return { lens: { done: () => out }, total };
}

/** The segment of its four sections (sparse directory, lengths, terms, postings): magic, head, sections and the sha256 trailer. */
function assemble(sections: readonly Buffer[], docCount: number, firstDoc: number, termCount: number, total: number, blocks: number): Buffer {
  // The head's offsets depend on its own length: a few passes settle it (lengths only grow, by digits).
  const headFor = (start: number): Buffer => {
    let at = start;
    const range = (b: Buffer): [number, number] => {
      const r: [number, number] = [at, b.length];
      at += b.length;
      return r;
    };
    const [s0, s1, s2, s3] = sections as [Buffer, Buffer, Buffer, Buffer];
    const head: Head = { docCount, ...(firstDoc === 0 ? {} : { firstDoc }), termCount, totalLength: total, blocks, sparse: range(s0), lengths: range(s1), terms: range(s2), postings: range(s3) };
    return Buffer.from(JSON.stringify(head), "utf8");
  };
  let head = headFor(0);
  for (;;) {
    const next = headFor(MAGIC.length + 4 + head.length);
    if (next.length === head.length) {
      head = next;
      break;
    }
    head = next;
  }
  // One buffer: magic, head's length, head, sections, then the sha256 of all that.
  let bodyLength = MAGIC.length + 4 + head.length;
  for (const section of sections) bodyLength += section.length;
  const out = Buffer.allocUnsafe(bodyLength + 32);
  let at = MAGIC.copy(out, 0);
  at = out.writeUInt32LE(head.length, at);
  at += head.copy(out, at);
  for (const section of sections) at += section.copy(out, at);
  createHash("sha256").update(out.subarray(0, bodyLength)).digest().copy(out, bodyLength);
  return out;
}

/** Bytes written one after another into a buffer grown (doubled) as they come. */
class GrowingWriter {
  buf: Buffer;
  length = 0;
  constructor(initial: number) {
    this.buf = Buffer.allocUnsafe(Math.max(64, initial));
  }
  /** Room for `more` bytes past `length`. */
  room(more: number): void {
    if (this.length + more <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.length + more));
    this.buf.copy(next, 0, 0, this.length);
    this.buf = next;
  }
  done(): Buffer {
    return this.buf.subarray(0, this.length);
  }
}

/** `value` (below 2^35) as a varint at `w.length` (room for 5 bytes made by the caller). */
function varintAt(w: GrowingWriter, value: number): void {
  const buf = w.buf;
  let at = w.length;
  let v = value;
  while (v >= 0x80) {
    buf[at++] = (v & 0x7f) | 0x80;
    v = Math.floor(v / 128);
  }
  buf[at++] = v;
  w.length = at;
}

/** Latin1 string `s` (one byte per character) from character `from` on, at `w.length` (room made by the caller). */
function latin1At(w: GrowingWriter, s: string, from: number): void {
  const buf = w.buf;
  let at = w.length;
  for (let i = from; i < s.length; i++) buf[at++] = s.charCodeAt(i);
  w.length = at;
}

/**
 * The segment of a session's whole term index, written straight from its postings: `keys` (each term's
 * UTF-8 read as latin1, `byteString`, by id), `order` (the ids in the byte order of those), `postingsOf`
 * (a term's [doc, tf, …] lists in doc order), `lengths` (every document's, from 0). The same bytes as
 * `encodeSegment` of the same terms (their postings coded by `encodePostings` from 0), without a buffer
 * per term; also each term's document frequency, by id.
 */
export function encodeWholeSegment(keys: readonly string[], order: ArrayLike<number>, postingsOf: (id: number) => readonly PostingList[], lengths: ArrayLike<number>): { bytes: Buffer; df: Int32Array } {
  const n = keys.length;
  const df = new Int32Array(n);
  let keyBytes = 0;
  for (let id = 0; id < n; id++) keyBytes += (keys[id] as string).length;
  const dir = new GrowingWriter(keyBytes + n * 25);
  const sparse = new Sparse();
  const postings = new GrowingWriter(n * 16);
  let blocks = 0;
  let prev = "";
  for (let k = 0; k < n; k++) {
    const id = order[k] as number;
    const key = keys[id] as string;
    if (k % SPARSE === 0) {
      sparse.add(dir.length, postings.length, Buffer.from(key, "latin1"));
      blocks++;
      prev = "";
    }
    const start = postings.length;
    let count = 0;
    let last = 0;
    for (const list of postingsOf(id)) {
      postings.room(list.length * 5);
      for (let i = 0; i < list.length; i += 2) {
        const doc = list[i] as number;
        varintAt(postings, doc - last);
        varintAt(postings, list[i + 1] as number);
        last = doc;
        count++;
      }
    }
    df[id] = count;
    let shared = 0;
    const most = Math.min(prev.length, key.length);
    while (shared < most && prev.charCodeAt(shared) === key.charCodeAt(shared)) shared++;
    dir.room(25 + key.length - shared);
    varintAt(dir, shared);
    varintAt(dir, key.length - shared);
    latin1At(dir, key, shared);
    varintAt(dir, id);
    varintAt(dir, count);
    varintAt(dir, postings.length - start);
    prev = key;
  }
  const { lens, total } = encodeLengths(lengths);
  return { bytes: assemble([sparse.done(), lens.done(), dir.done(), postings.done()], lengths.length, 0, n, total, blocks), df };
}

export function isHead(v: unknown): v is Head {
  if (typeof v !== "object" || v === null) return false;
  const h = v as Record<string, unknown>;
  const range = (r: unknown): boolean => Array.isArray(r) && r.length === 2 && r.every((n) => Number.isSafeInteger(n) && (n as number) >= 0);
  if (h["firstDoc"] !== undefined && !(Number.isSafeInteger(h["firstDoc"]) && (h["firstDoc"] as number) >= 0)) return false;
  return ["docCount", "termCount", "totalLength", "blocks"].every((k) => Number.isSafeInteger(h[k])) && ["sparse", "lengths", "terms", "postings"].every((k) => range(h[k]));
}

/** Every term of segment bytes `buf` (checked against its sha256 trailer; postings left coded), and the document lengths. */
export function decodeSegment(buf: Buffer, label: string): { terms: SegmentTerm[]; lengths: number[] } {
  const bad = (why: string): CorruptIndexError => new CorruptIndexError(`${label}: ${why}`);
  if (buf.length < MAGIC.length + 4 + 32 || !buf.subarray(0, MAGIC.length).equals(MAGIC)) throw bad("not a history segment");
  const body = buf.subarray(0, buf.length - 32);
  if (!createHash("sha256").update(body).digest().equals(buf.subarray(buf.length - 32))) throw bad("segment checksum does not match its bytes");
  const headLength = body.readUInt32LE(MAGIC.length);
  let head: unknown;
  try {
    head = JSON.parse(body.subarray(MAGIC.length + 4, MAGIC.length + 4 + headLength).toString("utf8"));
  } catch {
    throw bad("segment head does not parse");
  }
  if (!isHead(head) || head.postings[0] + head.postings[1] !== body.length) throw bad("segment head does not fit its bytes");
  try {
    const lengths: number[] = [];
    if (head.lengths[1] !== 4 * head.docCount || head.lengths[0] + head.lengths[1] > body.length) throw new RangeError("segment lengths do not fit their range");
    for (let d = 0; d < head.docCount; d++) lengths.push(body.readUInt32LE(head.lengths[0] + 4 * d));
    const terms: SegmentTerm[] = [];
    const c = new VarintCursor(body, head.terms[0]);
    const end = head.terms[0] + head.terms[1];
    let at = head.postings[0];
    let prev: Buffer = Buffer.alloc(0);
    let k = 0;
    while (c.pos < end) {
      if (k % SPARSE === 0) prev = Buffer.alloc(0);
      const shared = c.next();
      const rest = c.next();
      const key = Buffer.concat([prev.subarray(0, shared), body.subarray(c.pos, c.pos + rest)]);
      c.pos += rest;
      const id = c.next();
      const df = c.next();
      const bytes = c.next();
      if (at + bytes > body.length) throw new RangeError(`postings of term ${String(id)} run past the segment`);
      terms.push({ key, id, df, bytes: body.subarray(at, at + bytes) });
      at += bytes;
      prev = key;
      k++;
    }
    if (terms.length !== head.termCount) throw new RangeError(`${String(terms.length)} terms, the head says ${String(head.termCount)}`);
    return { terms, lengths };
  } catch (error) {
    if (error instanceof RangeError) throw bad(error.message);
    throw error;
  }
}
