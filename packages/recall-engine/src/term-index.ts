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

/** Frozen postings in CSR form: term t's [doc, tf, …] pairs are postings[offsets[t] .. offsets[t+1]). */
interface FrozenPostings {
  readonly offsets: Uint32Array;
  readonly postings: Uint32Array;
  readonly termCount: number;
}

const EMPTY: FrozenPostings = { offsets: new Uint32Array(1), postings: new Uint32Array(0), termCount: 0 };

function grow(a: Int32Array, size: number): Int32Array {
  const next = new Int32Array(size);
  next.set(a);
  return next;
}

export class TermIndex {
  private readonly ids: Map<string, number>;
  private readonly terms: string[];
  /** Postings from the bulk build or the cache: contiguous, never copied per term. */
  private base: FrozenPostings;
  /** Postings of documents added later (incremental update), per term. */
  private readonly tails: (number[] | undefined)[];
  private readonly lengths: number[];
  /** Last doc each term was seen in: a repeat in the same doc bumps its tf in place (no per-doc map). */
  private readonly lastDoc: number[];
  private totalLength: number;

  constructor(terms: string[] = [], base: FrozenPostings = EMPTY, lengths: number[] = []) {
    this.terms = terms;
    this.base = base;
    this.lengths = lengths;
    this.ids = new Map();
    for (let i = 0; i < terms.length; i++) this.ids.set(terms[i] as string, i);
    this.tails = [];
    this.lastDoc = new Array<number>(terms.length).fill(-1);
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

  /**
   * Adds documents `firstDoc`, `firstDoc + 1`, … (must continue `docCount`). Into an empty index they go
   * through the bulk path (flat occurrence arrays, then one counting sort into CSR); later ones per term.
   */
  addDocuments(firstDoc: number, texts: readonly string[]): void {
    if (firstDoc !== this.lengths.length) throw new RangeError(`documents must be added in order: expected #${String(this.lengths.length)}, got #${String(firstDoc)}`);
    if (this.lengths.length === 0 && this.terms.length === 0) {
      this.bulk(texts);
      return;
    }
    for (let k = 0; k < texts.length; k++) this.addDocument(firstDoc + k, texts[k] as string);
  }

  private bulk(texts: readonly string[]): void {
    const { ids, terms, lastDoc } = this;
    const slot: number[] = [];
    const df: number[] = [];
    let cap = 1 << 16;
    let occTerm: Int32Array = new Int32Array(cap);
    let occDoc: Int32Array = new Int32Array(cap);
    let occTf: Int32Array = new Int32Array(cap);
    let n = 0;
    let total = 0;
    for (let doc = 0; doc < texts.length; doc++) {
      const length = tokenize(texts[doc] as string, (term) => {
        let id = ids.get(term);
        if (id === undefined) {
          id = terms.length;
          ids.set(term, id);
          terms.push(term);
          lastDoc.push(-1);
          slot.push(0);
          df.push(0);
        } else if (lastDoc[id] === doc) {
          const at = slot[id] as number;
          occTf[at] = (occTf[at] as number) + 1;
          return;
        }
        if (n === cap) {
          cap *= 2;
          occTerm = grow(occTerm, cap);
          occDoc = grow(occDoc, cap);
          occTf = grow(occTf, cap);
        }
        occTerm[n] = id;
        occDoc[n] = doc;
        occTf[n] = 1;
        slot[id] = n;
        lastDoc[id] = doc;
        df[id] = (df[id] as number) + 1;
        n++;
      });
      this.lengths.push(length);
      total += length;
    }
    this.totalLength += total;
    const termCount = terms.length;
    const offsets = new Uint32Array(termCount + 1);
    for (let t = 0; t < termCount; t++) offsets[t + 1] = (offsets[t] as number) + 2 * (df[t] as number);
    const postings = new Uint32Array(offsets[termCount] as number);
    const fill = offsets.slice(0, termCount);
    // Occurrences are in doc order, so each term's pairs come out sorted by doc.
    for (let i = 0; i < n; i++) {
      const t = occTerm[i] as number;
      const p = fill[t] as number;
      postings[p] = occDoc[i] as number;
      postings[p + 1] = occTf[i] as number;
      fill[t] = p + 2;
    }
    this.base = { offsets, postings, termCount };
  }

  /** Adds the next document; `doc` must be `docCount` (documents arrive in `#N` order). */
  addDocument(doc: number, text: string): void {
    if (doc !== this.lengths.length) throw new RangeError(`documents must be added in order: expected #${String(this.lengths.length)}, got #${String(doc)}`);
    const { ids, terms, tails, lastDoc } = this;
    const length = tokenize(text, (term) => {
      let id = ids.get(term);
      if (id === undefined) {
        id = terms.length;
        ids.set(term, id);
        terms.push(term);
        lastDoc.push(-1);
      }
      let tail = tails[id];
      if (lastDoc[id] === doc && tail !== undefined) {
        tail[tail.length - 1] = (tail[tail.length - 1] as number) + 1;
        return;
      }
      if (tail === undefined) {
        tail = [];
        tails[id] = tail;
      }
      tail.push(doc, 1);
      lastDoc[id] = doc;
    });
    this.lengths.push(length);
    this.totalLength += length;
  }

  /** The term's postings as up to two interleaved [doc, tf, …] lists, in doc order. */
  postingLists(term: string): PostingList[] {
    const id = this.ids.get(term);
    if (id === undefined) return [];
    const out: PostingList[] = [];
    if (id < this.base.termCount) {
      const a = this.base.offsets[id] as number;
      const b = this.base.offsets[id + 1] as number;
      if (b > a) out.push(this.base.postings.subarray(a, b));
    }
    const tail = this.tails[id];
    if (tail !== undefined && tail.length > 0) out.push(tail);
    return out;
  }

  /** Interleaved [doc, tf, …] for a term (copied into one list when it has two parts), or undefined. */
  postings(term: string): PostingList | undefined {
    const lists = this.postingLists(term);
    if (lists.length === 0) return undefined;
    if (lists.length === 1) return lists[0];
    return [...Array.from(lists[0] as PostingList), ...Array.from(lists[1] as PostingList)];
  }

  documentFrequency(term: string): number {
    let n = 0;
    for (const list of this.postingLists(term)) n += list.length / 2;
    return n;
  }

  /** Binary form: magic, meta JSON, terms, doc lengths, offsets, postings, sha256 trailer. */
  serialize(meta: unknown): Buffer {
    const metaBytes = Buffer.from(JSON.stringify(meta), "utf8");
    const termBytes = Buffer.from(this.terms.join("\n"), "utf8");
    const termCount = this.terms.length;
    let postingCount = this.base.postings.length;
    for (const tail of this.tails) if (tail !== undefined) postingCount += tail.length;
    const pad = (n: number): number => (4 - (n % 4)) % 4;
    const headLength = MAGIC.length + 16 + metaBytes.length + termBytes.length;
    const headPad = pad(headLength);
    const docCount = this.lengths.length;
    const numbers = new Uint32Array(docCount + termCount + 1 + postingCount);
    numbers.set(this.lengths, 0);
    const offsetsAt = docCount;
    const postingsAt = docCount + termCount + 1;
    let offset = 0;
    for (let t = 0; t < termCount; t++) {
      numbers[offsetsAt + t] = offset;
      if (t < this.base.termCount) {
        const a = this.base.offsets[t] as number;
        const b = this.base.offsets[t + 1] as number;
        numbers.set(this.base.postings.subarray(a, b), postingsAt + offset);
        offset += b - a;
      }
      const tail = this.tails[t];
      if (tail !== undefined) {
        numbers.set(tail, postingsAt + offset);
        offset += tail.length;
      }
    }
    numbers[offsetsAt + termCount] = offset;
    const counts = Buffer.alloc(16);
    counts.writeUInt32LE(metaBytes.length, 0);
    counts.writeUInt32LE(termBytes.length, 4);
    counts.writeUInt32LE(docCount, 8);
    counts.writeUInt32LE(termCount, 12);
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
    const postings = numbers.subarray(docCount + termCount + 1);
    const total = offsets[termCount] ?? 0;
    if (total !== postings.length || offsets[0] !== 0) throw new CorruptIndexError("postings length mismatch");
    for (let t = 0; t < termCount; t++) {
      const a = offsets[t] as number;
      const b = offsets[t + 1] as number;
      if (b < a || (b - a) % 2 !== 0) throw new CorruptIndexError(`bad offsets for term ${String(t)}`);
    }
    return new TermIndex(terms, { offsets, postings, termCount }, lengths);
  }
}
