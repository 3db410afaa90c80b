// The terms of a cache file as they lie in it: one "\n"-joined string. Splitting ~40k terms of a 4 MB
// session into strings costs more than the rest of a cache load, while a one-shot search (the CLI) looks
// up a handful of terms: those are found in the joined string itself, and the list is split only when
// something needs it whole (an update, a save, many lookups).
import { lastAtOrBefore } from "./sorted-search.js";

export class PackedTerms {
  /** Where each term begins in `text`. */
  private readonly starts: Uint32Array;

  /** Throws RangeError when `text` does not hold `count` terms. */
  constructor(
    /** The terms joined by "\n" (terms never hold one), in id order. */
    readonly text: string,
    readonly count: number,
  ) {
    const starts = new Uint32Array(count);
    let k = count === 0 ? 0 : 1;
    for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) {
      if (k >= count) throw new RangeError(`more than ${String(count)} terms`);
      starts[k++] = i + 1;
    }
    if (k !== count || (count === 0 && text.length > 0)) throw new RangeError(`${String(k)} terms, not ${String(count)}`);
    this.starts = starts;
  }

  /** The terms as a list (what `text.split("\n")` gives). */
  list(): string[] {
    return this.count === 0 ? [] : this.text.split("\n");
  }

  /** The id of the term equal to `term`, or -1: the first whole-term occurrence, as terms are unique. */
  indexOf(term: string): number {
    if (this.count === 0 || term.includes("\n")) return -1;
    const { text } = this;
    for (let at = text.indexOf(term); at >= 0; at = text.indexOf(term, at + 1)) {
      const end = at + term.length;
      if ((at === 0 || text.charCodeAt(at - 1) === 10) && (end === text.length || text.charCodeAt(end) === 10)) return this.idAt(at);
    }
    return -1;
  }

  /** Ids of the terms longer than `prefix` that begin with it, in id order, at most `limit`. */
  withPrefix(prefix: string, limit: number): number[] {
    const out: number[] = [];
    if (this.count === 0 || prefix.includes("\n") || limit <= 0) return out;
    const { text } = this;
    for (let at = text.indexOf(prefix); at >= 0; at = text.indexOf(prefix, at + 1)) {
      if (at !== 0 && text.charCodeAt(at - 1) !== 10) continue;
      const end = at + prefix.length;
      // Longer than the prefix: the term goes on past it (not the end of the text, not a "\n").
      if (end === text.length || text.charCodeAt(end) === 10) continue;
      out.push(this.idAt(at));
      if (out.length >= limit) break;
    }
    return out;
  }

  /** The id of the term beginning at `at` (a term's start). */
  private idAt(at: number): number {
    return lastAtOrBefore(this.starts, at);
  }
}
