// The inverted index: term → postings [doc, tf, doc, tf, …] in doc order, plus document lengths.
// Append-only in doc order (block `#N` order), which is what makes incremental update cheap. Its parts:
// the term table (term-table.ts), building a segment (segment-build.ts), segments and their merge
// (segments.ts), the binary forms (term-codec.ts), prefix lookup (term-prefixes.ts).
import { SegmentBuilder } from "./segment-build.js";
import { EMPTY, type FrozenPostings, grow, MAX_SEGMENTS, mergeSegments, slotIn } from "./segments.js";
import { CorruptIndexError } from "./errors.js";
import { type ByteSource, decodeHead, decodeMeta, decodeTail, encodeIndex, encodeIndexParts, encodeTail, type IndexBytes, type TailRecord } from "./term-codec.js";
import { bufferSource, FileSource, HOLD_BYTES, PagedPostings } from "./paged-postings.js";
import { PackedTerms } from "./packed-terms.js";
import { RunTable } from "./run-table.js";
import { MIN_PREFIX, type PrefixLookup, TermPrefixes } from "./term-prefixes.js";
import { hasAsciiCapital, TermTable } from "./term-table.js";
import { termHash } from "./tokenizer.js";

export { CorruptIndexError, type TailRecord };

export type PostingList = number[] | Uint32Array;

/** Postings words a segment holds (without reading a paged one). */
function sizeOf(seg: FrozenPostings): number {
  return seg.offsets[seg.offsets.length - 1] ?? 0;
}

/**
 * Lookups a loaded index answers from its packed terms (a native string search each) before it splits
 * them into a list and a hash table: splitting costs about as much as a hundred such searches.
 */
const PACKED_LOOKUPS = 32;

export class TermIndex {
  /** The terms as read from a cache, until the list is needed (then null). */
  private packed: PackedTerms | null;
  private packedLookups = PACKED_LOOKUPS;
  private termList: string[] | undefined;
  private termTable: TermTable | undefined;
  /**
   * Postings in CSR segments, each covering a later run of documents (the build or cache first, then
   * one per incremental update, sparse: only the terms it touches); the appended ones are merged
   * when there are too many. Never copied per term.
   */
  private segments: FrozenPostings[];
  private readonly lengths: number[];
  /** Scratch (all zero between uses): term id → its place + 1 while a segment is ordered or merged. */
  private local: Int32Array;
  private totalLength: number;
  /** Segments added since the last `serialize`/`serializeTail` (what the next tail record holds). */
  private unsaved: FrozenPostings[] = [];
  /** false once unsaved segments were folded into the base: only a whole `serialize` saves them. */
  private tailable = true;
  private savedDocs: number;
  private savedTerms: number;
  /**
   * Builds each segment; holds the runs split so far and the term ids they gave (made on the first
   * documents added, kept for appends).
   */
  private builder: SegmentBuilder | undefined;
  /** Built on the first prefix query (or given, `usePrefixes`). */
  private prefixes: PrefixLookup | undefined;

  constructor(terms: string[] | PackedTerms = [], base: FrozenPostings = EMPTY, lengths: number[] = []) {
    if (terms instanceof PackedTerms) this.packed = terms;
    else {
      this.packed = null;
      this.termList = terms;
    }
    const count = terms instanceof PackedTerms ? terms.count : terms.length;
    this.segments = base.termCount === 0 ? [] : [base];
    this.lengths = lengths;
    this.local = new Int32Array(Math.max(1024, count));
    let total = 0;
    for (const l of lengths) total += l;
    this.totalLength = total;
    this.savedDocs = lengths.length;
    this.savedTerms = count;
  }

  /** The term list (split from the packed terms on first use). */
  private get terms(): string[] {
    if (this.termList === undefined) {
      this.termList = this.packed === null ? [] : this.packed.list();
      this.packed = null;
    }
    return this.termList;
  }

  private get table(): TermTable {
    this.termTable ??= new TermTable(this.terms);
    return this.termTable;
  }

  /** Whether a lookup can still be answered from the packed terms (terms are stored lowercase). */
  private packedLookup(term: string): PackedTerms | null {
    if (this.packed === null || this.packedLookups <= 0 || hasAsciiCapital(term)) return null;
    this.packedLookups--;
    return this.packed;
  }

  get docCount(): number {
    return this.lengths.length;
  }
  get termCount(): number {
    return this.packed === null ? this.terms.length : this.packed.count;
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
    const seg = this.segment(firstDoc, texts);
    this.segments.push(seg);
    this.unsaved.push(seg);
    this.tierSegments();
  }

  /** The id → place scratch, grown to cover every term. */
  private ensureLocal(): Int32Array {
    if (this.local.length < this.terms.length) this.local = grow(this.local, Math.max(this.terms.length, this.local.length * 2));
    return this.local;
  }

  /** Adds the next document; `doc` must be `docCount` (documents arrive in `#N` order). */
  addDocument(doc: number, text: string): void {
    this.addDocuments(doc, [text]);
  }

  private segment(firstDoc: number, texts: readonly string[]): FrozenPostings {
    this.builder ??= new SegmentBuilder(this.table, new RunTable());
    const built = this.builder.build(firstDoc, texts, this.local);
    this.local = built.scratch;
    for (const length of built.lengths) this.lengths.push(length);
    this.totalLength += built.total;
    return built.seg;
  }

  /**
   * Past MAX_SEGMENTS, appended segments fold into the base once they outweigh a quarter of it (a fold
   * costs the session's size, and the next save is then the whole cache); before that, only the two
   * adjacent appended segments smallest together merge. Appends cost in proportion to themselves
   * (amortized: the merged pairs form tiers, each posting copied about log2(appends) times), where every
   * appended segment was merged again each time the count passed MAX_SEGMENTS; nothing merges before.
   */
  private tierSegments(): void {
    let segs = this.segments;
    while (segs.length > MAX_SEGMENTS) {
      const base = segs[0] as FrozenPostings;
      let rest = 0;
      for (let k = 1; k < segs.length; k++) rest += sizeOf(segs[k] as FrozenPostings);
      if (base.termIds !== null || rest * 4 >= sizeOf(base)) {
        this.segments = [this.merged(segs, true)];
        // Folded into the base: holding the unsaved segments apart would double their memory; the
        // next save writes the whole index instead of a tail record.
        if (this.unsaved.length > 0) this.tailable = false;
        this.unsaved = [];
        return;
      }
      // The adjacent appended pair smallest together (the newest on ties: the oldest stay as they are).
      let at = 1;
      let least = Infinity;
      for (let k = 1; k + 1 < segs.length; k++) {
        const size = sizeOf(segs[k] as FrozenPostings) + sizeOf(segs[k + 1] as FrozenPostings);
        if (size <= least) {
          least = size;
          at = k;
        }
      }
      segs = [...segs.slice(0, at), this.merged([segs[at] as FrozenPostings, segs[at + 1] as FrozenPostings], false), ...segs.slice(at + 2)];
      this.segments = segs;
    }
  }

  /** `segs` (in doc order) as one segment, dense over every term or sparse over the terms they hold. */
  private merged(segs: readonly FrozenPostings[], dense: boolean): FrozenPostings {
    return mergeSegments(segs, dense, this.terms.length, this.ensureLocal());
  }

  /** The terms with ids `fromId` and up, in id order (ids only grow: what a later update added). */
  termTexts(fromId = 0): string[] {
    return this.terms.slice(fromId);
  }

  /** The id of `term` (lowercase), or -1 when no block holds it. */
  termId(term: string): number {
    const packed = this.packedLookup(term);
    return packed === null ? this.table.get(term) : packed.indexOf(term);
  }

  /**
   * Prefix queries answered by `lookup` (the same answers as TermPrefixes, over the terms as they are
   * now: a caller that sorted them gives it, and adds no terms after).
   */
  usePrefixes(lookup: PrefixLookup): void {
    this.prefixes = lookup;
  }

  /** Ids of the terms longer than `prefix` that begin with it, at most `limit` (see TermPrefixes). */
  termsWithPrefix(prefix: string, limit: number): number[] {
    if (prefix.length < MIN_PREFIX) return [];
    const packed = this.packedLookup(prefix);
    if (packed !== null) return packed.withPrefix(prefix, limit);
    this.prefixes ??= new TermPrefixes(this.terms);
    return this.prefixes.longerThan(prefix, limit);
  }

  /** The term's postings as interleaved [doc, tf, …] lists (one per segment holding it), in doc order. */
  postingLists(term: string): PostingList[] {
    return this.postingListsOf(this.termId(term));
  }

  /** `postingLists` by term id. */
  postingListsOf(id: number): PostingList[] {
    if (id < 0) return [];
    const out: PostingList[] = [];
    for (const seg of this.segments) {
      const at = slotIn(seg, id);
      if (at < 0) continue;
      const a = seg.offsets[at] as number;
      const b = seg.offsets[at + 1] as number;
      if (seg instanceof PagedPostings) {
        // A cache's base is read by offset, only the pages this term lies on (paged-postings.ts). Its
        // offsets are checked here, as read: a load that serves one search did not check them all.
        if (b < a || ((b - a) & 1) !== 0 || b > seg.size) throw new CorruptIndexError(`bad offsets for term ${String(id)}`);
        if (b > a) out.push(seg.slice(a, b));
      } else if (b > a) out.push(seg.postings.subarray(a, b));
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

  /** Binary form (term-codec.ts): magic, meta JSON, terms, doc lengths, offsets, postings, sha256 trailer. */
  serialize(meta: unknown): Buffer {
    const bytes = encodeIndex(meta, this.terms, this.lengths, this.whole());
    this.markSaved();
    return bytes;
  }

  /**
   * `serialize` as the pieces of the file in order (views of the postings, not a copy of them): what a
   * cache write streams to disk.
   */
  serializeParts(meta: unknown): IndexBytes {
    const parts = encodeIndexParts(meta, this.terms, this.lengths, this.whole());
    this.markSaved();
    return parts;
  }

  /** Every segment as one dense one (the base as it is when it is the only one). */
  private whole(): FrozenPostings {
    const first = this.segments[0];
    return this.segments.length === 1 && first !== undefined && first.termIds === null && first.termCount === this.terms.length ? first : this.merged(this.segments, true);
  }

  private markSaved(): void {
    this.unsaved = [];
    this.tailable = true;
    this.savedDocs = this.lengths.length;
    this.savedTerms = this.termCount;
  }

  /** Whether `serializeTail` can save what was added since the last save (else `serialize`). */
  get canSerializeTail(): boolean {
    return this.tailable;
  }

  /** Documents added since the last `serialize`/`serializeTail`. */
  get unsavedDocs(): number {
    return this.lengths.length - this.savedDocs;
  }

  /**
   * A tail record: what was added since the last `serialize`/`serializeTail` (new terms, document
   * lengths, one sparse segment), with `meta` (the cache key after it), chained to `chain` (the base
   * file's digest) by its sha256. Null when nothing was added. Appended to a cache's tail log so a
   * refresh writes only what it indexed.
   */
  serializeTail(meta: unknown, chain: Buffer): Buffer | null {
    if (this.unsavedDocs === 0) return null;
    if (!this.tailable) throw new RangeError("appended segments were folded into the base since the last save: serialize the whole index");
    const seg = this.merged(this.unsaved, false);
    const bytes = encodeTail(meta, chain, this.terms, this.lengths, this.savedDocs, this.savedTerms, seg);
    this.markSaved();
    return bytes;
  }

  /**
   * Reads the tail records in `log` chained to `chain`: each one's sha256 and its place (it must
   * continue the documents and terms before it). Stops at the first that fails; `bytes` is how far
   * the good records reach. Nothing is applied: `applyTail` does that once the caller trusts them.
   */
  static readTail(log: Buffer, chain: Buffer): { records: TailRecord[]; bytes: number; problem: string | null } {
    return decodeTail(log, chain);
  }

  /** Applies a tail record read by `readTail`; false (nothing applied) when it does not continue this index. */
  applyTail(record: TailRecord): boolean {
    if (record.firstDoc !== this.lengths.length || record.termsBefore !== this.terms.length) return false;
    const { numbers, newDocs, segTerms } = record;
    const termIds = numbers.slice(newDocs, newDocs + segTerms);
    const offsets = numbers.slice(newDocs + segTerms, newDocs + 2 * segTerms + 1);
    const postings = numbers.subarray(newDocs + 2 * segTerms + 1);
    const termCount = this.terms.length + record.newTerms;
    if ((offsets[0] ?? 0) !== 0 || (offsets[segTerms] ?? -1) !== postings.length) return false;
    for (let j = 0; j < segTerms; j++) {
      if ((termIds[j] as number) >= termCount || (j > 0 && (termIds[j] as number) <= (termIds[j - 1] as number))) return false;
      if ((offsets[j + 1] as number) < (offsets[j] as number)) return false;
    }
    for (const term of record.terms) this.table.add(term, 0, term.length, termHash(term));
    for (let d = 0; d < newDocs; d++) {
      const length = numbers[d] as number;
      this.lengths.push(length);
      this.totalLength += length;
    }
    if (segTerms > 0) this.segments.push({ offsets, postings, termCount, termIds });
    this.tierSegments();
    this.markSaved();
    return true;
  }

  /** Reads the meta JSON only (cheap key check before trusting the rest). */
  static readMeta(bytes: Buffer | ByteSource): unknown {
    return decodeMeta(Buffer.isBuffer(bytes) ? bufferSource(bytes) : bytes);
  }

  /** An index from its bytes, every page checked (CorruptIndexError when one is not what the head lists). */
  static deserialize(bytes: Buffer | ByteSource): TermIndex {
    return TermIndex.openSource(Buffer.isBuffer(bytes) ? bufferSource(bytes) : bytes).index;
  }

  /**
   * An index over `source` (a cache file): the head read and checked, every postings page checked a
   * batch at a time, the postings then read by offset per term as searches ask (see paged-postings.ts);
   * postings of at most `holdBytes` are read whole and kept instead.
   * `asRead`: for an index that serves one search (a one-shot search), no page is read at load: each
   * is checked when a search first reads it (kept, up to `holdBytes`: see `PagedPostings.holdAsRead`), so
   * a page the search never reads is never checked either, nor are the offsets of terms it never looks up
   * (CorruptIndexError then comes from the search).
   * `chain`: the file's trailer, what its tail records chain to.
   */
  static openSource(source: ByteSource, holdBytes = HOLD_BYTES, asRead = false): { index: TermIndex; chain: Buffer } {
    const head = decodeHead(source, !asRead);
    const base = new PagedPostings(source, head);
    // Postings up to `holdBytes` are read whole and kept (as every cache was before format 5).
    if (4 * base.size <= holdBytes) {
      if (asRead) base.holdAsRead();
      else base.hold();
    } else if (!asRead) base.checkAll();
    return { index: new TermIndex(head.terms, head.termCount === 0 ? EMPTY : base, head.lengths), chain: head.chain };
  }

  /** `openSource` over the cache file at `path` (read by offset through a descriptor kept open). */
  static openFile(path: string, holdBytes = HOLD_BYTES): { index: TermIndex; chain: Buffer; source: FileSource } {
    const source = new FileSource(path);
    try {
      return { ...TermIndex.openSource(source, holdBytes), source };
    } catch (error) {
      source.close();
      throw error;
    }
  }
}
