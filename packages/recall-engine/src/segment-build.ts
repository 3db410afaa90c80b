// Building one CSR segment from a run of documents: every term occurrence goes through the tokenizer's
// hashed ranges into flat arrays (slot, doc, tf), then one counting sort lays the postings out.
import { type FrozenPostings, grow } from "./segments.js";
import type { TermTable } from "./term-table.js";
import { sameTerm, scanTerms } from "./tokenizer.js";

/** From this many terms on, a segment build answers repeats from its own small table first. */
const LOCAL_TABLE_FROM = 1 << 16;

/** A built segment, the document lengths it measured (their sum in `total`), and the id scratch (all zero, maybe grown). */
export interface BuiltSegment {
  readonly seg: FrozenPostings;
  readonly lengths: readonly number[];
  readonly total: number;
  readonly scratch: Int32Array;
}

/**
 * Documents `firstDoc`, `firstDoc + 1`, … as one new segment over `table` (new terms are added to it).
 * `scratch` is all-zero id scratch (term id → place + 1), returned all zero.
 */
export function buildSegment(table: TermTable, firstDoc: number, texts: readonly string[], scratch: Int32Array): BuiltSegment {
  const terms = table.terms;
  const ensureLocal = (l: Int32Array): Int32Array => (l.length < terms.length ? grow(l, Math.max(terms.length, l.length * 2)) : l);
  const lengths: number[] = [];
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
  let local = direct ? ensureLocal(scratch) : scratch;
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
    lengths.push(length);
    total += length;
  }
  if (direct) for (let slot = 0; slot < segCount; slot++) local[segTerm[slot] as number] = 0;
  local = ensureLocal(local);
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
  return { seg: { offsets, postings, termCount, termIds }, lengths, total, scratch: local };
}
