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
