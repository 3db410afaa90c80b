// The binary forms of a term index: the whole index (a cache file) and the tail records appended to a
// cache's tail log after it. INDEX_FORMAT is the one version number: it is in both magics and in the
// cache key, so a cache written by another format is refused and rebuilt.
import { createHash } from "node:crypto";
import { CorruptIndexError } from "./errors.js";
import { PackedTerms } from "./packed-terms.js";
import type { FrozenPostings } from "./segments.js";

/**
 * 3: compounds also index every joiner-separated piece.
 * 4: pieces of runs over 128 characters, CJK bigrams, name/number parts (`sha256` → sha, 256).
 * 5: the same index, its postings checked per page (a sha256 each, listed in the head) and read by
 *    offset, so a search reads only its terms' pages (paged-postings.ts).
 */
export const INDEX_FORMAT = 5;

const MAGIC = Buffer.from(`CFRECALL${String(INDEX_FORMAT)}\n`, "latin1");
const TAIL_MAGIC = Buffer.from(`CFRTAIL${String(INDEX_FORMAT)}`, "latin1");

/** One record of a cache's tail log, checked but not yet applied (see `TermIndex.readTail`). */
export interface TailRecord {
  /** The cache key of the ledger as it was after this record. */
  meta: unknown;
  firstDoc: number;
  newDocs: number;
  termsBefore: number;
  newTerms: number;
  segTerms: number;
  postingsLength: number;
  terms: string[];
  numbers: Uint32Array;
}

/**
 * The postings of a cache file are checked page by page: the head lists a sha256 per page of this many
 * bytes, so a search reads and checks only the pages its terms' postings lie on (paged-postings.ts). Most
 * terms hold a pair or two: a small page keeps what a lookup hashes small (a query can ask for hundreds
 * of terms), at 2 bytes of digest per 1 KiB of postings in the head.
 */
export const PAGE_BYTES = 16 * 1024;

/** The fixed counts after the magic: meta, terms (bytes), documents, terms, postings (words), page size. */
const COUNTS = 24;

/**
 * A cache file's bytes in the order they are written, as views of what the index holds (nothing copied
 * but the small head): the whole postings never lie in a second buffer, which on a 1 GB session was three
 * copies of ~350 MB (the numbers, the body, the body with its trailer). `chain`: the trailer, what tail
 * records chain to.
 */
export interface IndexBytes {
  readonly chunks: readonly Uint8Array[];
  readonly byteLength: number;
  readonly chain: Buffer;
}

/**
 * The page digests of a cache file's postings (a sha256 per PAGE_BYTES, and one of them all), taken as
 * the postings' bytes go by: from the whole section at once (a build in memory) or piece by piece (a
 * streamed build, spilled-index.ts), the same digests either way.
 */
export class PostingsDigest {
  private readonly all = createHash("sha256");
  private page = createHash("sha256");
  private inPage = 0;
  private readonly pages: Buffer[] = [];
  bytes = 0;

  update(bytes: Uint8Array): void {
    let at = 0;
    while (at < bytes.length) {
      const take = Math.min(PAGE_BYTES - this.inPage, bytes.length - at);
      this.page.update(bytes.subarray(at, at + take));
      this.inPage += take;
      at += take;
      if (this.inPage === PAGE_BYTES) this.endPage();
    }
    this.all.update(bytes);
    this.bytes += bytes.length;
  }

  private endPage(): void {
    this.pages.push(this.page.digest());
    this.page = createHash("sha256");
    this.inPage = 0;
  }

  /** The page digests back to back, and the digest of all the postings. */
  finish(): { readonly digests: Buffer; readonly allDigest: Buffer } {
    if (this.inPage > 0) this.endPage();
    return { digests: Buffer.concat(this.pages), allDigest: this.all.digest() };
  }
}

/** What a cache file's head says of its postings (held in memory or streamed from a file). */
export interface PostingsSummary {
  readonly offsets: Uint32Array;
  /** Words of postings. */
  readonly words: number;
  readonly digests: Buffer;
  readonly allDigest: Buffer;
}

/**
 * A cache file's head (everything before the postings) and its trailer (`chain`: the head's sha256), the
 * one home of the head's layout: what `encodeIndexParts` writes before the postings it holds, and what a
 * streamed build writes before the postings it merged on disk.
 */
export function encodeIndexHead(meta: unknown, terms: readonly string[], lengths: readonly number[] | Uint32Array, postings: PostingsSummary): { readonly head: readonly Buffer[]; readonly byteLength: number; readonly chain: Buffer } {
  const metaBytes = Buffer.from(JSON.stringify(meta), "utf8");
  const termBytes = Buffer.from(terms.join("\n"), "utf8");
  const termCount = terms.length;
  const headLength = MAGIC.length + COUNTS + metaBytes.length + termBytes.length;
  const headPad = (4 - (headLength % 4)) % 4;
  const docCount = lengths.length;
  const counts = Buffer.alloc(COUNTS);
  counts.writeUInt32LE(metaBytes.length, 0);
  counts.writeUInt32LE(termBytes.length, 4);
  counts.writeUInt32LE(docCount, 8);
  counts.writeUInt32LE(termCount, 12);
  counts.writeUInt32LE(postings.words, 16);
  counts.writeUInt32LE(PAGE_BYTES, 20);
  const lengthWords = lengths instanceof Uint32Array ? lengths : Uint32Array.from(lengths);
  const head = [
    MAGIC,
    counts,
    metaBytes,
    termBytes,
    Buffer.alloc(headPad),
    Buffer.from(lengthWords.buffer, lengthWords.byteOffset, lengthWords.byteLength),
    Buffer.from(postings.offsets.buffer, postings.offsets.byteOffset, postings.offsets.byteLength),
    postings.digests,
    postings.allDigest,
  ];
  const hash = createHash("sha256");
  let byteLength = 0;
  for (const part of head) {
    hash.update(part);
    byteLength += part.length;
  }
  return { head, byteLength, chain: hash.digest() };
}

/**
 * Binary form: magic, counts, meta JSON, terms ("\n"-joined), padding to 4, doc lengths, term offsets,
 * one sha256 per page of postings, the sha256 of all the postings (the head ends here: what a reader that
 * holds them whole checks, in one pass), the postings, and the sha256 of the head (the trailer: the
 * digests in it stand for the postings). Numbers are uint32, little-endian.
 */
export function encodeIndexParts(meta: unknown, terms: readonly string[], lengths: readonly number[], all: FrozenPostings): IndexBytes {
  const postings = all.postings;
  const postingBytes = Buffer.from(postings.buffer, postings.byteOffset, postings.byteLength);
  const digest = new PostingsDigest();
  digest.update(postingBytes);
  const { head, byteLength, chain } = encodeIndexHead(meta, terms, lengths, { offsets: all.offsets, words: postings.length, ...digest.finish() });
  return { chunks: [...head, postingBytes, chain], byteLength: byteLength + postingBytes.length + chain.length, chain };
}

/** `encodeIndexParts` as one buffer (tests, small indexes). */
export function encodeIndex(meta: unknown, terms: readonly string[], lengths: readonly number[], all: FrozenPostings): Buffer {
  const parts = encodeIndexParts(meta, terms, lengths, all);
  return Buffer.concat(parts.chunks, parts.byteLength);
}

/**
 * A tail record's bytes: the documents and terms added after the first `savedDocs` / `savedTerms`
 * (their lengths and texts), their postings as one sparse segment, `meta` (the cache key after it),
 * chained to `chain` (the base file's digest) by its sha256.
 */
export function encodeTail(meta: unknown, chain: Buffer, terms: readonly string[], lengths: readonly number[], savedDocs: number, savedTerms: number, seg: FrozenPostings): Buffer {
  const ids = seg.termIds ?? new Uint32Array(0);
  const metaBytes = Buffer.from(JSON.stringify(meta), "utf8");
  const termBytes = Buffer.from(terms.slice(savedTerms).join("\n"), "utf8");
  const newDocs = lengths.length - savedDocs;
  const counts = Buffer.alloc(32);
  counts.writeUInt32LE(metaBytes.length, 0);
  counts.writeUInt32LE(termBytes.length, 4);
  counts.writeUInt32LE(savedDocs, 8);
  counts.writeUInt32LE(newDocs, 12);
  counts.writeUInt32LE(savedTerms, 16);
  counts.writeUInt32LE(terms.length - savedTerms, 20);
  counts.writeUInt32LE(ids.length, 24);
  counts.writeUInt32LE(seg.postings.length, 28);
  const headLength = TAIL_MAGIC.length + 32 + metaBytes.length + termBytes.length;
  const headPad = (4 - (headLength % 4)) % 4;
  const numbers = new Uint32Array(newDocs + ids.length + ids.length + 1 + seg.postings.length);
  numbers.set(lengths.slice(savedDocs), 0);
  numbers.set(ids, newDocs);
  numbers.set(seg.offsets, newDocs + ids.length);
  numbers.set(seg.postings, newDocs + 2 * ids.length + 1);
  const body = Buffer.concat([TAIL_MAGIC, counts, metaBytes, termBytes, Buffer.alloc(headPad), Buffer.from(numbers.buffer, numbers.byteOffset, numbers.byteLength)]);
  const digest = createHash("sha256").update(chain).update(body).digest();
  const length = Buffer.alloc(4);
  length.writeUInt32LE(body.length + 32, 0);
  return Buffer.concat([length, body, digest]);
}

/**
 * Reads the tail records in `log` chained to `chain`: each one's sha256 and its place (it must
 * continue the documents and terms before it). Stops at the first that fails; `bytes` is how far
 * the good records reach. Nothing is applied: `applyTail` does that once the caller trusts them.
 */
export function decodeTail(log: Buffer, chain: Buffer): { records: TailRecord[]; bytes: number; problem: string | null } {
  const records: TailRecord[] = [];
  let at = 0;
  while (at < log.length) {
    if (at + 4 > log.length) return { records, bytes: at, problem: "torn record length" };
    const size = log.readUInt32LE(at);
    const end = at + 4 + size;
    if (size < TAIL_MAGIC.length + 32 + 32 || end > log.length) return { records, bytes: at, problem: "torn record" };
    const body = log.subarray(at + 4, end - 32);
    const digest = createHash("sha256").update(chain).update(body).digest();
    if (!digest.equals(log.subarray(end - 32, end)) || !body.subarray(0, TAIL_MAGIC.length).equals(TAIL_MAGIC)) return { records, bytes: at, problem: "record checksum mismatch" };
    const h = TAIL_MAGIC.length;
    const metaLength = body.readUInt32LE(h);
    const termLength = body.readUInt32LE(h + 4);
    const record: TailRecord = {
      meta: null,
      firstDoc: body.readUInt32LE(h + 8),
      newDocs: body.readUInt32LE(h + 12),
      termsBefore: body.readUInt32LE(h + 16),
      newTerms: body.readUInt32LE(h + 20),
      segTerms: body.readUInt32LE(h + 24),
      postingsLength: body.readUInt32LE(h + 28),
      terms: [],
      numbers: new Uint32Array(0),
    };
    const metaStart = h + 32;
    const termStart = metaStart + metaLength;
    const headLength = termStart + termLength;
    const numStart = headLength + ((4 - (headLength % 4)) % 4);
    const wanted = record.newDocs + 2 * record.segTerms + 1 + record.postingsLength;
    if (numStart + wanted * 4 !== body.length) return { records, bytes: at, problem: "record section lengths" };
    const previous = records[records.length - 1];
    if (previous !== undefined && (record.firstDoc !== previous.firstDoc + previous.newDocs || record.termsBefore !== previous.termsBefore + previous.newTerms)) {
      return { records, bytes: at, problem: "record does not continue the one before" };
    }
    try {
      record.meta = JSON.parse(body.toString("utf8", metaStart, termStart)) as unknown;
    } catch {
      return { records, bytes: at, problem: "record meta is not JSON" };
    }
    record.terms = record.newTerms === 0 ? [] : body.toString("utf8", termStart, headLength).split("\n");
    if (record.terms.length !== record.newTerms) return { records, bytes: at, problem: "record term count" };
    const numbers = new Uint32Array(wanted);
    new Uint8Array(numbers.buffer).set(body.subarray(numStart));
    record.numbers = numbers;
    records.push(record);
    at = end;
  }
  return { records, bytes: at, problem: null };
}

/** Where a cache file's bytes come from: a buffer, or a file read by offset (paged-postings.ts). */
export interface ByteSource {
  readonly size: number;
  /** `length` bytes at `position` (exactly: fewer is a CorruptIndexError). */
  read(position: number, length: number): Buffer;
  /** `out.length` bytes at `position` read into `out` (as `read`, into a buffer the caller holds). */
  readInto?(out: Buffer, position: number): void;
}

/** The head of a cache file: its counts and where its sections lie. */
interface HeadLayout {
  readonly metaLength: number;
  readonly termLength: number;
  readonly docCount: number;
  readonly termCount: number;
  readonly postingWords: number;
  readonly pageBytes: number;
  readonly headLength: number;
}

function layoutOf(source: ByteSource): HeadLayout {
  if (source.size < MAGIC.length + COUNTS + 32) throw new CorruptIndexError("bad magic");
  const fixed = source.read(0, MAGIC.length + COUNTS);
  if (!fixed.subarray(0, MAGIC.length).equals(MAGIC)) throw new CorruptIndexError("bad magic");
  const h = MAGIC.length;
  const metaLength = fixed.readUInt32LE(h);
  const termLength = fixed.readUInt32LE(h + 4);
  const docCount = fixed.readUInt32LE(h + 8);
  const termCount = fixed.readUInt32LE(h + 12);
  const postingWords = fixed.readUInt32LE(h + 16);
  const pageBytes = fixed.readUInt32LE(h + 20);
  if (pageBytes === 0 || pageBytes % 4 !== 0) throw new CorruptIndexError("bad page size");
  const textEnd = h + COUNTS + metaLength + termLength;
  const numStart = textEnd + ((4 - (textEnd % 4)) % 4);
  const headLength = numStart + 4 * (docCount + termCount + 1) + 32 * Math.ceil((4 * postingWords) / pageBytes) + 32;
  if (headLength + 4 * postingWords + 32 !== source.size) throw new CorruptIndexError("bad section lengths");
  return { metaLength, termLength, docCount, termCount, postingWords, pageBytes, headLength };
}

/** Reads the meta JSON only (cheap key check before trusting the rest). */
export function decodeMeta(source: ByteSource): unknown {
  const { metaLength } = layoutOf(source);
  const start = MAGIC.length + COUNTS;
  try {
    return JSON.parse(source.read(start, metaLength).toString("utf8")) as unknown;
  } catch (error) {
    throw new CorruptIndexError(`meta is not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
}

/** The sections of a checked head, and where the postings lie (checked page by page when read). */
export interface DecodedHead {
  readonly terms: PackedTerms;
  readonly lengths: number[];
  readonly offsets: Uint32Array;
  readonly termCount: number;
  /** Byte position of the postings in the source. */
  readonly postingsAt: number;
  readonly postingWords: number;
  readonly pageBytes: number;
  /** sha256 per page of postings. */
  readonly digests: Buffer;
  /** sha256 of all the postings. */
  readonly allDigest: Buffer;
  /** The trailer (the head's sha256): what tail records chain to. */
  readonly chain: Buffer;
}

/**
 * The head of an index's bytes (terms, document lengths, term offsets, page digests), read and checked
 * (its sha256, section lengths, offsets); the postings are not read here (see paged-postings.ts).
 * `eachOffset` false: the offsets are checked per term as its postings are read (`checkTermRange`), not
 * all ~40,000 of a 4 MB session's here: an index that serves one search (TermIndex.openSource's `asRead`).
 */
export function decodeHead(source: ByteSource, eachOffset = true): DecodedHead {
  const layout = layoutOf(source);
  const { metaLength, termLength, docCount, termCount, postingWords, pageBytes, headLength } = layout;
  // A buffer of its own (not a pooled slice), so the numbers lie 4-aligned in it and are read in place.
  const head = source.read(0, headLength);
  const chain = Buffer.from(source.read(source.size - 32, 32));
  if (!createHash("sha256").update(head).digest().equals(chain)) throw new CorruptIndexError("checksum mismatch");
  const termStart = MAGIC.length + COUNTS + metaLength;
  const textEnd = termStart + termLength;
  const numStart = textEnd + ((4 - (textEnd % 4)) % 4);
  // Kept joined (packed-terms.ts): split only when the whole list is needed.
  let terms: PackedTerms;
  try {
    terms = new PackedTerms(termCount === 0 ? "" : head.toString("utf8", termStart, textEnd), termCount);
  } catch {
    throw new CorruptIndexError("term count mismatch");
  }
  const words = docCount + termCount + 1;
  const at = head.byteOffset + numStart;
  let numbers: Uint32Array;
  if (at % 4 === 0) numbers = new Uint32Array(head.buffer, at, words);
  else {
    numbers = new Uint32Array(words);
    new Uint8Array(numbers.buffer).set(head.subarray(numStart, numStart + 4 * words));
  }
  // A plain loop: Array.from walks a typed array through its iterator, slow in code this cold.
  const lengths = new Array<number>(docCount);
  for (let d = 0; d < docCount; d++) lengths[d] = numbers[d] as number;
  const offsets = numbers.subarray(docCount, docCount + termCount + 1);
  if ((offsets[termCount] ?? 0) !== postingWords || offsets[0] !== 0) throw new CorruptIndexError("postings length mismatch");
  // Each offset read once (the previous one carried over; offsets[0] is 0, checked above).
  if (eachOffset) {
    for (let t = 0, a = 0; t < termCount; t++) {
      const b = offsets[t + 1] as number;
      if (b < a || ((b - a) & 1) !== 0) throw new CorruptIndexError(`bad offsets for term ${String(t)}`);
      a = b;
    }
  }
  const digests = head.subarray(numStart + 4 * words, headLength - 32);
  const allDigest = head.subarray(headLength - 32, headLength);
  return { terms, lengths, offsets, termCount, postingsAt: headLength, postingWords, pageBytes, digests, allDigest, chain };
}
