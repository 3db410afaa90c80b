// The inverted index: term → postings [doc, tf, doc, tf, …] in doc order, plus document lengths.
// Append-only in doc order (block `#N` order), which is what makes incremental update cheap.
import { createHash } from "node:crypto";
import { TermPrefixes } from "./term-prefixes.js";
import { sameTerm, scanTerms, termHash, termText } from "./tokenizer.js";

export type PostingList = number[] | Uint32Array;

const MAGIC = Buffer.from("CFRECALL2\n", "latin1");
const TAIL_MAGIC = Buffer.from("CFRTAIL1", "latin1");

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

/** Why a serialized index was refused; the caller rebuilds. */
export class CorruptIndexError extends Error {
  readonly code = "CORRUPT_INDEX" as const;
  constructor(reason: string) {
    super(`recall index cache is corrupt: ${reason}`);
    this.name = "CorruptIndexError";
  }
}

/**
 * Frozen postings in CSR form. Dense (`termIds` null): term t's [doc, tf, …] pairs are
 * postings[offsets[t] .. offsets[t+1]) for t < termCount. Sparse (an append touching few terms):
 * `termIds` lists the terms it holds, ascending, and offsets run over that list.
 */
interface FrozenPostings {
  readonly offsets: Uint32Array;
  readonly postings: Uint32Array;
  readonly termCount: number;
  readonly termIds: Uint32Array | null;
}

/** From this many terms on, a segment build answers repeats from its own small table first. */
const LOCAL_TABLE_FROM = 1 << 16;

/** Segments kept apart before the appended ones are merged (each costs a lookup per query term). */
const MAX_SEGMENTS = 8;

const EMPTY: FrozenPostings = { offsets: new Uint32Array(1), postings: new Uint32Array(0), termCount: 0, termIds: null };

function grow(a: Int32Array, size: number): Int32Array {
  const next = new Int32Array(size);
  next.set(a);
  return next;
}

/** Where term `id` sits in a segment's offsets, or -1 when the segment does not hold it. */
function slotIn(seg: FrozenPostings, id: number): number {
  const ids = seg.termIds;
  if (ids === null) return id < seg.termCount ? id : -1;
  let lo = 0;
  let hi = ids.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = ids[mid] as number;
    if (v === id) return mid;
    if (v < id) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/**
 * Term ↔ id by open addressing over `termHash` values, looked up by a range of the source text: the
 * build interns ~10⁶ tokens per 4 MB without slicing a string per token (only new terms are sliced).
 */
class TermTable {
  readonly terms: string[];
  /**
   * Interleaved [id + 1, hash] per slot: a probe reads the hash from the slot's own cache line, so a
   * miss or a collision costs no second random read (the table of a large session is not cache-resident).
   */
  private slots: Int32Array;
  private mask: number;

  constructor(terms: string[]) {
    this.terms = terms;
    let size = 1024;
    while (size < terms.length * 2) size *= 2;
    this.slots = new Int32Array(2 * size);
    this.mask = size - 1;
    for (let id = 0; id < terms.length; id++) this.place(id, termHash(terms[id] as string));
  }

  private place(id: number, h: number): void {
    const { slots, mask } = this;
    let i = (h ^ (h >>> 15)) & mask;
    while (slots[2 * i] !== 0) i = (i + 1) & mask;
    slots[2 * i] = id + 1;
    slots[2 * i + 1] = h;
  }

  /** The id of `src[a, b)` (hash `h`), or -1. */
  find(src: string, a: number, b: number, h: number): number {
    const { slots, mask, terms } = this;
    const length = b - a;
    let i = (h ^ (h >>> 15)) & mask;
    for (;;) {
      const s = slots[2 * i] as number;
      if (s === 0) return -1;
      if (slots[2 * i + 1] === h) {
        const t = terms[s - 1] as string;
        if (t.length === length && sameTerm(src, a, b, t, 0)) return s - 1;
      }
      i = (i + 1) & mask;
    }
  }

  /** Adds `src[a, b)` (known absent) and returns its id. */
  add(src: string, a: number, b: number, h: number): number {
    const id = this.terms.length;
    this.terms.push(termText(src, a, b));
    if ((id + 1) * 2 > this.mask + 1) {
      // Rehash at half full: probes stay short.
      const old = this.slots;
      const size = (this.mask + 1) * 2;
      this.slots = new Int32Array(2 * size);
      this.mask = size - 1;
      for (let k = 0; k < old.length; k += 2) if (old[k] !== 0) this.place((old[k] as number) - 1, old[k + 1] as number);
    }
    this.place(id, h);
    return id;
  }

  get(term: string): number {
    return this.find(term, 0, term.length, termHash(term));
  }
}

export class TermIndex {
  private readonly table: TermTable;
  private readonly terms: string[];
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
  /** Built on the first prefix query. */
  private prefixes: TermPrefixes | undefined;

  constructor(terms: string[] = [], base: FrozenPostings = EMPTY, lengths: number[] = []) {
    this.terms = terms;
    this.table = new TermTable(terms);
    this.segments = base.termCount === 0 ? [] : [base];
    this.lengths = lengths;
    this.local = new Int32Array(Math.max(1024, terms.length));
    let total = 0;
    for (const l of lengths) total += l;
    this.totalLength = total;
    this.savedDocs = lengths.length;
    this.savedTerms = terms.length;
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
    const seg = this.segment(firstDoc, texts);
    this.segments.push(seg);
    this.unsaved.push(seg);
    if (this.segments.length > MAX_SEGMENTS) this.compactSegments();
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
    const { table, terms } = this;
    const termsBefore = terms.length;
    // Terms this segment holds (global ids, in first-seen order) and their document frequency.
    let segTerm: Int32Array = new Int32Array(4096);
    let segDf: Int32Array = new Int32Array(4096);
    let slotHash: Int32Array = new Int32Array(4096);
    // Last doc each slot was seen in: a repeat in the same doc bumps its tf in place (no per-doc map).
    let slotLast: Int32Array = new Int32Array(4096);
    // Occurrence index of each slot's latest doc.
    let lastOcc: Int32Array = new Int32Array(4096);
    let segCount = 0;
    // A segment-local hash table (hash → slot) answers repeats first: it stays in cache while the
    // global term table of a 100 MB session (~10⁶ terms) does not, so only first sightings go there.
    let lslots: Int32Array = new Int32Array(8192);
    let lmask = lslots.length - 1;
    // Occurrences (distinct term per document) run at about one per 20 characters of text: sized once,
    // the flat arrays rarely double (each doubling is garbage a 100 MB session's heap pays to collect).
    let chars = 0;
    for (const text of texts) chars += text.length;
    let cap = Math.max(1 << 12, Math.min(1 << 26, chars >>> 4));
    let occSlot: Int32Array = new Int32Array(cap);
    let occDoc: Int32Array = new Int32Array(cap);
    let occTf: Int32Array = new Int32Array(cap);
    let n = 0;
    let total = 0;
    let doc = firstDoc;
    // A small term table is itself cache-resident: look it up directly (id → slot through `local`).
    const direct = termsBefore < LOCAL_TABLE_FROM;
    // A first segment numbers its slots as the table numbers its terms (both from 0, in first-seen
    // order): slot = id, no `local` lookup per token.
    const fresh = termsBefore === 0;
    let local = direct ? this.ensureLocal() : this.local;
    // The segment's own reference to each slot's term: a repeat is compared without reading the global
    // term list (megabytes for a large session, so a cache miss per token).
    const slotTerm: string[] = [];
    const sink = (src: string, a: number, b: number, h: number): void => {
      const length = b - a;
      let i = 0;
      let slot = -1;
      if (direct) {
        let id = table.find(src, a, b, h);
        if (id < 0) {
          id = table.add(src, a, b, h);
          if (id >= local.length) local = grow(local, local.length * 2);
        } else slot = fresh ? id : (local[id] as number) - 1;
        if (slot >= 0) {
          if (slotLast[slot] === doc) {
            const at = lastOcc[slot] as number;
            occTf[at] = (occTf[at] as number) + 1;
            return;
          }
        } else {
          slot = segCount++;
          if (slot >= segTerm.length) {
            const size = segTerm.length * 2;
            segTerm = grow(segTerm, size);
            segDf = grow(segDf, size);
            slotLast = grow(slotLast, size);
            lastOcc = grow(lastOcc, size);
          }
          segTerm[slot] = id;
          local[id] = slot + 1;
        }
      } else {
        i = (h ^ (h >>> 15)) & lmask;
        for (;;) {
          const v = lslots[i] as number;
          if (v === 0) break;
          if (slotHash[v - 1] === h) {
            const t = slotTerm[v - 1] as string;
            if (t.length === length && sameTerm(src, a, b, t, 0)) {
              slot = v - 1;
              break;
            }
          }
          i = (i + 1) & lmask;
        }
        if (slot >= 0) {
          if (slotLast[slot] === doc) {
            const at = lastOcc[slot] as number;
            occTf[at] = (occTf[at] as number) + 1;
            return;
          }
        } else {
          let id = table.find(src, a, b, h);
          if (id < 0) id = table.add(src, a, b, h);
          slot = segCount++;
          if (slot >= segTerm.length) {
            const size = segTerm.length * 2;
            segTerm = grow(segTerm, size);
            segDf = grow(segDf, size);
            slotHash = grow(slotHash, size);
            slotLast = grow(slotLast, size);
            lastOcc = grow(lastOcc, size);
          }
          segTerm[slot] = id;
          slotTerm.push(terms[id] as string);
          slotHash[slot] = h;
          lslots[i] = slot + 1;
          if (segCount * 2 > lslots.length) {
            lslots = new Int32Array(lslots.length * 2);
            lmask = lslots.length - 1;
            for (let s = 0; s < segCount; s++) {
              const hs = slotHash[s] as number;
              let j = (hs ^ (hs >>> 15)) & lmask;
              while (lslots[j] !== 0) j = (j + 1) & lmask;
              lslots[j] = s + 1;
            }
          }
        }
      }
      if (n === cap) {
        cap *= 2;
        occSlot = grow(occSlot, cap);
        occDoc = grow(occDoc, cap);
        occTf = grow(occTf, cap);
      }
      occSlot[n] = slot;
      occDoc[n] = doc;
      occTf[n] = 1;
      lastOcc[slot] = n;
      slotLast[slot] = doc;
      segDf[slot] = (segDf[slot] as number) + 1;
      n++;
    };
    for (let k = 0; k < texts.length; k++) {
      doc = firstDoc + k;
      const length = scanTerms(texts[k] as string, sink);
      this.lengths.push(length);
      total += length;
    }
    this.local = local;
    if (direct) for (let slot = 0; slot < segCount; slot++) local[segTerm[slot] as number] = 0;
    local = this.ensureLocal();
    this.totalLength += total;
    const termCount = terms.length;
    // Dense when the segment holds most terms (a build), sparse otherwise (an append).
    const dense = segCount * 4 >= termCount || termsBefore === 0;
    let offsets: Uint32Array;
    let termIds: Uint32Array | null;
    // Slot → its place in `offsets`.
    const place = new Int32Array(segCount);
    if (dense) {
      termIds = null;
      offsets = new Uint32Array(termCount + 1);
      for (let slot = 0; slot < segCount; slot++) offsets[(segTerm[slot] as number) + 1] = 2 * (segDf[slot] as number);
      for (let t = 0; t < termCount; t++) offsets[t + 1] = (offsets[t + 1] as number) + (offsets[t] as number);
      for (let slot = 0; slot < segCount; slot++) place[slot] = segTerm[slot] as number;
    } else {
      termIds = Uint32Array.from(segTerm.subarray(0, segCount)).sort();
      for (let j = 0; j < segCount; j++) local[termIds[j] as number] = j + 1;
      for (let slot = 0; slot < segCount; slot++) {
        const id = segTerm[slot] as number;
        place[slot] = (local[id] as number) - 1;
        local[id] = 0;
      }
      offsets = new Uint32Array(segCount + 1);
      for (let slot = 0; slot < segCount; slot++) offsets[(place[slot] as number) + 1] = 2 * (segDf[slot] as number);
      for (let j = 0; j < segCount; j++) offsets[j + 1] = (offsets[j + 1] as number) + (offsets[j] as number);
    }
    const postings = new Uint32Array(2 * n);
    const fill = new Uint32Array(segCount);
    for (let slot = 0; slot < segCount; slot++) fill[slot] = offsets[place[slot] as number] as number;
    // Occurrences are in doc order, so each term's pairs come out sorted by doc.
    for (let i = 0; i < n; i++) {
      const slot = occSlot[i] as number;
      const p = fill[slot] as number;
      postings[p] = occDoc[i] as number;
      postings[p + 1] = occTf[i] as number;
      fill[slot] = p + 2;
    }
    return { offsets, postings, termCount, termIds };
  }

  /** Appended segments merged into one sparse segment; into the base once they outweigh a quarter of it. */
  private compactSegments(): void {
    const [base, ...rest] = this.segments;
    if (base === undefined) return;
    let restSize = 0;
    for (const seg of rest) restSize += seg.postings.length;
    if (base.termIds !== null || restSize * 4 >= base.postings.length) {
      this.segments = [this.merged(this.segments, true)];
      // Folded into the base: holding the unsaved segments apart would double their memory; the next
      // save writes the whole index instead of a tail record.
      if (this.unsaved.length > 0) this.tailable = false;
      this.unsaved = [];
    }
    else this.segments = [base, this.merged(rest, false)];
  }

  /** `segs` (in doc order) as one segment, dense over every term or sparse over the terms they hold. */
  private merged(segs: readonly FrozenPostings[], dense: boolean): FrozenPostings {
    const termCount = this.terms.length;
    let termIds: Uint32Array | null = null;
    let width = termCount;
    // Term id → its place in the merged offsets.
    let placeOf: (id: number) => number = (id) => id;
    if (!dense) {
      const local = this.ensureLocal();
      const ids: number[] = [];
      for (const seg of segs) {
        const segIds = seg.termIds;
        const count = segIds === null ? seg.termCount : segIds.length;
        for (let j = 0; j < count; j++) {
          const id = segIds === null ? j : (segIds[j] as number);
          if (segIds === null && seg.offsets[j + 1] === seg.offsets[j]) continue;
          if (local[id] === 0) {
            local[id] = 1;
            ids.push(id);
          }
        }
      }
      termIds = Uint32Array.from(ids).sort();
      for (let j = 0; j < termIds.length; j++) local[termIds[j] as number] = j + 1;
      width = termIds.length;
      placeOf = (id) => (local[id] as number) - 1;
    }
    const offsets = new Uint32Array(width + 1);
    for (const seg of segs) {
      const count = seg.termIds === null ? seg.termCount : seg.termIds.length;
      for (let j = 0; j < count; j++) {
        const size = (seg.offsets[j + 1] as number) - (seg.offsets[j] as number);
        if (size === 0) continue;
        const at = placeOf(seg.termIds === null ? j : (seg.termIds[j] as number)) + 1;
        offsets[at] = (offsets[at] as number) + size;
      }
    }
    for (let t = 0; t < width; t++) offsets[t + 1] = (offsets[t + 1] as number) + (offsets[t] as number);
    const postings = new Uint32Array(offsets[width] as number);
    const fill = offsets.slice(0, width);
    for (const seg of segs) {
      const count = seg.termIds === null ? seg.termCount : seg.termIds.length;
      for (let j = 0; j < count; j++) {
        const a = seg.offsets[j] as number;
        const b = seg.offsets[j + 1] as number;
        if (b === a) continue;
        const at = placeOf(seg.termIds === null ? j : (seg.termIds[j] as number));
        postings.set(seg.postings.subarray(a, b), fill[at] as number);
        fill[at] = (fill[at] as number) + (b - a);
      }
    }
    if (termIds !== null) for (let j = 0; j < termIds.length; j++) this.local[termIds[j] as number] = 0;
    return { offsets, postings, termCount, termIds };
  }

  /** The id of `term` (lowercase), or -1 when no block holds it. */
  termId(term: string): number {
    return this.table.get(term);
  }

  /** Ids of the terms longer than `prefix` that begin with it, at most `limit` (see TermPrefixes). */
  termsWithPrefix(prefix: string, limit: number): number[] {
    this.prefixes ??= new TermPrefixes(this.terms);
    return this.prefixes.longerThan(prefix, limit);
  }

  /** The term's postings as interleaved [doc, tf, …] lists (one per segment holding it), in doc order. */
  postingLists(term: string): PostingList[] {
    return this.postingListsOf(this.table.get(term));
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
    const first = this.segments[0];
    const all = this.segments.length === 1 && first !== undefined && first.termIds === null && first.termCount === this.terms.length ? first : this.merged(this.segments, true);
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
    this.markSaved();
    return Buffer.concat([body, digest]);
  }

  private markSaved(): void {
    this.unsaved = [];
    this.tailable = true;
    this.savedDocs = this.lengths.length;
    this.savedTerms = this.terms.length;
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
    const ids = seg.termIds ?? new Uint32Array(0);
    const metaBytes = Buffer.from(JSON.stringify(meta), "utf8");
    const termBytes = Buffer.from(this.terms.slice(this.savedTerms).join("\n"), "utf8");
    const newDocs = this.lengths.length - this.savedDocs;
    const counts = Buffer.alloc(32);
    counts.writeUInt32LE(metaBytes.length, 0);
    counts.writeUInt32LE(termBytes.length, 4);
    counts.writeUInt32LE(this.savedDocs, 8);
    counts.writeUInt32LE(newDocs, 12);
    counts.writeUInt32LE(this.savedTerms, 16);
    counts.writeUInt32LE(this.terms.length - this.savedTerms, 20);
    counts.writeUInt32LE(ids.length, 24);
    counts.writeUInt32LE(seg.postings.length, 28);
    const headLength = TAIL_MAGIC.length + 32 + metaBytes.length + termBytes.length;
    const headPad = (4 - (headLength % 4)) % 4;
    const numbers = new Uint32Array(newDocs + ids.length + ids.length + 1 + seg.postings.length);
    numbers.set(this.lengths.slice(this.savedDocs), 0);
    numbers.set(ids, newDocs);
    numbers.set(seg.offsets, newDocs + ids.length);
    numbers.set(seg.postings, newDocs + 2 * ids.length + 1);
    const body = Buffer.concat([TAIL_MAGIC, counts, metaBytes, termBytes, Buffer.alloc(headPad), Buffer.from(numbers.buffer, numbers.byteOffset, numbers.byteLength)]);
    const digest = createHash("sha256").update(chain).update(body).digest();
    const length = Buffer.alloc(4);
    length.writeUInt32LE(body.length + 32, 0);
    this.markSaved();
    return Buffer.concat([length, body, digest]);
  }

  /**
   * Reads the tail records in `log` chained to `chain`: each one's sha256 and its place (it must
   * continue the documents and terms before it). Stops at the first that fails; `bytes` is how far
   * the good records reach. Nothing is applied: `applyTail` does that once the caller trusts them.
   */
  static readTail(log: Buffer, chain: Buffer): { records: TailRecord[]; bytes: number; problem: string | null } {
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
    if (this.segments.length > MAX_SEGMENTS) this.compactSegments();
    this.markSaved();
    return true;
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
    return new TermIndex(terms, { offsets, postings, termCount, termIds: null }, lengths);
  }
}
