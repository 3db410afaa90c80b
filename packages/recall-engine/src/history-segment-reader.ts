// Reading one history segment in place (its format: history-segment.ts): the head, directory starts and
// document lengths on open (u32 columns, viewed where they were read, not decoded), then per looked-up
// term one directory block and its postings, each by
// `readSync` at its offset, so a query touches only the bytes its terms need.
import { closeSync, openSync, readSync } from "node:fs";
import { CorruptIndexError } from "./errors.js";
import { VarintCursor } from "./history-dictionary.js";
import { type Head, isHead, MAGIC, SPARSE, SPARSE_ENTRY } from "./history-segment.js";
import { smallCopy, smallUint32, u32Column } from "./small-arrays.js";
import type { PostingList } from "./term-index.js";

/**
 * Bytes read first on open: the magic, the head's length, the head and (a session of up to a few thousand
 * blocks) the directory starts and document lengths that follow it, copied out of this one read.
 */
const FIRST_READ = 16384;
/** The most postings bytes one prefix's terms are read ahead in (more: read term by term, as ranking asks). */
const AHEAD_BYTES = 1 << 20;

/** The term a directory walk is at (history-segment-reader.ts `walkBlock`), grown as longer terms come: one for every reader (reads are synchronous). */
let keyScratch = Buffer.allocUnsafe(256);

/** The first read of every open (reads are synchronous): its bytes are parsed on the spot, none kept. */
const firstScratch = Buffer.allocUnsafe(FIRST_READ);

/**
 * `a[aFrom, aEnd)` against `b[0, bEnd)` in byte order (negative, 0, positive: as Buffer's `compare` of
 * the same ranges signs it). A loop, not Buffer's `compare`: a query compares a few keys of a few bytes in
 * each directory block it walks, and the method's argument checks and native call cost more than the bytes.
 */
function compareBytes(a: Uint8Array, aFrom: number, aEnd: number, b: Uint8Array, bEnd: number): number {
  const n = Math.min(aEnd - aFrom, bEnd);
  for (let i = 0; i < n; i++) {
    const d = (a[aFrom + i] as number) - (b[i] as number);
    if (d !== 0) return d;
  }
  return aEnd - aFrom - bEnd;
}

/**
 * The next directory term rebuilt in `keyScratch` (its shared prefix of the `length` bytes there, the term
 * before it, then its own bytes read at the cursor): its length. A RangeError naming term `k` when it runs past `buf` (`where`).
 */
function nextKey(c: VarintCursor, buf: Uint8Array, length: number, k: number, where: string): number {
  const shared = c.next();
  const rest = c.next();
  if (shared > length || c.pos + rest > buf.length) throw new RangeError(`term ${String(k)} runs past ${where}`);
  if (shared + rest > keyScratch.length) {
    const grown = Buffer.allocUnsafe(Math.max(2 * keyScratch.length, shared + rest));
    keyScratch.copy(grown, 0, 0, shared);
    keyScratch = grown;
  }
  copyBytes(buf, c.pos, rest, keyScratch, shared);
  c.pos += rest;
  return shared + rest;
}

/**
 * `n` bytes of `from` at `at` into `to` at `into`, byte by byte: a term's own bytes past the prefix it
 * shares are a few, fewer than Buffer's `copy` checks arguments for (a loop of its own, so the walk that
 * calls it is not the function V8 optimizes for it).
 */
function copyBytes(from: Uint8Array, at: number, n: number, to: Uint8Array, into: number): void {
  for (let i = 0; i < n; i++) to[into + i] = from[at + i] as number;
}

/** Where one term's entry led: its id, document frequency and postings' byte range. */
interface Entry {
  readonly id: number;
  readonly df: number;
  readonly at: number;
  readonly bytes: number;
}

/**
 * A segment opened for queries: the head, the first term of each directory block and the document
 * lengths read on open; directory blocks and postings read when a term asks for them. It answers
 * what ranking asks a term index (rank.ts): document count and lengths, a term's id, the terms a
 * prefix begins (oldest first, as TermPrefixes), postings by id. Structure is checked as it is read
 * (a bad offset throws CorruptIndexError naming the file); the sha256 trailer is checked by `decodeSegment`,
 * when the history rewrites the segment, not on every query.
 */
export class SegmentReader {
  readonly path: string;
  private readonly size: number;
  private readonly head: Head;
  /** The sparse section's bytes, where each block's first term sits (at `starts`' offsets: no Buffer per block). */
  private readonly meta: Buffer;
  /** Per directory block four u32s (history-segment.ts `Sparse`): its offset in the terms section, its postings' in the postings section, its first term's start and end in `meta`. */
  private readonly starts: Uint32Array;
  /** Directory blocks. */
  private readonly blocks: number;
  private readonly lengths: Uint32Array;
  private readonly byId = new Map<number, Entry>();
  private readonly byTerm = new Map<string, Entry | null>();
  /** Directory blocks' bytes read so far, by block. */
  private readonly blocksRead = new Map<number, Buffer>();
  /**
   * Postings decoded since the last `close` (one search): the score bound reads a query term's postings
   * and the ranking the same ones again. Dropped on `close`, so a kept segment holds none between searches.
   */
  private readonly postingsRead = new Map<number, PostingList[]>();
  /**
   * Postings bytes read ahead, by term id: a prefix's terms sit side by side in the directory and so do
   * their postings, so `termsWithPrefix` reads them all (and the prefix's own term's) in one read rather
   * than one per term (a common word begins dozens of terms in every session). Dropped on `close`.
   */
  private readonly postingsAhead = new Map<number, Buffer>();
  private fd = -1;

  private constructor(path: string, size: number, head: Head, meta: Buffer, starts: Uint32Array, lengths: Uint32Array) {
    this.path = path;
    this.size = size;
    this.head = head;
    this.firstDoc = head.firstDoc ?? 0;
    this.meta = meta;
    this.starts = starts;
    this.blocks = head.blocks;
    this.lengths = lengths;
  }

  /** `length` bytes at `at` (fewer where the file ends), into `into` when given (its start), else into a buffer of their own. */
  private static readAt(fd: number, at: number, length: number, into?: Buffer): Buffer {
    // Every byte handed out was read (a short read is cut off): no zero-filling needed.
    const buf = into ?? Buffer.allocUnsafe(length);
    let got = 0;
    while (got < length) {
      const n = readSync(fd, buf, got, length - got, at + got);
      if (n === 0) break;
      got += n;
    }
    return got === length ? buf : buf.subarray(0, got);
  }

  /** Opens `path` (reads its head, directory starts and lengths; its descriptor stays open until `close`); throws CorruptIndexError on bytes it cannot read. */
  static open(path: string): SegmentReader {
    const fd = openSync(path, "r");
    try {
      // Into the shared scratch: the head is parsed from it, the directory starts and lengths copied out.
      const first = SegmentReader.readAt(fd, 0, FIRST_READ, firstScratch);
      const bad = (why: string): CorruptIndexError => new CorruptIndexError(`${path}: ${why}`);
      if (first.length < MAGIC.length + 4 || !first.subarray(0, MAGIC.length).equals(MAGIC)) throw bad("not a history segment");
      const headLength = first.readUInt32LE(MAGIC.length);
      const headBytes = MAGIC.length + 4 + headLength <= first.length ? first.subarray(MAGIC.length + 4, MAGIC.length + 4 + headLength) : SegmentReader.readAt(fd, MAGIC.length + 4, headLength);
      let head: unknown;
      try {
        head = JSON.parse(headBytes.toString("utf8"));
      } catch {
        throw bad("segment head does not parse");
      }
      if (!isHead(head)) throw bad("segment head has an unknown shape");
      const size = head.postings[0] + head.postings[1];
      // The directory starts and the lengths sit side by side: one read.
      const from = head.sparse[0];
      const to = head.lengths[0] + head.lengths[1];
      // Out of the first read when it holds them (a copy: that scratch is the next open's), else read.
      const meta = to <= first.length ? smallCopy(first.subarray(from, to)) : SegmentReader.readAt(fd, from, to - from);
      if (meta.length !== to - from) throw bad("segment is shorter than its head says");
      // The sparse section, then the lengths right after it (4-byte aligned), as history-segment.ts writes them.
      const sparseLength = head.sparse[1];
      const table = SPARSE_ENTRY * head.blocks;
      if (head.lengths[0] !== from + sparseLength || sparseLength % 4 !== 0 || sparseLength < table || head.lengths[1] !== 4 * head.docCount) throw bad("segment directory starts and lengths do not fit their ranges");
      const starts = u32Column(meta, 0, 4 * head.blocks);
      for (let b = 0; b < head.blocks; b++) {
        const keyAt = starts[4 * b + 2] as number;
        const keyEnd = starts[4 * b + 3] as number;
        if (keyAt < table || keyEnd < keyAt || keyEnd > sparseLength) throw bad(`directory start ${String(b)} runs past its range`);
      }
      const lengths = u32Column(meta, sparseLength, head.docCount);
      const reader = new SegmentReader(path, size, head, meta, starts, lengths);
      // Kept for the directory blocks and postings the query reads next (closed by `close`).
      reader.fd = fd;
      return reader;
    } catch (error) {
      closeSync(fd);
      if (error instanceof RangeError) throw new CorruptIndexError(`${path}: ${error.message}`);
      throw error;
    }
  }

  /** Reads a range through a descriptor kept open until `close` (a query reads a few ranges of each segment). */
  private read(at: number, length: number): Buffer {
    if (at < 0 || at + length > this.size) throw new CorruptIndexError(`${this.path}: a range at byte ${String(at)} runs past the segment`);
    if (this.fd < 0) this.fd = openSync(this.path, "r");
    const buf = SegmentReader.readAt(this.fd, at, length);
    if (buf.length !== length) throw new CorruptIndexError(`${this.path}: segment ends before byte ${String(at + length)}`);
    return buf;
  }

  /** Closes the descriptor reads opened (a later read opens it again). */
  close(): void {
    if (this.fd >= 0) closeSync(this.fd);
    this.fd = -1;
    this.postingsRead.clear();
    this.postingsAhead.clear();
  }

  /** The first document this segment holds (0 but for a later part of a grown session). */
  readonly firstDoc: number;
  /** Documents numbered below this segment's end (its earlier parts' included). */
  get docCount(): number {
    return this.firstDoc + this.head.docCount;
  }
  get termCount(): number {
    return this.head.termCount;
  }
  /** The summed length of this segment's own documents. */
  get totalLength(): number {
    return this.head.totalLength;
  }
  get averageLength(): number {
    return this.head.docCount === 0 ? 0 : this.head.totalLength / this.head.docCount;
  }
  docLength(doc: number): number {
    return this.lengths[doc - this.firstDoc] ?? 0;
  }

  /** The bytes of directory block `b` (read once). */
  private blockBytes(b: number): Buffer {
    const have = this.blocksRead.get(b);
    if (have !== undefined) return have;
    const start = this.starts[4 * b] as number;
    const end = b + 1 < this.blocks ? (this.starts[4 * (b + 1)] as number) : this.head.terms[1];
    if (end < start) throw new CorruptIndexError(`${this.path}: directory block ${String(b)} ends before it starts`);
    const buf = this.read(this.head.terms[0] + start, end - start);
    this.blocksRead.set(b, buf);
    return buf;
  }

  /**
   * Walks directory block `b`'s terms in key order, each rebuilt from its shared prefix into one scratch
   * buffer (`keyScratch`, no Buffer per term: a query reads a block of each session it opens), calling
   * `visit` with the term's bytes (`keyScratch[0, length)`) and its entry's fields; `visit` returns false
   * to stop. An entry is made (and known by id, `known`) only for the terms a visit keeps.
   */
  private walkBlock(b: number, visit: (length: number, id: number, df: number, at: number, bytes: number) => boolean): void {
    const buf = this.blockBytes(b);
    const c = new VarintCursor(buf);
    let length = 0;
    let at = this.head.postings[0] + (this.starts[4 * b + 1] as number);
    let count = 0;
    try {
      while (c.pos < buf.length) {
        length = nextKey(c, buf, length, count, "its block");
        const id = c.next();
        const df = c.next();
        const bytes = c.next();
        const here = at;
        at += bytes;
        count++;
        if (!visit(length, id, df, here, bytes)) return;
      }
    } catch (error) {
      if (error instanceof RangeError) throw new CorruptIndexError(`${this.path}: directory block ${String(b)}: ${error.message}`);
      throw error;
    }
  }

  /** The entry of a term a directory walk found, known by its id from then on (`postingListsOf`). */
  private known(id: number, df: number, at: number, bytes: number): Entry {
    const entry = { id, df, at, bytes };
    this.byId.set(id, entry);
    return entry;
  }

  /** The last block whose first term is ≤ `key`, or -1 when `key` sorts before every term. */
  private blockFor(key: Buffer): number {
    let lo = 0;
    let hi = this.blocks - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (compareBytes(this.meta, this.starts[4 * mid + 2] as number, this.starts[4 * mid + 3] as number, key, key.length) <= 0) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found;
  }

  private entry(term: string): Entry | null {
    const have = this.byTerm.get(term);
    if (have !== undefined) return have;
    const key = Buffer.from(term, "utf8");
    const b = this.blockFor(key);
    let entry: Entry | null = null;
    // Terms sorted by their bytes: the walk stops at the term or at the first one past it.
    if (b >= 0)
      this.walkBlock(b, (length, id, df, at, bytes) => {
        const c = compareBytes(keyScratch, 0, length, key, key.length);
        if (c === 0) entry = this.known(id, df, at, bytes);
        return c < 0;
      });
    this.byTerm.set(term, entry);
    return entry;
  }

  /** The id of `term`, or -1 when no block holds it. */
  termId(term: string): number {
    return this.entry(term)?.id ?? -1;
  }

  /**
   * The ids of `keys` (terms' UTF-8 bytes) this segment holds, written into `ids` where it is still -1:
   * `order` lists the keys' indices in byte order, and the whole directory is read at once and walked
   * beside them (a growth looks up the thousands of terms its appended blocks hold; the directory's terms
   * are rebuilt in one scratch buffer and compared in place, no string or map per term).
   */
  termIds(keys: readonly Uint8Array[], order: ArrayLike<number>, ids: Int32Array): void {
    const [from, length] = this.head.terms;
    const buf = this.read(from, length);
    const c = new VarintCursor(buf);
    let have = 0;
    let k = 0;
    let q = 0;
    try {
      while (c.pos < buf.length && q < order.length) {
        // Each directory block's first term is written whole (its shared count is 0).
        if (k % SPARSE === 0) have = 0;
        have = nextKey(c, buf, have, k, "the directory");
        const id = c.next();
        c.next(); // df
        c.next(); // postings' byte length
        k++;
        // The keys before this term are not held; one equal to it takes its id.
        while (q < order.length) {
          const at = order[q] as number;
          const key = keys[at] as Uint8Array;
          const cmp = compareBytes(keyScratch, 0, have, key, key.length);
          if (cmp > 0) {
            q++;
            continue;
          }
          if (cmp === 0) {
            if ((ids[at] as number) < 0) ids[at] = id;
            q++;
          }
          break;
        }
      }
    } catch (error) {
      if (error instanceof RangeError) throw new CorruptIndexError(`${this.path}: directory: ${error.message}`);
      throw error;
    }
  }

  /** Ids of the terms longer than `prefix` that begin with it, the `limit` oldest (lowest ids). */
  termsWithPrefix(prefix: string, limit: number): number[] {
    if (prefix.length < 3) return [];
    const key = Buffer.from(prefix, "utf8");
    const ids: number[] = [];
    // The entries beginning with the prefix (itself included), in key order: their postings are one range.
    let from = Number.POSITIVE_INFINITY;
    let to = 0;
    const begun: Entry[] = [];
    for (let b = Math.max(0, this.blockFor(key)); b < this.blocks; b++) {
      let past = false;
      this.walkBlock(b, (length, id, df, at, bytes) => {
        // The term's first bytes (as many as the prefix has) against the prefix.
        const c = compareBytes(keyScratch, 0, Math.min(length, key.length), key, key.length);
        if (c < 0 || (c === 0 && length < key.length)) return true;
        if (c > 0) {
          past = true;
          return false;
        }
        const entry = this.known(id, df, at, bytes);
        begun.push(entry);
        from = Math.min(from, entry.at);
        to = Math.max(to, entry.at + entry.bytes);
        // Longer in bytes is longer in characters: the bytes past the prefix's (a whole UTF-8 string) are one character or more.
        if (length > key.length) ids.push(entry.id);
        return true;
      });
      if (past) break;
    }
    ids.sort((a, b) => a - b);
    if (ids.length > limit) ids.length = limit;
    // Ranking reads every one of them (and the prefix's own term) next: one read, unless past the limit (a scan's worth).
    if (begun.length >= 2 && begun.length <= limit && to - from <= AHEAD_BYTES) {
      const buf = this.read(from, to - from);
      for (const e of begun) if (e.df > 0 && !this.postingsRead.has(e.id)) this.postingsAhead.set(e.id, buf.subarray(e.at - from, e.at - from + e.bytes));
    }
    return ids;
  }

  /** The term's postings by id (ids looked up by `termId`/`termsWithPrefix` first), as one [doc, tf, …] list. */
  postingListsOf(id: number): PostingList[] {
    const entry = this.byId.get(id);
    if (entry === undefined || entry.df === 0) return [];
    const have = this.postingsRead.get(id);
    if (have !== undefined) return have;
    const ahead = this.postingsAhead.get(id);
    if (ahead !== undefined) this.postingsAhead.delete(id);
    const buf = ahead ?? this.read(entry.at, entry.bytes);
    const out = smallUint32(entry.df * 2);
    const c = new VarintCursor(buf);
    let doc = 0;
    const first = this.firstDoc;
    const end = this.docCount;
    try {
      for (let i = 0; i < entry.df; i++) {
        doc += c.next();
        const tf = c.next();
        if (doc < first || doc >= end) throw new RangeError(`posting of document ${String(doc)} outside documents ${String(first)}–${String(end - 1)}`);
        out[2 * i] = doc;
        out[2 * i + 1] = tf;
      }
    } catch (error) {
      if (error instanceof RangeError) throw new CorruptIndexError(`${this.path}: postings of term ${String(id)}: ${error.message}`);
      throw error;
    }
    const lists = [out];
    this.postingsRead.set(id, lists);
    return lists;
  }

  postingLists(term: string): PostingList[] {
    return this.postingListsOf(this.termId(term));
  }
}
