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

/** Segments kept apart before they are merged (each costs a lookup per query term). */
const MAX_SEGMENTS = 8;

const EMPTY: FrozenPostings = { offsets: new Uint32Array(1), postings: new Uint32Array(0), termCount: 0 };

function grow(a: Int32Array, size: number): Int32Array {
  const next = new Int32Array(size);
  next.set(a);
  return next;
}

export class TermIndex {
  private readonly ids: Map<string, number>;
  private readonly terms: string[];
  /**
   * Postings in CSR segments, each covering a later run of documents (the build or cache first, then
   * one per incremental update); merged into one when there are too many. Never copied per term.
   */
  private segments: FrozenPostings[];
  private readonly lengths: number[];
  /** Last doc each term was seen in: a repeat in the same doc bumps its tf in place (no per-doc map). */
  private readonly lastDoc: number[];
  private totalLength: number;

  constructor(terms: string[] = [], base: FrozenPostings = EMPTY, lengths: number[] = []) {
    this.terms = terms;
    this.segments = base.termCount === 0 ? [] : [base];
    this.lengths = lengths;
    this.ids = new Map();
    for (let i = 0; i < terms.length; i++) this.ids.set(terms[i] as string, i);
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
   * Adds documents `firstDoc`, `firstDoc + 1`, … (must continue `docCount`) as one new CSR segment:
   * flat occurrence arrays, then one counting sort. Many small segments are merged into one.
   */
  addDocuments(firstDoc: number, texts: readonly string[]): void {
    if (firstDoc !== this.lengths.length) throw new RangeError(`documents must be added in order: expected #${String(this.lengths.length)}, got #${String(firstDoc)}`);
    if (texts.length === 0) return;
    this.segments.push(this.segment(firstDoc, texts));
    if (this.segments.length > MAX_SEGMENTS) this.segments = [this.merged()];
  }

  /** Adds the next document; `doc` must be `docCount` (documents arrive in `#N` order). */
  addDocument(doc: number, text: string): void {
    this.addDocuments(doc, [text]);
  }

  private segment(firstDoc: number, texts: readonly string[]): FrozenPostings {
    const { ids, terms, lastDoc } = this;
    // Per-term scratch, indexed by term id (grown as new terms appear).
    let slot: Int32Array = new Int32Array(terms.length + 4096);
    let df: Int32Array = new Int32Array(terms.length + 4096);
    let cap = 1 << 12;
    let occTerm: Int32Array = new Int32Array(cap);
    let occDoc: Int32Array = new Int32Array(cap);
    let occTf: Int32Array = new Int32Array(cap);
    let n = 0;
    let total = 0;
    for (let k = 0; k < texts.length; k++) {
      const doc = firstDoc + k;
      const length = tokenize(texts[k] as string, (term) => {
        let id = ids.get(term);
        if (id === undefined) {
          id = terms.length;
          ids.set(term, id);
          terms.push(term);
          lastDoc.push(-1);
          if (id >= slot.length) {
            slot = grow(slot, slot.length * 2);
            df = grow(df, df.length * 2);
          }
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
    return { offsets, postings, termCount };
  }

  /** All segments as one (term order, then doc order within a term). */
  private merged(): FrozenPostings {
    const termCount = this.terms.length;
    const offsets = new Uint32Array(termCount + 1);
    for (const seg of this.segments) {
      for (let t = 0; t < seg.termCount; t++) offsets[t + 1] = (offsets[t + 1] as number) + ((seg.offsets[t + 1] as number) - (seg.offsets[t] as number));
    }
    for (let t = 0; t < termCount; t++) offsets[t + 1] = (offsets[t + 1] as number) + (offsets[t] as number);
    const postings = new Uint32Array(offsets[termCount] as number);
    const fill = offsets.slice(0, termCount);
    for (const seg of this.segments) {
      for (let t = 0; t < seg.termCount; t++) {
        const a = seg.offsets[t] as number;
        const b = seg.offsets[t + 1] as number;
        if (b === a) continue;
        postings.set(seg.postings.subarray(a, b), fill[t] as number);
        fill[t] = (fill[t] as number) + (b - a);
      }
    }
    return { offsets, postings, termCount };
  }

  /** The term's postings as interleaved [doc, tf, …] lists (one per segment holding it), in doc order. */
  postingLists(term: string): PostingList[] {
    const id = this.ids.get(term);
    if (id === undefined) return [];
    const out: PostingList[] = [];
    for (const seg of this.segments) {
      if (id >= seg.termCount) continue;
      const a = seg.offsets[id] as number;
      const b = seg.offsets[id + 1] as number;
      if (b > a) out.push(seg.postings.subarray(a, b));
    }
    return out;
  }

  /** Interleaved [doc, tf, …] for a term (copied into one list when it has two parts), or undefined. */
  postings(term: string): PostingList | undefined {
    const lists = this.postingLists(term);
    if (lists.length === 0) return undefined;
    if (lists.length === 1) return lists[0];
    return lists.flatMap((list) => Array.from(list));
  }

  documentFrequency(term: string): number {
    let n = 0;
    for (const list of this.postingLists(term)) n += list.length / 2;
    return n;
  }

  /** Binary form: magic, meta JSON, terms, doc lengths, offsets, postings, sha256 trailer. */
  serialize(meta: unknown): Buffer {
    const all = this.segments.length === 1 && (this.segments[0] as FrozenPostings).termCount === this.terms.length ? (this.segments[0] as FrozenPostings) : this.merged();
    const metaBytes = Buffer.from(JSON.stringify(meta), "utf8");
    const termBytes = Buffer.from(this.terms.join("\n"), "utf8");
    const termCount = this.terms.length;
    const headLength = MAGIC.length + 16 + metaBytes.length + termBytes.length;
    const headPad = (4 - (headLength % 4)) % 4;
    const docCount = this.lengths.length;
    const numbers = new Uint32Array(docCount + termCount + 1 + all.postings.length);
    numbers.set(this.lengths, 0);
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
