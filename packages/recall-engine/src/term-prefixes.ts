// Prefix lookup over the term table: a query token of 3+ characters also matches the indexed terms it
// begins (`needle-3` → `needle-3-5f49cd`, `deadbeef` → a longer hex id, `refr` → `refresh`). Terms are
// bucketed by their first three characters, built lazily once a few prefix queries were answered by a
// plain scan (a one-shot search asks one or two) and extended as the table grows (term ids only grow),
// so a build or a cache load pays nothing for it.

/** Shortest prefix that expands to longer terms: shorter ones would match most of the table. */
export const MIN_PREFIX = 3;

function bucketKey(s: string): number {
  // Three UTF-16 code units, packed below 2^48 (exact in a double).
  return s.charCodeAt(0) * 4294967296 + s.charCodeAt(1) * 65536 + s.charCodeAt(2);
}

/** Prefix lookups answered by scanning the terms before the buckets are built (each scan costs a fraction of a build). */
const SCANS_BEFORE_BUCKETS = 8;

export class TermPrefixes {
  private readonly terms: readonly string[];
  private readonly buckets = new Map<number, number[]>();
  private upTo = 0;
  /** Lookups left to answer by a scan before the buckets are built. */
  private scans = SCANS_BEFORE_BUCKETS;

  constructor(terms: readonly string[]) {
    this.terms = terms;
  }

  private extend(): void {
    const { terms, buckets } = this;
    for (let id = this.upTo; id < terms.length; id++) {
      const t = terms[id] as string;
      if (t.length <= MIN_PREFIX) continue; // a 3-character term is only ever its own exact match
      const key = bucketKey(t);
      const list = buckets.get(key);
      if (list === undefined) buckets.set(key, [id]);
      else list.push(id);
    }
    this.upTo = terms.length;
  }

  /** Ids of terms longer than `prefix` that begin with it (lowercase), at most `limit`, oldest first. */
  longerThan(prefix: string, limit: number): number[] {
    if (prefix.length < MIN_PREFIX) return [];
    if (this.upTo === 0 && this.scans > 0) {
      // The first few lookups scan the terms in id order (what the bucket lists hold, in that order):
      // a one-shot search asks for a prefix or two, far cheaper than bucketing every term.
      this.scans--;
      return this.scan(prefix, limit);
    }
    this.extend();
    const list = this.buckets.get(bucketKey(prefix));
    if (list === undefined) return [];
    const out: number[] = [];
    for (const id of list) {
      const t = this.terms[id] as string;
      if (t.length > prefix.length && t.startsWith(prefix)) {
        out.push(id);
        if (out.length >= limit) break;
      }
    }
    return out;
  }

  private scan(prefix: string, limit: number): number[] {
    const out: number[] = [];
    const { terms } = this;
    for (let id = 0; id < terms.length; id++) {
      const t = terms[id] as string;
      if (t.length > prefix.length && t.startsWith(prefix)) {
        out.push(id);
        if (out.length >= limit) break;
      }
    }
    return out;
  }
}

/** A prefix lookup a TermIndex can be given in place of its own (TermPrefixes): the same answers. */
export interface PrefixLookup {
  longerThan(prefix: string, limit: number): number[];
}

/** Whether `s` holds a UTF-16 surrogate (its UTF-8 is then not always a byte prefix of what it begins). */
function hasSurrogate(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdfff) return true;
  }
  return false;
}

/**
 * Prefix lookup over terms their caller sorted already by the bytes of their UTF-8 (a history segment's
 * build sorts a session's terms once to write them): the terms a prefix begins are one run of that order,
 * found by a binary search, where TermPrefixes would bucket every term and scan a bucket per lookup. The
 * same answers as TermPrefixes: the terms longer than `prefix` that begin with it, at most `limit`, the
 * oldest (lowest ids), in id order.
 */
export class SortedPrefixes implements PrefixLookup {
  /**
   * `terms` by id; `bytes`: each one's UTF-8 read as latin1 (one character per byte, so string order is
   * byte order); `order`: the ids in that order, `place`: each id's position in it; `idOf`: a term's id
   * (-1 for none: a prefix that is a term itself starts its run, found without a search).
   */
  constructor(
    private readonly terms: readonly string[],
    private readonly bytes: readonly string[],
    private readonly order: ArrayLike<number>,
    private readonly place: ArrayLike<number>,
    private readonly idOf: (term: string) => number,
  ) {}

  longerThan(prefix: string, limit: number): number[] {
    if (prefix.length < MIN_PREFIX) return [];
    const { terms, bytes, order } = this;
    const out: number[] = [];
    if (hasSurrogate(prefix)) {
      // Rare (a lone surrogate's UTF-8 is a replacement character): a scan, as TermPrefixes does.
      for (let id = 0; id < terms.length && out.length < limit; id++) {
        const t = terms[id] as string;
        if (t.length > prefix.length && t.startsWith(prefix)) out.push(id);
      }
      return out;
    }
    const own = this.idOf(prefix);
    let lo: number;
    let key: string;
    if (own >= 0) {
      key = bytes[own] as string;
      lo = (this.place[own] as number) + 1;
    } else {
      key = Buffer.from(prefix, "utf8").toString("latin1");
      lo = 0;
      let hi = order.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if ((bytes[order[mid] as number] as string) < key) lo = mid + 1;
        else hi = mid;
      }
    }
    let sorted = true;
    for (let k = lo; k < order.length; k++) {
      const id = order[k] as number;
      if (!(bytes[id] as string).startsWith(key)) break;
      const t = terms[id] as string;
      if (t.length > prefix.length && t.startsWith(prefix)) {
        if (out.length > 0 && (out[out.length - 1] as number) > id) sorted = false;
        out.push(id);
      }
    }
    if (!sorted) {
      // A typed array's own numeric sort (no comparator called per pair).
      const ids = Int32Array.from(out).sort();
      for (let k = 0; k < ids.length; k++) out[k] = ids[k] as number;
    }
    if (out.length > limit) out.length = limit;
    return out;
  }
}
