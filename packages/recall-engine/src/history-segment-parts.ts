// A grown session's segment read as one: its first part and the parts its growths appended, each a
// segment of its own (history-segment-reader.ts), answering ranking as the segment written whole would.
import { CorruptIndexError } from "./errors.js";
import { SegmentReader } from "./history-segment-reader.js";
import type { PostingList } from "./term-index.js";


/**
 * A grown session's segment: its first part (the blocks first indexed) and the parts its growths added,
 * each over the documents appended since the part before, a term keeping its id in every part that holds
 * it. Answers what ranking asks a term index as the one segment written whole would: a term's postings are
 * its parts' lists in document order; prefix expansions the oldest ids across the parts.
 */
export class SegmentParts {
  /** The document count and average length (the parts are fixed once open): ranking asks them per posting. */
  readonly docCount: number;
  readonly averageLength: number;
  /** The only part of a segment never grown (most of them): asked directly, no loop over parts. */
  private readonly only: SegmentReader | null;

  private constructor(private readonly parts: readonly SegmentReader[]) {
    const last = parts[parts.length - 1] as SegmentReader;
    this.docCount = last.docCount;
    let total = 0;
    for (let k = 0; k < parts.length; k++) total += (parts[k] as SegmentReader).totalLength;
    this.averageLength = this.docCount === 0 ? 0 : total / this.docCount;
    this.only = parts.length === 1 ? last : null;
  }

  /** Opens the parts at `paths`, in order; throws CorruptIndexError when one does not continue the one before. */
  static open(paths: readonly string[]): SegmentParts {
    const parts: SegmentReader[] = [];
    try {
      for (const path of paths) {
        const part = SegmentReader.open(path);
        parts.push(part);
        const before = parts[parts.length - 2];
        const docs = before?.docCount ?? 0;
        const terms = before?.termCount ?? 0;
        // A part written after another one's rewrite (a reader between two writers' files) does not continue it.
        if (part.firstDoc !== docs || part.termCount < terms) throw new CorruptIndexError(`${path}: begins at document ${String(part.firstDoc)}, the part before ends at ${String(docs)}`);
      }
    } catch (error) {
      // Each part opened holds its descriptor: a segment that cannot be read closes them all.
      for (const p of parts) p.close();
      throw error;
    }
    if (parts.length === 0) throw new RangeError("a segment has at least one part");
    return new SegmentParts(parts);
  }

  private get last(): SegmentReader {
    return this.parts[this.parts.length - 1] as SegmentReader;
  }
  get termCount(): number {
    return this.last.termCount;
  }
  docLength(doc: number): number {
    if (this.only !== null) return this.only.docLength(doc);
    for (let k = this.parts.length - 1; k >= 0; k--) {
      const p = this.parts[k] as SegmentReader;
      if (doc >= p.firstDoc) return p.docLength(doc);
    }
    return 0;
  }
  /** The id of `term` (looked up in every part, so each can then give its postings by id), or -1. */
  termId(term: string): number {
    if (this.only !== null) return this.only.termId(term);
    let id = -1;
    for (const p of this.parts) {
      const own = p.termId(term);
      if (id < 0) id = own;
    }
    return id;
  }
  /**
   * The ids of the terms `keys` (their UTF-8 bytes; -1 for those no part holds), `order` their indices in
   * byte order: each part's whole directory walked beside them (`SegmentReader.termIds`): a growth asks for thousands.
   */
  termIds(keys: readonly Uint8Array[], order: ArrayLike<number>): Int32Array {
    const ids = new Int32Array(keys.length).fill(-1);
    for (const p of this.parts) p.termIds(keys, order, ids);
    return ids;
  }
  termsWithPrefix(prefix: string, limit: number): number[] {
    if (this.parts.length === 1) return this.last.termsWithPrefix(prefix, limit);
    const ids = new Set<number>();
    for (const p of this.parts) for (const id of p.termsWithPrefix(prefix, limit)) ids.add(id);
    return [...ids].sort((a, b) => a - b).slice(0, limit);
  }
  postingListsOf(id: number): PostingList[] {
    // The part's own list (read-only to its callers, as every term index's lists are).
    if (this.only !== null) return this.only.postingListsOf(id);
    const out: PostingList[] = [];
    for (const p of this.parts) out.push(...p.postingListsOf(id));
    return out;
  }
  postingLists(term: string): PostingList[] {
    return this.postingListsOf(this.termId(term));
  }
  close(): void {
    for (const p of this.parts) p.close();
  }
}
