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
 */
export const INDEX_FORMAT = 4;

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

/** Binary form: magic, meta JSON, terms, doc lengths, offsets, postings, sha256 trailer. */
export function encodeIndex(meta: unknown, terms: readonly string[], lengths: readonly number[], all: FrozenPostings): Buffer {
  const metaBytes = Buffer.from(JSON.stringify(meta), "utf8");
  const termBytes = Buffer.from(terms.join("\n"), "utf8");
  const termCount = terms.length;
  const headLength = MAGIC.length + 16 + metaBytes.length + termBytes.length;
  const headPad = (4 - (headLength % 4)) % 4;
  const docCount = lengths.length;
  const numbers = new Uint32Array(docCount + termCount + 1 + all.postings.length);
  numbers.set(lengths, 0);
  numbers.set(all.offsets, docCount);
  numbers.set(all.postings, docCount + termCount + 1);
  const counts = Buffer.alloc(16);
  counts.writeUInt32LE(metaBytes.length, 0);
  counts.writeUInt32LE(termBytes.length, 4);
  counts.writeUInt32LE(docCount, 8);
  counts.writeUInt32LE(termCount, 12);
  const body = Buffer.concat([MAGIC, counts, metaBytes, termBytes, Buffer.alloc(headPad), Buffer.from(numbers.buffer, numbers.byteOffset, numbers.byteLength)]);
  const digest = createHash("sha256").update(body).digest();
  return Buffer.concat([body, digest]);
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

/** Reads the meta JSON only (cheap key check before trusting the rest). */
export function decodeMeta(buf: Buffer): unknown {
  if (buf.length < MAGIC.length + 16 + 32 || !buf.subarray(0, MAGIC.length).equals(MAGIC)) throw new CorruptIndexError("bad magic");
  const metaLength = buf.readUInt32LE(MAGIC.length);
  const start = MAGIC.length + 16;
  if (start + metaLength > buf.length - 32) throw new CorruptIndexError("meta length past end");
  try {
    return JSON.parse(buf.toString("utf8", start, start + metaLength)) as unknown;
  } catch (error) {
    throw new CorruptIndexError(`meta is not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
}

/** The terms, dense postings and document lengths of an index's bytes, checked (sha256, section lengths, offsets). */
export function decodeIndex(buf: Buffer): { terms: PackedTerms; base: FrozenPostings; lengths: number[] } {
  decodeMeta(buf);
  const body = buf.subarray(0, buf.length - 32);
  const digest = createHash("sha256").update(body).digest();
  if (!digest.equals(buf.subarray(buf.length - 32))) throw new CorruptIndexError("checksum mismatch");
  const metaLength = buf.readUInt32LE(MAGIC.length);
  const termLength = buf.readUInt32LE(MAGIC.length + 4);
  const docCount = buf.readUInt32LE(MAGIC.length + 8);
  const termCount = buf.readUInt32LE(MAGIC.length + 12);
  const termStart = MAGIC.length + 16 + metaLength;
  const headLength = termStart + termLength;
  const numStart = headLength + ((4 - (headLength % 4)) % 4);
  if (numStart > body.length || (body.length - numStart) % 4 !== 0) throw new CorruptIndexError("bad section lengths");
  // Kept joined (packed-terms.ts): split only when the whole list is needed.
  let terms: PackedTerms;
  try {
    terms = new PackedTerms(termCount === 0 ? "" : buf.toString("utf8", termStart, termStart + termLength), termCount);
  } catch {
    throw new CorruptIndexError("term count mismatch");
  }
  // Read in place when the numbers lie 4-aligned (a file read whole has its own buffer, and the format
  // pads the head to 4); copied into an aligned buffer otherwise (Node may hand back a pooled Buffer at an
  // odd offset). The index never writes its postings, and its caller (loadCachedIndex) reads `buf` fresh
  // and never writes to it either, so sharing the bytes is safe.
  const at = body.byteOffset + numStart;
  const count = (body.length - numStart) / 4;
  let numbers: Uint32Array;
  if (at % 4 === 0) numbers = new Uint32Array(body.buffer, at, count);
  else {
    numbers = new Uint32Array(count);
    new Uint8Array(numbers.buffer).set(body.subarray(numStart));
  }
  if (numbers.length < docCount + termCount + 1) throw new CorruptIndexError("truncated numbers");
  // A plain loop: Array.from walks a typed array through its iterator, slow in code this cold.
  const lengths = new Array<number>(docCount);
  for (let d = 0; d < docCount; d++) lengths[d] = numbers[d] as number;
  const offsets = numbers.subarray(docCount, docCount + termCount + 1);
  const postings = numbers.subarray(docCount + termCount + 1);
  const total = offsets[termCount] ?? 0;
  if (total !== postings.length || offsets[0] !== 0) throw new CorruptIndexError("postings length mismatch");
  for (let t = 0; t < termCount; t++) {
    const a = offsets[t] as number;
    const b = offsets[t + 1] as number;
    if (b < a || (b - a) % 2 !== 0) throw new CorruptIndexError(`bad offsets for term ${String(t)}`);
  }
  return { terms, base: { offsets, postings, termCount, termIds: null }, lengths };
}
