// The inverted index: term → postings [doc, tf, doc, tf, …] in doc order, plus document lengths.
// Append-only in doc order (block `#N` order), which is what makes incremental update cheap.
import { createHash } from "node:crypto";
import { tokenize } from "./tokenizer.js";

type PostingList = number[] | Uint32Array;

const MAGIC = Buffer.from("CFRECALL2\n", "latin1");

/** Why a serialized index was refused; the caller rebuilds. */
export class CorruptIndexError extends Error {
  readonly code = "CORRUPT_INDEX" as const;
  constructor(reason: string) {
    super(`recall index cache is corrupt: ${reason}`);
    this.name = "CorruptIndexError";
  }
}

export class TermIndex {
  private readonly ids: Map<string, number>;
  private readonly terms: string[];
  private readonly lists: PostingList[];
  private readonly lengths: number[];
  /** Last doc each term was seen in: a repeat in the same doc bumps its tf in place (no per-doc map). */
  private readonly lastDoc: number[];
  private totalLength: number;

  constructor(terms: string[] = [], lists: PostingList[] = [], lengths: number[] = []) {
    this.terms = terms;
    this.lists = lists;
    this.lengths = lengths;
    this.ids = new Map();
    this.lastDoc = new Array<number>(terms.length);
    for (let i = 0; i < terms.length; i++) {
      this.ids.set(terms[i] as string, i);
      const list = lists[i] as PostingList;
      this.lastDoc[i] = list.length >= 2 ? (list[list.length - 2] as number) : -1;
    }
    let total = 0;
    for (const l of lengths) total += l;
    this.totalLength = total;
  }

  get docCount(): number {
    return this.lengths.length;
  }
  get termCount(): number {
    return this.terms.length;
  }
  get averageLength(): number {
    return this.lengths.length === 0 ? 0 : this.totalLength / this.lengths.length;
  }
  docLength(doc: number): number {
    return this.lengths[doc] ?? 0;
  }

  /** Adds the next document; `doc` must be `docCount` (documents arrive in `#N` order). */
  addDocument(doc: number, text: string): void {
    if (doc !== this.lengths.length) throw new RangeError(`documents must be added in order: expected #${String(this.lengths.length)}, got #${String(doc)}`);
    const { ids, terms, lists, lastDoc } = this;
    const length = tokenize(text, (term) => {
      const id = ids.get(term);
      if (id === undefined) {
        ids.set(term, terms.length);
        terms.push(term);
        lists.push([doc, 1]);
        lastDoc.push(doc);
        return;
      }
      let list = lists[id] as PostingList;
      if (lastDoc[id] === doc) {
        // Appended for this doc already, so it is a plain array.
        list[list.length - 1] = (list[list.length - 1] as number) + 1;
        return;
      }
      if (!Array.isArray(list)) {
        // A list loaded from the cache is a read-only view; copy it once on first append.
        list = Array.from(list);
        lists[id] = list;
      }
      list.push(doc, 1);
      lastDoc[id] = doc;
    });
    this.lengths.push(length);
    this.totalLength += length;
  }

  /** Interleaved [doc, tf, …] for a term, or undefined. */
  postings(term: string): PostingList | undefined {
    const id = this.ids.get(term);
    return id === undefined ? undefined : this.lists[id];
  }

  documentFrequency(term: string): number {
    const list = this.postings(term);
    return list === undefined ? 0 : list.length / 2;
  }

  /** Binary form: magic, meta JSON, terms, doc lengths, offsets, postings, sha256 trailer. */
  serialize(meta: unknown): Buffer {
    const metaBytes = Buffer.from(JSON.stringify(meta), "utf8");
    const termBytes = Buffer.from(this.terms.join("\n"), "utf8");
    let postingCount = 0;
    for (const list of this.lists) postingCount += list.length;
    const pad = (n: number): number => (4 - (n % 4)) % 4;
    const headLength = MAGIC.length + 16 + metaBytes.length + termBytes.length;
    const headPad = pad(headLength);
    const numbers = new Uint32Array(this.lengths.length + this.terms.length + 1 + postingCount);
    numbers.set(this.lengths, 0);
    let at = this.lengths.length;
    let offset = 0;
    for (const list of this.lists) {
      numbers[at++] = offset;
      offset += list.length;
    }
    numbers[at++] = offset;
    for (const list of this.lists) {
      numbers.set(list, at);
      at += list.length;
    }
    const counts = Buffer.alloc(16);
    counts.writeUInt32LE(metaBytes.length, 0);
    counts.writeUInt32LE(termBytes.length, 4);
    counts.writeUInt32LE(this.lengths.length, 8);
    counts.writeUInt32LE(this.terms.length, 12);
    const body = Buffer.concat([MAGIC, counts, metaBytes, termBytes, Buffer.alloc(headPad), Buffer.from(numbers.buffer, numbers.byteOffset, numbers.byteLength)]);
    const digest = createHash("sha256").update(body).digest();
    return Buffer.concat([body, digest]);
  }

  /** Reads the meta JSON only (cheap key check before trusting the rest). */
  static readMeta(buf: Buffer): unknown {
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

  static deserialize(buf: Buffer): TermIndex {
    TermIndex.readMeta(buf);
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
    const terms = termCount === 0 ? [] : buf.toString("utf8", termStart, termStart + termLength).split("\n");
    if (terms.length !== termCount) throw new CorruptIndexError("term count mismatch");
    // Copy into an aligned buffer: Node may hand back a pooled Buffer at an odd offset.
    const numbers = new Uint32Array((body.length - numStart) / 4);
    new Uint8Array(numbers.buffer).set(body.subarray(numStart));
    if (numbers.length < docCount + termCount + 1) throw new CorruptIndexError("truncated numbers");
    const lengths = Array.from(numbers.subarray(0, docCount));
    const offsets = numbers.subarray(docCount, docCount + termCount + 1);
    const postingsStart = docCount + termCount + 1;
    const total = offsets[termCount] ?? 0;
    if (postingsStart + total !== numbers.length) throw new CorruptIndexError("postings length mismatch");
    const lists: PostingList[] = new Array<PostingList>(termCount);
    for (let t = 0; t < termCount; t++) {
      const a = offsets[t] ?? 0;
      const b = offsets[t + 1] ?? 0;
      if (b < a || b > total || (b - a) % 2 !== 0) throw new CorruptIndexError(`bad offsets for term ${String(t)}`);
      lists[t] = numbers.subarray(postingsStart + a, postingsStart + b);
    }
    return new TermIndex(terms, lists, lengths);
  }
}
