// Indexing one session into its segment of a history: built whole, or, when the ledger only grew, extended
// by one part holding the appended blocks' postings (term ids kept), so a grown session costs only its new
// blocks. Apart from the history's bookkeeping (history-index.ts), which decides when to call it.
import { readFileSync } from "node:fs";
import type { Block, Session } from "@context-fold/ledger-reader";
import { type CacheKey, compareKey, isCacheKey } from "./index-cache.js";
import { callResultsOf } from "./call-results.js";
import { CorruptIndexError } from "./errors.js";
import { BOUND_UNKNOWN, boundsCode, stemKey, unionKey } from "./history-dictionary.js";
import { dropParts, MAX_PARTS, partPath, segmentBase, type SegmentWriter } from "./history-layout.js";
import { byteString, encodePostings, encodeSegment, encodeWholeSegment, type SegmentTerm } from "./history-segment.js";
import { SegmentParts } from "./history-segment-parts.js";
import { BlockTable, encodeTable } from "./history-table.js";
import type { HistorySession } from "./history-types.js";
import { isNotHistory } from "./not-history.js";
import { isProse, quotedSources } from "./quoted-sources.js";
import { prefixScoreBound, stemUnionScoreBound, termIdf, termScoreBound, weightReach } from "./rank.js";
import { RecallIndex } from "./recall-index.js";
import { EMPTY } from "./segments.js";
import { stemOf } from "./stem.js";
import { MIN_PREFIX, SortedPrefixes } from "./term-prefixes.js";
import { TermIndex } from "./term-index.js";

/**
 * What indexing a session gave: the terms the dictionary does not list for it yet with their score bound
 * codes (history-dictionary.ts; unknown for a grown session, whose earlier bounds no longer hold), its
 * term count, parts and whether it grew.
 */
export interface IndexedSession {
  terms: string[];
  /** `terms`' UTF-8 read as latin1 (`byteString`), when the indexing had them at hand (a session built whole). */
  keys?: readonly string[];
  /** The indices of `keys` in byte order (with `keys`). */
  keyOrder?: Int32Array;
  codes: Uint16Array;
  termCount: number;
  parts: number;
  grown: boolean;
}

/**
 * Indexes `session` into its segment. When the ledger only grew since `was` (its parts and table open
 * and hold `was`'s blocks), only the appended blocks are tokenized, into one more part: a term keeps the
 * id its earlier parts gave it, a new one takes the next; no earlier part is read past the directory
 * blocks its lookups visit, or rewritten. At MAX_PARTS the segment is rewritten whole (the same ids: the
 * session's first-seen order). Returns the terms the dictionary does not list for it yet (all of them,
 * when built anew), its term count, parts and whether it grew. Its files are written by `writer`;
 * `wasKey`: the ledger key `was` was indexed at (keys.json), without which the session is built anew.
 */
export function indexSession(segments: string, file: string, session: Session, was: HistorySession | undefined, writer: SegmentWriter, wasKey?: CacheKey): IndexedSession {
  const base = segmentBase(segments, file, session.header.id);
  const wasParts = was?.parts ?? 0;
  let old: { reader: SegmentParts; hashes: string[] } | null = null;
  if (was !== undefined && was.ordinal >= 0 && was.full !== true && was.id === session.header.id && wasKey !== undefined && isCacheKey(wasKey) && compareKey(wasKey, file, session) === "prefix") {
    let reader: SegmentParts | undefined;
    try {
      reader = SegmentParts.open(Array.from({ length: wasParts + 1 }, (_, k) => partPath(base, k)));
      const table = BlockTable.read(file, readFileSync(`${base}.tab`), `${base}.tab`, true);
      if (reader.docCount === wasKey.blockCount && table.count === wasKey.blockCount && reader.termCount === was.termCount) old = { reader, hashes: table.hashes() };
      else reader.close();
    } catch (error) {
      reader?.close();
      if (!(error instanceof CorruptIndexError) && (error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
  }
  try {
    const extend = old !== null && wasParts + 1 < MAX_PARTS;
    const from = extend && old !== null ? old.reader.docCount : 0;
    // Postings of the blocks from `from` on, by the one-session index (its rule for what is indexed); the
    // documents before stand in as empty ones, so its postings carry the blocks' own numbers.
    const part = new TermIndex([], EMPTY, new Array<number>(from).fill(0));
    RecallIndex.fromTerms(session, part);
    const texts = part.termTexts();
    const lengths: number[] = [];
    for (let d = from; d < part.docCount; d++) lengths.push(part.docLength(d));
    const terms: SegmentTerm[] = [];
    const added: string[] = [];
    let codes: Uint16Array | null = null;
    let parts = 0;
    let termCount = texts.length;
    let quotes: Int32Array | null = null;
    let keys: readonly string[] | null = null;
    let keyOrder: Int32Array | null = null;
    if (extend && old !== null) {
      termCount = old.reader.termCount;
      // The terms in byte order, once: their ids are looked up in that order and the part written in it.
      const sorted = byteOrder(texts);
      const keys = keyBuffers(sorted.bytes);
      const known = old.reader.termIds(keys, sorted.order);
      for (let i = 0; i < texts.length; i++) {
        let id = known[i] as number;
        // New terms take the next ids in the order the appended blocks first hold them (first-seen order).
        if (id < 0) {
          id = termCount++;
          added.push(texts[i] as string);
        }
        terms.push({ key: keys[i] as Buffer, id, ...encodePostings(part.postingListsOf(i), 0) });
      }
      parts = wasParts + 1;
      writer.write(partPath(base, parts), encodeSegment(terms, lengths, from, termCount, sorted.order));
    } else {
      // Ids are the session's first-seen order, as its earlier parts gave them: the terms past those are new.
      const known = old?.reader.termCount ?? 0;
      // The blocks each prose block quotes, over the whole segment (kept in the table: a search reads no prose for them).
      quotes = quotesOf(session, part);
      // Built whole and new: every term's score bound over the whole session (a grown one's stay unknown).
      const reach = old === null ? reachOf(session, quotes) : null;
      if (reach !== null) codes = new Uint16Array(texts.length);
      // Union keys and their codes, listed after every term (codes follow `added`'s order: all terms are added when codes are made).
      const unionKeys: string[] = [];
      // The same keys as latin1 of their UTF-8, for a first build's dictionary (history-fresh-dictionary.ts).
      const unionBytes: string[] = [];
      const unionIds: number[] = [];
      const unions: number[] = [];
      // The terms in the byte order of their UTF-8 (one sort: the segment is written in it, and
      // `matchesLonger` reads it), and each term's place in it.
      const sorted = byteOrder(texts);
      // Prefix queries (the union bounds below) answered off that order: a binary search each.
      part.usePrefixes(new SortedPrefixes(texts, sorted.bytes, sorted.order, sorted.place, (t) => part.termId(t)));
      const reachOfDoc = reach === null ? null : (doc: number): number => reach[doc] as number;
      // The segment, its terms in that order, coded straight from the postings.
      const whole = encodeWholeSegment(sorted.bytes, sorted.order, (id) => part.postingListsOf(id), lengths);
      // Each stem a term has (other than the term, long enough to begin terms), with the first such term.
      const stems = new Map<string, number>();
      for (let i = 0; i < texts.length; i++) {
        const term = texts[i] as string;
        if (i >= known) added.push(term);
        if (codes !== null && reachOfDoc !== null) {
          const stem = stemOf(term);
          if (stem !== null && stem !== term && stem.length >= MIN_PREFIX && !stems.has(stem)) stems.set(stem, i);
          const lists = part.postingListsOf(i);
          codes[i] = boundsCode(termScoreBound(part, lists, reachOfDoc), termIdf(part.docCount, whole.df[i] as number));
          // The term as a query token matching longer terms: that union's bound, under its own dictionary key.
          const union = matchesLonger(sorted, term, i, (t) => part.termId(t) >= 0) ? prefixScoreBound(part, term, reachOfDoc) : null;
          if (union !== null && union.bound > 0) {
            unionKeys.push(unionKey(term));
            unionBytes.push(unionKey(sorted.bytes[i] as string));
            unionIds.push(i);
            unions.push(boundsCode(union.bound, union.idf));
          }
        }
      }
      // A token the session does not hold, matched by its stem's union (`stemKey`): per stem, in byte order.
      const stemKeys: { key: string; bytes: string; code: number }[] = [];
      if (reachOfDoc !== null) {
        for (const [stem, i] of stems) {
          const union = stemUnionScoreBound(part, texts[i] as string, reachOfDoc);
          if (union.bound > 0) stemKeys.push({ key: stemKey(stem), bytes: stemKey(byteString(stem)), code: boundsCode(union.bound, union.idf) });
        }
        stemKeys.sort((a, b) => (a.bytes < b.bytes ? -1 : a.bytes > b.bytes ? 1 : 0));
      }
      if (codes !== null && unions.length + stemKeys.length > 0) {
        added.push(...unionKeys, ...stemKeys.map((s) => s.key));
        const all = new Uint16Array(codes.length + unions.length + stemKeys.length);
        all.set(codes);
        all.set(unions, codes.length);
        all.set(stemKeys.map((s) => s.code), codes.length + unions.length);
        codes = all;
      }
      if (known === 0) {
        keys = unionBytes.length + stemKeys.length === 0 ? sorted.bytes : [...sorted.bytes, ...unionBytes, ...stemKeys.map((s) => s.bytes)];
        // Stem keys first (two NULs), then union keys (one NUL before every term), in their terms' order; then the terms.
        keyOrder = new Int32Array(keys.length);
        let k = 0;
        for (let j = 0; j < stemKeys.length; j++) keyOrder[k++] = texts.length + unionBytes.length + j;
        if (unionIds.length > 0) {
          // Each term's union key (its index in `keys`), read off in the terms' byte order: no sort.
          const unionAt = new Int32Array(texts.length).fill(-1);
          for (let j = 0; j < unionIds.length; j++) unionAt[unionIds[j] as number] = texts.length + j;
          for (const id of sorted.order) if ((unionAt[id] as number) >= 0) keyOrder[k++] = unionAt[id] as number;
        }
        keyOrder.set(sorted.order, k);
      }
      writer.write(`${base}.seg`, whole.bytes);
      dropParts(base, 1);
    }
    writer.write(`${base}.tab`, encodeTable(session, old?.hashes ?? [], quotes));
    return { terms: added, ...(keys === null || keyOrder === null ? {} : { keys, keyOrder }), codes: codes ?? new Uint16Array(added.length).fill(BOUND_UNKNOWN), termCount, parts, grown: old !== null };
  } finally {
    old?.reader.close();
  }
}

/**
 * Each byte string (`byteString`: one character per byte) as its bytes: views over one buffer, filled in
 * plain code (a growth's thousands of terms each made by Buffer.from cost more than looking them up).
 */
function keyBuffers(bytes: readonly string[]): Buffer[] {
  let total = 0;
  for (const b of bytes) total += b.length;
  const all = Buffer.allocUnsafe(total);
  const out: Buffer[] = [];
  let at = 0;
  for (const b of bytes) {
    for (let i = 0; i < b.length; i++) all[at + i] = b.charCodeAt(i);
    out.push(all.subarray(at, at + b.length));
    at += b.length;
  }
  return out;
}

/** A session's terms in the byte order of their UTF-8: `bytes` per term (as `byteString`), `order` (term ids in that order) and `place` (each id's position in it). */
interface ByteOrder {
  readonly bytes: readonly string[];
  readonly order: Int32Array;
  readonly place: Int32Array;
}

/** Buckets of a byte string's first two bytes, in their order: 0 the empty string, then byte 0 × 257 + (byte 1 + 1, 0 for none) + 1. */
const BUCKETS = 256 * 257 + 1;
let bucketStarts = new Int32Array(BUCKETS + 1);

function bucketOf(s: string): number {
  return s.length === 0 ? 0 : s.charCodeAt(0) * 257 + (s.length > 1 ? s.charCodeAt(1) + 1 : 0) + 1;
}

function byteOrder(texts: readonly string[]): ByteOrder {
  const bytes = texts.map(byteString);
  // Counted into buckets of their first two bytes, then each bucket sorted: most comparisons a whole sort
  // makes are between terms those bytes tell apart.
  const starts = bucketStarts.fill(0);
  for (const b of bytes) {
    const k = bucketOf(b) + 1;
    starts[k] = (starts[k] as number) + 1;
  }
  for (let k = 0; k < BUCKETS; k++) starts[k + 1] = (starts[k + 1] as number) + (starts[k] as number);
  const order = new Int32Array(bytes.length);
  for (let id = 0; id < bytes.length; id++) {
    const k = bucketOf(bytes[id] as string);
    const at = starts[k] as number;
    order[at] = id;
    starts[k] = at + 1;
  }
  // `starts[k]` is now bucket k's end, the next one's start.
  const byBytes = (a: number, b: number): number => {
    const x = bytes[a] as string;
    const y = bytes[b] as string;
    return x < y ? -1 : x > y ? 1 : 0;
  };
  let from = 0;
  for (let k = 0; k < BUCKETS; k++) {
    const end = starts[k] as number;
    if (end - from > 1) order.subarray(from, end).sort(byBytes);
    from = end;
  }
  bucketStarts = starts;
  const place = new Int32Array(texts.length);
  for (let k = 0; k < order.length; k++) place[order[k] as number] = k;
  return { bytes, order, place };
}

/**
 * Whether query token `term` (term `id` of the session) matches a longer term of the session as a prefix
 * (what rank.ts prefixTerms takes: a term other than it, longer than its stem, else than itself,
 * beginning with that; or its stem's own term), read off the session's terms in byte order: only those
 * are scored by `prefixScoreBound`, which looks the terms up. Never false where prefixTerms finds one (a
 * term it misses would be bounded as matching nothing longer). A token without a stem is its own
 * prefix: the terms it begins follow it in byte order, so the next one tells.
 */
function matchesLonger(sorted: ByteOrder, term: string, id: number, held: (t: string) => boolean): boolean {
  const stem = stemOf(term);
  if (stem !== null && stem !== term && held(stem)) return true;
  if ((stem ?? term).length < MIN_PREFIX) return false;
  const { bytes, order, place } = sorted;
  const own = bytes[id] as string;
  if (stem === null || stem === term) {
    const next = order[(place[id] as number) + 1];
    return next !== undefined && (bytes[next] as string).startsWith(own);
  }
  // A stem begins terms that need not follow the token: found by a binary search for it.
  const prefix = byteString(stem);
  let lo = 0;
  let hi = order.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((bytes[order[mid] as number] as string) < prefix) lo = mid + 1;
    else hi = mid;
  }
  for (let j = lo; j < order.length; j++) {
    const other = bytes[order[j] as number] as string;
    if (!other.startsWith(prefix)) break;
    if (other !== own && other.length > prefix.length) return true;
  }
  return false;
}

/**
 * Per block, the block its prose quotes (quoted-sources.ts, as a search over the segment asks it: every
 * block a candidate source, since blocks that are not history are empty documents there), -1 for none;
 * prose that is not history is never scored, so never asked.
 */
function quotesOf(session: Session, terms: TermIndex): Int32Array {
  const out = new Int32Array(session.blocks.length).fill(-1);
  for (const b of session.blocks) {
    if (!isProse(b.kind) || isNotHistory(session, b)) continue;
    const source = quotedSources(session.blocks, b.index, terms, () => false)[0];
    if (source !== undefined) out[b.index] = source;
  }
  return out;
}

/**
 * Per block, the heaviest kind weight its score can end up under (rank.ts weightReach): its own, its
 * tool result's, and the kind's of the block its prose quotes (`quotes`), which takes the prose's score.
 */
function reachOf(session: Session, quotes: Int32Array): Float64Array {
  const blocks = session.blocks;
  const results = callResultsOf(blocks, (block) => isNotHistory(session, block));
  const out = new Float64Array(blocks.length);
  for (const b of blocks as readonly Block[]) {
    const result = results[b.index] ?? -1;
    const source = quotes[b.index] ?? -1;
    const quoted = source < 0 ? null : (blocks[source] as Block).kind;
    out[b.index] = weightReach(b.kind, result >= 0 ? (blocks[result] as Block).kind : null, quoted === "toolResult" || quoted === "bash", quoted === "user");
  }
  return out;
}
