// The dense postings of a cache file, read by offset: a search reads the pages its terms' postings lie
// on (each checked against the sha256 the file's head lists for it), not the whole section, so searching
// the cache of a 1 GB session holds its head (terms, lengths, offsets) and a few pages, not ~350 MB of
// postings. Read whole only where an index is rewritten (a merge, a save): see `postings`.
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { createHash } from "node:crypto";
import { CorruptIndexError } from "./errors.js";
import type { ByteSource, DecodedHead } from "./term-codec.js";
import type { FrozenPostings } from "./segments.js";

/** A buffer as a byte source. */
export function bufferSource(buf: Buffer): ByteSource {
  return {
    size: buf.length,
    read(position, length) {
      if (position < 0 || position + length > buf.length) throw new CorruptIndexError("read past the end");
      return buf.subarray(position, position + length);
    },
  };
}

/** Files a cache was opened from, closed when the index reading them is collected (or `close`d). */
const openFiles = new FinalizationRegistry<number>((fd) => {
  try {
    closeSync(fd);
  } catch {
    // already closed
  }
});

/**
 * A file as a byte source, read by offset through a descriptor kept open: a cache replaced since (by a
 * rename, as every cache write is) is still read as the bytes it was opened with.
 */
export class FileSource implements ByteSource {
  readonly size: number;
  private fd: number | null;

  constructor(path: string) {
    const fd = openSync(path, "r");
    try {
      this.size = fstatSync(fd).size;
    } catch (error) {
      closeSync(fd);
      throw error;
    }
    this.fd = fd;
    openFiles.register(this, fd, this);
  }

  read(position: number, length: number): Buffer {
    if (this.fd === null) throw new RangeError("the cache file was closed");
    if (position < 0 || position + length > this.size) throw new CorruptIndexError("read past the end");
    // Its own buffer (not from the pool): the numbers in it are then 4-aligned at a 4-aligned position.
    const out = Buffer.allocUnsafeSlow(length);
    this.readInto(out, position);
    return out;
  }

  readInto(out: Buffer, position: number): void {
    if (this.fd === null) throw new RangeError("the cache file was closed");
    if (position < 0 || position + out.length > this.size) throw new CorruptIndexError("read past the end");
    let got = 0;
    while (got < out.length) {
      const n = readSync(this.fd, out, got, out.length - got, position + got);
      if (n === 0) throw new CorruptIndexError("cache file ends early");
      got += n;
    }
  }

  close(): void {
    if (this.fd === null) return;
    openFiles.unregister(this);
    closeSync(this.fd);
    this.fd = null;
  }
}

/**
 * Postings a load reads whole and keeps (each page checked): below this, holding them costs less than the
 * reads and checks of a search by offset (a 100 MB session's are ~35 MB), and warm searches stay in
 * memory; above it (a 1 GB session's are ~350 MB) they are read by offset.
 */
export const HOLD_BYTES = 64 * 1024 * 1024;

/** Pages checked per read while the whole section is checked (16 MiB at the default page size). */
const CHECK_BATCH = 1024;

/**
 * Dense postings (term t's [doc, tf, …] at words offsets[t]..offsets[t+1]) read from a cache file's
 * bytes page by page. `postings` reads them whole (what a merge or a save needs) and keeps them.
 */
export class PagedPostings implements FrozenPostings {
  readonly offsets: Uint32Array;
  readonly termCount: number;
  readonly termIds = null;
  private readonly source: ByteSource;
  private readonly at: number;
  private readonly words: number;
  private readonly pageBytes: number;
  private readonly digests: Buffer;
  private readonly allDigest: Buffer;
  private whole: Uint32Array | undefined;
  /** The section's bytes as read so far, page by page (`holdAsRead`), and which pages are read and checked. */
  private asRead: { readonly bytes: Buffer; readonly checked: Uint8Array } | undefined;

  constructor(source: ByteSource, head: DecodedHead) {
    this.source = source;
    this.offsets = head.offsets;
    this.termCount = head.termCount;
    this.at = head.postingsAt;
    this.words = head.postingWords;
    this.pageBytes = head.pageBytes;
    this.digests = head.digests;
    this.allDigest = head.allDigest;
  }

  /** Postings words held (the section's length). */
  get size(): number {
    return this.words;
  }

  /** Throws CorruptIndexError when page `p` of `bytes` (which begin at page `first`) is not the one the head lists. */
  private check(bytes: Buffer, first: number): void {
    const pages = Math.ceil(bytes.length / this.pageBytes);
    for (let k = 0; k < pages; k++) {
      const p = first + k;
      const digest = createHash("sha256").update(bytes.subarray(k * this.pageBytes, (k + 1) * this.pageBytes)).digest();
      if (!digest.equals(this.digests.subarray(p * 32, p * 32 + 32))) throw new CorruptIndexError(`checksum mismatch in postings page ${String(p)}`);
    }
  }

  /** The bytes of pages `first`..`last` (inclusive), checked. */
  private pages(first: number, last: number): Buffer {
    const start = first * this.pageBytes;
    const end = Math.min(4 * this.words, (last + 1) * this.pageBytes);
    const bytes = this.source.read(this.at + start, end - start);
    this.check(bytes, first);
    return bytes;
  }

  /**
   * Checks every page against its digest, a batch of pages at a time (bounded memory): what a cache load
   * does before it trusts the file, as when the whole file was hashed at once.
   */
  checkAll(): void {
    const pages = Math.ceil((4 * this.words) / this.pageBytes);
    for (let p = 0; p < pages; p += CHECK_BATCH) this.pages(p, Math.min(pages, p + CHECK_BATCH) - 1);
  }

  /**
   * Reads the whole section and keeps it, checked against the digest of all of it (one pass, not one per
   * page): what a load does instead of `checkAll` for a small index.
   */
  hold(): void {
    if (this.whole !== undefined) return;
    const bytes = this.source.read(this.at, 4 * this.words);
    if (!createHash("sha256").update(bytes).digest().equals(this.allDigest)) throw new CorruptIndexError("checksum mismatch in postings");
    if (bytes.byteOffset % 4 === 0) this.whole = new Uint32Array(bytes.buffer, bytes.byteOffset, this.words);
    else {
      const out = new Uint32Array(this.words);
      new Uint8Array(out.buffer).set(bytes);
      this.whole = out;
    }
  }

  /**
   * Holds the section as searches read it, instead of reading and checking it all at load (`hold`,
   * `checkAll`): each page is read into one buffer of the section's size (its memory untouched until then)
   * and checked against its digest the first time a slice reaches it, never again. What a load that
   * serves one search does: a word query over a 4 MB session's cache reads a page or two of its 1.5 MB of
   * postings (each byte it uses still checked), and a process's start is mostly such costs (reading,
   * hashing, and the memory they touch).
   */
  holdAsRead(): void {
    if (this.whole !== undefined || this.asRead !== undefined) return;
    this.asRead = { bytes: Buffer.allocUnsafeSlow(4 * this.words), checked: new Uint8Array(Math.ceil((4 * this.words) / this.pageBytes)) };
  }

  /** Pages `first`..`last` of the section held as read (`holdAsRead`), each run of unread ones read and checked. */
  private readAsHeld(held: { readonly bytes: Buffer; readonly checked: Uint8Array }, first: number, last: number): void {
    for (let p = first; p <= last; p++) {
      if (held.checked[p] === 1) continue;
      let end = p;
      while (end < last && held.checked[end + 1] !== 1) end++;
      // Read into the held buffer itself where the source can (a file), so no page is copied.
      const start = p * this.pageBytes;
      const into = held.bytes.subarray(start, Math.min(4 * this.words, (end + 1) * this.pageBytes));
      if (this.source.readInto === undefined) into.set(this.source.read(this.at + start, into.length));
      else this.source.readInto(into, this.at + start);
      this.check(into, p);
      held.checked.fill(1, p, end + 1);
      p = end;
    }
  }

  /** Words [a, b) of the postings, read from the pages they lie on (checked) unless held whole. */
  slice(a: number, b: number): Uint32Array {
    if (this.whole !== undefined) return this.whole.subarray(a, b);
    if (b <= a) return new Uint32Array(0);
    const first = Math.floor((4 * a) / this.pageBytes);
    const last = Math.floor((4 * b - 1) / this.pageBytes);
    const held = this.asRead;
    if (held !== undefined) {
      this.readAsHeld(held, first, last);
      // Its own buffer: 4-aligned from its start.
      return new Uint32Array(held.bytes.buffer, held.bytes.byteOffset + 4 * a, b - a);
    }
    const bytes = this.pages(first, last);
    const from = 4 * a - first * this.pageBytes;
    // `bytes` is a buffer of its own for a file, 4-aligned there; a buffer source's may lie anywhere.
    const at = bytes.byteOffset + from;
    if (at % 4 === 0) return new Uint32Array(bytes.buffer, at, b - a);
    const out = new Uint32Array(b - a);
    new Uint8Array(out.buffer).set(bytes.subarray(from, from + 4 * (b - a)));
    return out;
  }

  /** The whole section, read (checked) on first use and kept: what merging or saving the index needs. */
  get postings(): Uint32Array {
    this.whole ??= this.slice(0, this.words);
    return this.whole;
  }
}
