// Ranking: BM25 over primary terms (rare terms weigh more), parts and stopwords only add to blocks
// already matched, phrases required, a relative score floor against long weak OR tails. Regex: re2js.
import type { ParsedQuery } from "./query.js";
import { STOPWORDS } from "./query.js";
import type { TermIndex } from "./term-index.js";

export interface ScoredDoc {
  readonly doc: number;
  readonly score: number;
}

const K1 = 1.2;
const B = 0.75;
/** Long tool outputs would otherwise bury a rare identifier they hold: cap the length ratio. */
const MAX_LENGTH_RATIO = 4;
/** Blocks whose text holds the whole multi-word query verbatim get this factor (checked on the top ones). */
const VERBATIM_BOOST = 2;
const VERBATIM_CHECKS = 50;
/** Weight of a compound's parts and of stopwords: they order matches, never create them. */
const PART_WEIGHT = 0.3;
/** Hits scoring under this fraction of the best are dropped (pi-vcc returns hundreds of weak OR hits). */
export const SCORE_FLOOR = 0.3;

function addBm25(
  index: TermIndex,
  term: string,
  weight: number,
  inScope: Uint8Array,
  scores: Float64Array,
  gate: Uint8Array | null,
  touched: number[],
  coverage: Uint8Array | null = null,
): void {
  const lists = index.postingLists(term);
  if (lists.length === 0) return;
  const n = index.docCount;
  const df = index.documentFrequency(term);
  const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
  const avg = index.averageLength || 1;
  for (const list of lists) for (let k = 0; k < list.length; k += 2) {
    const doc = list[k] as number;
    if (inScope[doc] !== 1) continue;
    if (gate !== null && gate[doc] !== 1) continue;
    const tf = list[k + 1] as number;
    const norm = tf + K1 * (1 - B + B * Math.min(MAX_LENGTH_RATIO, index.docLength(doc) / avg));
    if (scores[doc] === 0) touched.push(doc);
    if (coverage !== null) coverage[doc] = (coverage[doc] as number) + 1;
    scores[doc] = (scores[doc] as number) + (weight * idf * (tf * (K1 + 1))) / norm;
  }
}

function byScoreThenRecent(a: ScoredDoc, b: ScoredDoc): number {
  return b.score - a.score || b.doc - a.doc;
}

/** Ranks the blocks of a scope (`inScope[doc] === 1`) for a word/phrase query. */
export function rankWords(index: TermIndex, query: Extract<ParsedQuery, { mode: "words" }>, inScope: Uint8Array, textOf: (doc: number) => string): ScoredDoc[] {
  const scores = new Float64Array(index.docCount);
  const touched: number[] = [];
  const contentful = query.terms.filter((t) => !STOPWORDS.has(t.primary));
  const primaries = contentful.length > 0 || query.phrases.length > 0 ? contentful : query.terms;
  const boosts: string[] = [];
  for (const t of query.terms) {
    if (!primaries.includes(t)) boosts.push(t.primary);
    for (const p of t.parts) boosts.push(p);
  }
  let gate: Uint8Array | null = null;
  if (query.phrases.length > 0) {
    // Phrases are required: intersect their terms' postings, then check the phrase itself.
    gate = new Uint8Array(index.docCount);
    let candidates: number[] | null = null;
    for (const phrase of query.phrases) {
      for (const term of phrase.terms) {
        const docs = new Set<number>();
        for (const list of index.postingLists(term)) for (let k = 0; k < list.length; k += 2) docs.add(list[k] as number);
        candidates = candidates === null ? [...docs].filter((d) => inScope[d] === 1) : candidates.filter((d) => docs.has(d));
      }
    }
    for (const doc of candidates ?? []) {
      const text = textOf(doc);
      if (query.phrases.every((p) => p.pattern.test(text))) gate[doc] = 1;
    }
    for (const phrase of query.phrases) for (const term of phrase.terms) addBm25(index, term, 1, inScope, scores, gate, touched);
  }
  // Distinct primaries per block: a block naming more of the query ranks above one repeating a common word.
  const coverage = new Uint8Array(index.docCount);
  const distinct = [...new Set(primaries.map((t) => t.primary))];
  for (const term of distinct) addBm25(index, term, 1, inScope, scores, gate, touched, coverage);
  if (boosts.length > 0) {
    const matched = new Uint8Array(index.docCount);
    for (const doc of touched) matched[doc] = 1;
    for (const term of boosts) addBm25(index, term, PART_WEIGHT, inScope, scores, matched, touched);
  }
  if (distinct.length > 1) {
    for (const doc of touched) {
      const share = Math.min(1, (coverage[doc] as number) / distinct.length);
      scores[doc] = (scores[doc] as number) * share * share;
    }
  }
  if (query.verbatim !== null) {
    // Someone pasting a line they remember (an error, a decision) wants the block holding that line.
    const order = touched.slice().sort((a, b) => (scores[b] as number) - (scores[a] as number) || b - a);
    for (const doc of order.slice(0, VERBATIM_CHECKS)) {
      if (query.verbatim.test(textOf(doc))) scores[doc] = (scores[doc] as number) * VERBATIM_BOOST;
    }
  }
  let top = 0;
  for (const doc of touched) top = Math.max(top, scores[doc] as number);
  const floor = top * SCORE_FLOOR;
  const out: ScoredDoc[] = [];
  for (const doc of touched) {
    const score = scores[doc] as number;
    if (score > 0 && score >= floor) out.push({ doc, score });
  }
  return out.sort(byScoreThenRecent);
}

/** Regex hits: every block in scope the pattern matches (re2js DFA test, linear), most recent first. */
export function rankRegex(query: Extract<ParsedQuery, { mode: "regex" }>, scopeDocs: Uint32Array, textOf: (doc: number) => string): ScoredDoc[] {
  const out: ScoredDoc[] = [];
  for (let k = scopeDocs.length - 1; k >= 0; k--) {
    const doc = scopeDocs[k] as number;
    if (query.pattern.test(textOf(doc))) out.push({ doc, score: 1 });
  }
  return out;
}
