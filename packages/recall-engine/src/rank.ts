// Ranking: BM25 over each query token's matches — the token whole, then (lower) the indexed terms it
// begins or its stem begins, then (lower still) the blocks holding all its pieces (a file's too without
// its extension) — stopwords, a compound's parts and a long word's truncation stem (its first six
// letters) only add to blocks already matched, phrases required, a share-of-query factor, a weight per
// block kind (what the user and the tools said first), a relative score floor. Regex: re2js.
import { fileBase, piecesOf, type ParsedQuery } from "./query.js";
import { STOPWORDS } from "./query.js";
import { nearestCoverage, PROXIMITY_WINDOW } from "./proximity.js";
import { holds } from "./quoted-sources.js";
import { stemOf, truncationOf } from "./stem.js";
import { askedShapes, holdsShape } from "./value-shapes.js";
import type { PostingList, TermIndex } from "./term-index.js";
import { MIN_PREFIX } from "./term-prefixes.js";
import type { QueryTerm } from "./tokenizer.js";

export interface ScoredDoc {
  readonly doc: number;
  readonly score: number;
}

const K1 = 1.2;
/**
 * Length normalisation, near full: a pasted document or a whole file read back holds every common word
 * of a question many times over, and without it outranks the short message stating the fact.
 */
const B = 0.9;
/**
 * The length ratio is capped so that a long tool output still surfaces a rare identifier only it holds
 * (a block 16× the average length still scores an eighth of a short one's per term, not nothing).
 */
const MAX_LENGTH_RATIO = 16;
/** Blocks whose text holds the whole multi-word query verbatim get this factor (checked on the top ones). */
const VERBATIM_BOOST = 2;
const VERBATIM_CHECKS = 50;
/** Blocks holding a value of the form the question asks for (value-shapes.ts) get this factor (checked on the top ones). */
const VALUE_BOOST = 2;
const VALUE_CHECKS = 50;
/** Best blocks whose query words are checked for proximity (each check reads the block's text). */
const PROXIMITY_CHECKS = 100;
/** Weight of a compound's parts and of stopwords: they order matches, never create them. */
const PART_WEIGHT = 0.3;
/** A term the token (or its stem) begins: a match, ranked below the token itself. */
const PREFIX_WEIGHT = 0.7;
/** Terms one prefix expands to, at most (oldest first): a short prefix must not scan the vocabulary. */
const PREFIX_LIMIT = 256;
/**
 * A term a long word's truncation stem begins (`stem.ts` truncationOf: `compar` of `comparison` →
 * `compare`), counted only in blocks the rest of the query matched: below a prefix match, and never a
 * match on its own (a word's first letters begin unrelated words too).
 */
const TRUNCATION_WEIGHT = 0.5;

/**
 * The truncation stem of a query token (`truncationOf`), or null: none for a token the tokenizer split
 * into parts (`refreshToken`, `node_modules`: an identifier, matched as typed).
 */
export function truncationOfTerm(term: QueryTerm): string | null {
  return term.parts.length > 0 ? null : truncationOf(term.primary);
}
/** A block holding every piece of a compound token, with the token literally in its text / without. */
const PIECES_LITERAL_WEIGHT = 0.6;
const PIECES_LOOSE_WEIGHT = 0.25;
/** Piece matches checked for the literal token (each check reads the block's text). */
const PIECES_CHECKS = 200;
/** Best blocks asked which tool outputs they quote (each ask may read the block's text once). */
const QUOTE_CHECKS = 20;
/** Prose quoting a source (quoted-sources.ts) restates it: this factor keeps it below the source it lends its score to. */
const RESTATEMENT_WEIGHT = 0.8;
/**
 * What a block's kind weighs. Facts come from what the user said and what the tools returned; the
 * assistant's thinking, its tool arguments and the prose leading in to a call (`blockWeight`) anticipate
 * or restate them (and a summary restates a whole stretch), so where both hold the words the source
 * ranks first. The assistant's reply that ends its work (`text` no call follows) is a source too: it
 * states what was found, done or why, in words no tool printed; where it reads an output back
 * (quoted-sources.ts), RESTATEMENT_WEIGHT puts the output first.
 */
const KIND_WEIGHTS = new Map<string, number>([
  ["user", 1.2],
  ["toolResult", 1],
  ["bash", 1],
  ["text", 1],
  ["toolCall", 0.7],
  ["compaction", 0.7],
  ["branchSummary", 0.7],
  ["custom", 0.7],
  ["thinking", 0.35],
]);
export function kindWeight(kind: string): number {
  return KIND_WEIGHTS.get(kind) ?? 1;
}
/**
 * Prose written as the lead-in to a tool call (the text right before one: "Let me check the config:")
 * announces what the call will find; the reply that ends the assistant's work (prose no call follows)
 * states what was found, done or why, often in words no tool printed. The lead-in weighs this.
 */
const LEAD_IN_WEIGHT = 0.8;

/** What block `kind` weighs when block `next` (the following block's kind, if any) follows it. */
export function blockWeight(kind: string, next: string | undefined): number {
  return kind === "text" && next === "toolCall" ? LEAD_IN_WEIGHT : kindWeight(kind);
}
/** The most any block's kind weighs (the default, 1, included). */
const MAX_KIND_WEIGHT = Math.max(1, ...KIND_WEIGHTS.values());

/** Partial hits scoring under this fraction of the best are dropped (pi-vcc returns hundreds of weak OR hits). */
export const SCORE_FLOOR = 0.3;

/**
 * Tokens a call may hold and still be only a request (a command line, a path, a URL, a search): its
 * result is read with all of its words.
 */
const RELAY_TOKENS = 32;
/** An output this many times shorter than its call (or more) is an acknowledgement of it. */
const RELAY_RATIO = 4;

/**
 * How much of a call's match its result takes. A call that asks (a command, a path) names what its
 * output is about; a call that carries the content itself (an edit's old and new text, a file written)
 * is answered by an acknowledgement ("Successfully replaced text in …") that says none of it. So the
 * share falls as the call outgrows its result: whole while the call is short or the output at least as
 * long, the result's length over the call's beyond.
 */
function relayOf(index: TermIndex, call: number, result: number): number {
  const asked = index.docLength(call);
  if (asked <= RELAY_TOKENS) return 1;
  return Math.min(1, Math.max(RELAY_TOKENS, RELAY_RATIO * index.docLength(result)) / asked);
}

/** The terms of what Pi's bash tool returns for a command that printed nothing, `(no output)`. */
const NO_OUTPUT_TERMS = ["no", "output"];

/**
 * Whether tool result `result` says nothing (no term, or only Pi's `(no output)`): it takes none of its
 * call's words, so the call, which holds them (the path, the command), is the hit rather than a page of
 * `(no output)` lines. Read from the block's length and postings (no text is read: a history reads
 * text from the ledger).
 */
function printedNothing(index: TermIndex, result: number): boolean {
  const length = index.docLength(result);
  if (length === 0) return true;
  if (length !== NO_OUTPUT_TERMS.length) return false;
  return NO_OUTPUT_TERMS.every((term) => {
    const id = index.termId(term);
    return id >= 0 && index.postingListsOf(id).some((list) => holds(list, result));
  });
}

/** Per-document scratch reused across tokens of one query (all zero between tokens). */
interface Scratch {
  readonly token: Float64Array;
  readonly tf: Float64Array;
  readonly hits: Uint8Array;
  /** A compound token's pieces' score per block (see `maxPieces`). */
  readonly piece: Float64Array;
  touched: number[];
}

function idfOf(n: number, df: number): number {
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
}

/** BM25's tf-and-length factor of a block (below K1 + 1 whatever the tf and length). */
function tfFactor(index: TermIndex, avg: number, doc: number, tf: number): number {
  const norm = tf + K1 * (1 - B + B * Math.min(MAX_LENGTH_RATIO, index.docLength(doc) / avg));
  return (tf * (K1 + 1)) / norm;
}

function bm25(index: TermIndex, doc: number, tf: number, idf: number): number {
  return idf * tfFactor(index, index.averageLength || 1, doc, tf);
}

/** Adds the term's BM25 × `weight` to `scores` for in-scope blocks passing `gate`. */
function addBm25(
  index: TermIndex,
  lists: readonly PostingList[],
  weight: number,
  inScope: Uint8Array,
  scores: Float64Array,
  gate: Uint8Array | null,
  touched: number[],
): void {
  if (lists.length === 0) return;
  let df = 0;
  for (let l = 0; l < lists.length; l++) df += (lists[l] as PostingList).length / 2;
  const idf = idfOf(index.docCount, df);
  for (let l = 0; l < lists.length; l++) for (let k = 0, list = lists[l] as PostingList; k < list.length; k += 2) {
    const doc = list[k] as number;
    if (inScope[doc] !== 1) continue;
    if (gate !== null && gate[doc] !== 1) continue;
    if (scores[doc] === 0) touched.push(doc);
    scores[doc] = (scores[doc] as number) + weight * bm25(index, doc, list[k + 1] as number, idf);
  }
}

/**
 * The blocks holding any of the terms `ids`, each once, with their summed term frequency left in
 * `s.tf` (the caller reads and zeroes it): the terms counted as one term.
 */
function unionDocs(index: TermIndex, ids: readonly number[], s: Scratch): number[] {
  const docs: number[] = [];
  // Indexed loops, not for…of: a short search runs this on baseline code, where each step of an array's
  // iterator is an object to collect (a common word's prefix unions hundreds of terms per session).
  for (let i = 0; i < ids.length; i++) for (let l = 0, lists = index.postingListsOf(ids[i] as number); l < lists.length; l++) for (let k = 0, list = lists[l] as PostingList; k < list.length; k += 2) {
    const doc = list[k] as number;
    if (s.tf[doc] === 0) docs.push(doc);
    s.tf[doc] = (s.tf[doc] as number) + (list[k + 1] as number);
  }
  return docs;
}

/**
 * Terms `ids` taken together as one term (tf summed, df of the union): the BM25 of each in-scope block
 * holding any, × `weight`, kept as the block's token score when higher than what it has.
 */
function maxUnion(index: TermIndex, ids: readonly number[], weight: number, inScope: Uint8Array, gate: Uint8Array | null, s: Scratch, out: number[]): void {
  const docs = unionDocs(index, ids, s);
  const idf = idfOf(index.docCount, docs.length);
  for (let i = 0; i < docs.length; i++) {
    const doc = docs[i] as number;
    const tf = s.tf[doc] as number;
    s.tf[doc] = 0;
    if (inScope[doc] !== 1 || (gate !== null && gate[doc] !== 1)) continue;
    const score = weight * bm25(index, doc, tf, idf);
    if (s.token[doc] === 0) out.push(doc);
    if (score > (s.token[doc] as number)) s.token[doc] = score;
  }
}

/** A block its speaker matches to a query word (`user`), ranked as a prefix match of a term held once. */
function maxSpeaker(index: TermIndex, docs: readonly number[], inScope: Uint8Array, gate: Uint8Array | null, s: Scratch, out: number[]): void {
  const idf = idfOf(index.docCount, docs.length);
  for (const doc of docs) {
    if (inScope[doc] !== 1 || (gate !== null && gate[doc] !== 1)) continue;
    const score = PREFIX_WEIGHT * bm25(index, doc, 1, idf);
    if (s.token[doc] === 0) out.push(doc);
    if (score > (s.token[doc] as number)) s.token[doc] = score;
  }
}

/**
 * The terms a query token matches as a prefix (`exact`: its own term's id, left out): the terms its stem
 * (else itself) begins, the PREFIX_LIMIT oldest, and its stem's own term. Scored as one union.
 */
function prefixTerms(index: TermIndex, token: string, exact: number): number[] {
  const stem = stemOf(token);
  const longer = index.termsWithPrefix(stem ?? token, PREFIX_LIMIT).filter((id) => id !== exact);
  if (stem !== null && stem !== token) {
    const same = index.termId(stem);
    if (same >= 0 && same !== exact) longer.push(same);
  }
  return longer;
}

/**
 * What one query token matches, scored into `s.token` (its blocks listed in `out`); returns the terms it
 * matched whole or as a prefix.
 */
function scoreToken(
  index: TermIndex,
  term: QueryTerm,
  inScope: Uint8Array,
  gate: Uint8Array | null,
  s: Scratch,
  out: number[],
  textOf: (doc: number) => string,
  speakerDocs: BlockFacts["speakerDocs"],
): number[] {
  const token = term.primary;
  const spoken = speakerDocs?.(token) ?? null;
  if (spoken !== null) maxSpeaker(index, spoken, inScope, gate, s, out);
  const exact = index.termId(token);
  if (exact >= 0) maxUnion(index, [exact], 1, inScope, gate, s, out);
  const longer = prefixTerms(index, token, exact);
  if (longer.length > 0) maxUnion(index, longer, PREFIX_WEIGHT, inScope, gate, s, out);
  maxPieces(index, token, exact, inScope, gate, s, out, textOf, out.length === 0);
  // A file is also named without its extension (`interactive-mode` for `interactive-mode.ts`): its
  // name is matched as a compound held inside the block's words, never by pieces apart.
  const base = fileBase(token);
  if (base !== null) maxPieces(index, base, exact, inScope, gate, s, out, textOf, false);
  if (exact >= 0) longer.push(exact);
  return longer;
}

/**
 * Query tokens' truncation stems (`truncationOf`): each adds, to the blocks `matched` marks (1: matched
 * by the query's other words) that its token did not match (`byToken`: the token's blocks; `own`: the
 * terms it matched), the terms its truncation stem begins, as one union × TRUNCATION_WEIGHT, and counts
 * towards their coverage. `matched` is left as found.
 */
function addTruncations(index: TermIndex, distinct: readonly QueryTerm[], byToken: readonly (readonly number[])[], own: readonly (readonly number[])[], inScope: Uint8Array, matched: Uint8Array, scores: Float64Array, coverage: Uint8Array, s: Scratch): void {
  for (let t = 0; t < distinct.length; t++) {
    const cut = truncationOfTerm(distinct[t] as QueryTerm);
    if (cut === null) continue;
    const already = new Set(own[t]);
    const ids = index.termsWithPrefix(cut, PREFIX_LIMIT).filter((id) => !already.has(id));
    if (ids.length === 0) continue;
    const mine = byToken[t] as readonly number[];
    for (const doc of mine) matched[doc] = 2;
    const docs: number[] = [];
    maxUnion(index, ids, TRUNCATION_WEIGHT, inScope, matched, s, docs);
    for (const doc of mine) matched[doc] = 1;
    for (const doc of docs) {
      const score = s.token[doc] as number;
      s.token[doc] = 0;
      if (score <= 0) continue;
      scores[doc] = (scores[doc] as number) + score;
      coverage[doc] = (coverage[doc] as number) + 1;
    }
  }
}

/**
 * A compound token (`src/auth`, `examples/custom-tools`, `pi-tui`) also matches the blocks holding it
 * inside a longer token (`src/auth` in `…/src/auth/session.ts`, which no term begins with), found through
 * its pieces, its last piece possibly cut short: kept as the block's token score when higher than its
 * whole or prefix match. Other terms holding or beginning with the token do not stop this: the folder a
 * question names is often written only inside longer paths (`ls …/examples/custom-tools/`). Blocks
 * holding the pieces apart (`orm … drizzle` for `drizzle-orm`) match only when nothing holds the token
 * (`loose`), lowest.
 */
function maxPieces(index: TermIndex, token: string, whole: number, inScope: Uint8Array, gate: Uint8Array | null, s: Scratch, out: number[], textOf: (doc: number) => string, loose: boolean): void {
  const pieces = piecesOf(token);
  if (pieces.length < 2) return;
  const found: number[] = [];
  // Per piece, the blocks holding it and every piece before it ([doc, tf, …]), and its idf: scored once
  // the blocks holding every piece are known, only those (a compound's first piece is often a common
  // word, `src`, held by hundreds of blocks of which a few hold the rest), each block's shares summed in
  // piece order, as when each piece was scored as it was read.
  const held: number[][] = [];
  const idfs: number[] = [];
  for (let p = 0; p < pieces.length; p++) {
    const piece = pieces[p] as string;
    const ids: number[] = [];
    const id = index.termId(piece);
    if (id >= 0) ids.push(id);
    // The last piece may be cut short (`src/au`); when the token has matches of its own, only a last
    // piece no term holds whole is widened, so a common ending (`…-tools`) does not scan the vocabulary.
    if (p === pieces.length - 1 && (loose || id < 0)) ids.push(...index.termsWithPrefix(piece, PREFIX_LIMIT));
    if (ids.length === 0) break;
    const docs = unionDocs(index, ids, s);
    idfs.push(idfOf(index.docCount, docs.length));
    const mine: number[] = [];
    held.push(mine);
    for (const doc of docs) {
      const tf = s.tf[doc] as number;
      s.tf[doc] = 0;
      if (s.hits[doc] !== p || inScope[doc] !== 1 || (gate !== null && gate[doc] !== 1)) continue;
      s.hits[doc] = p + 1;
      if (p === 0) found.push(doc);
      mine.push(doc, tf);
    }
  }
  for (let p = 0; p < held.length; p++) {
    const mine = held[p] as number[];
    const idf = idfs[p] as number;
    for (let k = 0; k < mine.length; k += 2) {
      const doc = mine[k] as number;
      if (s.hits[doc] !== pieces.length) continue;
      s.piece[doc] = (s.piece[doc] as number) + bm25(index, doc, mine[k + 1] as number, idf) / pieces.length;
    }
  }
  const all: number[] = [];
  for (const doc of found) {
    if (s.hits[doc] === pieces.length) all.push(doc);
    else s.piece[doc] = 0;
    s.hits[doc] = 0;
  }
  all.sort((a, b) => (s.piece[b] as number) - (s.piece[a] as number) || b - a);
  // The blocks holding the token literally (inside a longer token) count their occurrences in `s.tf`:
  // the token's own df, so a rare path written inside longer paths ranks as a prefix match of a term
  // that rare, not as its common pieces. A block holding every piece inside one word of its text
  // (`pi-tui` in `…/pi-mono/packages/tui/…`) is marked -1: a loose match, kept even when `loose` is off.
  // A block the token already matched whole or as a prefix holds it literally (a compound has no stem)
  // and scores higher so: counted in the df, its text not read.
  // Those counted are marked in `s.hits` (all zero here), so that the blocks holding the query token whole
  // (`whole`, its term's id, or -1) count too, once each, in scope or not, holding every piece or not
  // (pieces apart from the token are the tokenizer's business): as its whole match's df counts them. The
  // df is thus at least that term's in every session, which its score bound reads from the dictionary
  // alone (`wordsBoundPlan`: the idf of as few blocks as hold the token whole, not of one block).
  let literal = 0;
  let checks = 0;
  for (const doc of all) {
    if ((s.token[doc] as number) > 0) {
      literal++;
      s.hits[doc] = 1;
      continue;
    }
    if (checks++ >= PIECES_CHECKS) continue;
    const text = textOf(doc).toLowerCase();
    const times = occurrences(text, token);
    if (times > 0) {
      literal++;
      s.hits[doc] = 1;
      s.tf[doc] = times;
    } else if (!loose && oneWordHolds(text, pieces)) s.tf[doc] = -1;
  }
  if (whole >= 0) {
    for (let l = 0, lists = index.postingListsOf(whole); l < lists.length; l++) for (let k = 0, list = lists[l] as PostingList; k < list.length; k += 2) {
      const doc = list[k] as number;
      if (s.hits[doc] === 1) continue;
      literal++;
      s.hits[doc] = 1;
    }
    for (let l = 0, lists = index.postingListsOf(whole); l < lists.length; l++) for (let k = 0, list = lists[l] as PostingList; k < list.length; k += 2) s.hits[list[k] as number] = 0;
  }
  for (const doc of all) s.hits[doc] = 0;
  const idf = idfOf(index.docCount, literal);
  for (const doc of all) {
    const mark = s.tf[doc] as number;
    const held = s.piece[doc] as number;
    s.tf[doc] = 0;
    s.piece[doc] = 0;
    let score: number;
    if (mark > 0) score = Math.max(held * PIECES_LITERAL_WEIGHT, PREFIX_WEIGHT * bm25(index, doc, mark, idf));
    else if (loose || mark < 0) score = held * PIECES_LOOSE_WEIGHT;
    else continue;
    if (s.token[doc] === 0) out.push(doc);
    if (score > (s.token[doc] as number)) s.token[doc] = score;
  }
}

/**
 * Whether one whitespace-free stretch of `text` (a path, a URL, an identifier) holds every piece (none
 * holds whitespace). Found from the occurrences of its longest piece (`indexOf`, native), each one's
 * stretch bounded by the whitespace around it and looked at once; the other pieces' first occurrences at
 * or past a stretch's start are kept, and looked for again only once a stretch begins past them: a
 * stretch holds a piece when that occurrence ends inside it (a later one ends later still). Linear in the
 * text, and no stretch copied out: walked character by character on baseline code, a long output read
 * back cost a search ~50× as much.
 */
export function oneWordHolds(text: string, pieces: readonly string[]): boolean {
  let lead = 0;
  for (let k = 1; k < pieces.length; k++) if ((pieces[k] as string).length > (pieces[lead] as string).length) lead = k;
  const first = pieces[lead] as string;
  const next = new Array<number>(pieces.length).fill(-1);
  let from = 0;
  for (;;) {
    const at = text.indexOf(first, from);
    if (at < 0) return false;
    let start = at;
    while (start > 0 && !isSpace(text.charCodeAt(start - 1))) start--;
    let end = at + first.length;
    while (end < text.length && !isSpace(text.charCodeAt(end))) end++;
    if (end - start > 1) {
      let all = true;
      for (let k = 0; k < pieces.length && all; k++) {
        const piece = pieces[k] as string;
        let found = next[k] as number;
        if (found < start) {
          found = text.indexOf(piece, start);
          // None left: no later stretch holds it either.
          if (found < 0) return false;
          next[k] = found;
        }
        all = found + piece.length <= end;
      }
      if (all) return true;
    }
    // Past this stretch (its end is whitespace or the text's end): the next occurrence is in a later one.
    from = end;
  }
}

function isSpace(c: number): boolean {
  return c === 32 || c === 10 || c === 9 || c === 13;
}

/** How many times `needle` occurs in `text` (non-overlapping): one indexOf pass. */
function occurrences(text: string, needle: string): number {
  let times = 0;
  for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + needle.length)) times++;
  return times;
}

function byScoreThenRecent(a: ScoredDoc, b: ScoredDoc): number {
  return b.score - a.score || b.doc - a.doc;
}

/** What ranking knows of the blocks beyond their terms. */
export interface BlockFacts {
  /** Scales a block's score, by its kind (see `kindWeight`). */
  readonly weightOf?: (doc: number) => number;
  /**
   * The tool result answering tool call `doc`, or -1. A result is read with the call that asked for
   * it: the command, path or URL in the call counts as words of the result (`pnpm run typecheck` →
   * the errors it printed), as a field of the same exchange.
   */
  readonly resultOf?: (doc: number) => number;
  /**
   * Blocks a query word names by who said them rather than by their text: `user` (the user's
   * messages: "what did the user say about …"). Null for other words.
   */
  readonly speakerDocs?: (word: string) => readonly number[] | null;
  /**
   * The tool outputs prose block `doc` quotes (see quoted-sources.ts), empty for other blocks. Such an
   * output is ranked at least as high as the prose, before kind weights: the source above its restatement.
   */
  readonly sourcesOf?: (doc: number) => readonly number[];
  /** Whether block `doc` is a failed tool output (an error result, a non-zero exit code): a question asking for a failure wants it. */
  readonly failed?: (doc: number) => boolean;
}

/**
 * A word query's primaries (its content words; all its words when it has none and no phrase) and its
 * boosts (stopwords and compounds' parts, which only add to blocks already matched).
 */
function queryWords(query: Extract<ParsedQuery, { mode: "words" }>): { primaries: readonly QueryTerm[]; boosts: Set<string> } {
  const contentful = query.terms.filter((t) => !STOPWORDS.has(t.primary));
  const primaries = contentful.length > 0 || query.phrases.length > 0 ? contentful : query.terms;
  // Sets: a pasted blob can make a query of 10⁵ tokens, and each is looked up once.
  const isPrimary = new Set(primaries);
  const boosts = new Set<string>();
  for (const t of query.terms) {
    if (!isPrimary.has(t)) boosts.add(t.primary);
    for (const p of t.parts) boosts.add(p);
  }
  return { primaries, boosts };
}

function distinctPrimaries(primaries: readonly QueryTerm[]): QueryTerm[] {
  const seen = new Set<string>();
  return primaries.filter((t) => !seen.has(t.primary) && seen.add(t.primary) !== undefined);
}

/**
 * The fewest blocks any of `lists` says hold its term (one list names each block once): a lower bound of
 * a df that sums or unites them, so the idf of it is an upper bound.
 */
function dfFloor(lists: readonly PostingList[]): number {
  let most = 0;
  for (const list of lists) most = Math.max(most, list.length / 2);
  return most;
}

/**
 * The sum over `lists` of the highest tf-and-length factor of each list's entries: above any factor
 * `addBm25` adds for one block (one per entry holding it), and above the factor of a tf summed over
 * the lists (the factor is concave from 0, so the factor of a sum is at most the sum of factors).
 */
function factorSum(index: TermIndex, lists: readonly PostingList[]): number {
  const avg = index.averageLength || 1;
  let sum = 0;
  for (const list of lists) {
    let best = 0;
    for (let k = 0; k < list.length; k += 2) best = Math.max(best, tfFactor(index, avg, list[k] as number, list[k + 1] as number));
    sum += best;
  }
  return sum;
}

/** Floating-point slack: the bound is compared with scores summed in another order. */
const BOUND_SLACK = 1 + 1e-9;

/**
 * The most `rankWords`'s coverage factor can leave of a block's score when the session can match only
 * `held` of the query's `distinct` primaries (a query word it holds no term of, whole, begun, by its
 * stem or in pieces, gives no block of it coverage: not its own, not a call's result, not a quoted
 * output's): √(held / distinct), 1 for a one-word query.
 */
function coverageReach(held: number, distinct: number): number {
  return distinct > 1 ? Math.sqrt(Math.min(1, held / distinct)) : 1;
}

/**
 * An upper bound of every score `rankWords` can give a block of `index` for `query`, read from the
 * index's vocabulary and the query's terms' postings (tf and block length; no block is scored, no text
 * read). A term's idf is taken from the fewest blocks its df can count, its tf-and-length factor from its
 * best entry (a speaker or pieces match from idf of one block × (K1 + 1)); a block's token score is the best of its
 * matches (speaker, whole, prefix, pieces), a result inherits no more than its call's, coverage scales
 * down to at most √ of the share of words the session can match at all (`coverageReach`), proximity only
 * scales down, a quoted source borrows no more than the best prose's score, then the
 * heaviest kind weight, the asked-value boost and the verbatim boost. `speaks(word)`: whether a word may match blocks by their
 * speaker (`BlockFacts.speakerDocs`). Infinity when the query has phrases (no bound derived for them).
 */
export function wordsScoreBound(index: TermIndex, query: Extract<ParsedQuery, { mode: "words" }>, speaks: (word: string) => boolean): number {
  if (query.phrases.length > 0) return Number.POSITIVE_INFINITY;
  const n = index.docCount;
  const most = (df: number): number => idfOf(n, df) * (K1 + 1);
  // Any scored block holds the term, so df >= 1: the bound of a term whose df is not read.
  const any = most(1);
  const { primaries, boosts } = queryWords(query);
  const distinct = distinctPrimaries(primaries);
  let sum = 0;
  let held = 0;
  for (const term of distinct) {
    const token = term.primary;
    let best = speaks(token) ? PREFIX_WEIGHT * any : 0;
    const exact = index.termId(token);
    if (exact >= 0) {
      const lists = index.postingListsOf(exact);
      best = Math.max(best, idfOf(n, dfFloor(lists)) * Math.min(K1 + 1, factorSum(index, lists)));
    }
    const longer = prefixTerms(index, token, exact);
    if (longer.length > 0) {
      let df = 0;
      let factor = 0;
      for (const id of longer) {
        const lists = index.postingListsOf(id);
        df = Math.max(df, dfFloor(lists));
        factor += factorSum(index, lists);
      }
      best = Math.max(best, PREFIX_WEIGHT * idfOf(n, df) * Math.min(K1 + 1, factor));
    }
    // A truncation stem's terms (`addTruncations`) score where the token's own matches do not, in a
    // multi-word query: bounded as a prefix match of all the terms it begins.
    const cut = distinct.length > 1 ? truncationOfTerm(term) : null;
    if (cut !== null) {
      let df = 0;
      let factor = 0;
      for (const id of index.termsWithPrefix(cut, PREFIX_LIMIT)) {
        const lists = index.postingListsOf(id);
        df = Math.max(df, dfFloor(lists));
        factor += factorSum(index, lists);
      }
      if (factor > 0) best = Math.max(best, TRUNCATION_WEIGHT * idfOf(n, df) * Math.min(K1 + 1, factor));
    }
    // Pieces are summed over their count and scaled by at most the literal weight; the token held
    // inside a longer one is at most a prefix match of a term one block holds (a file's name without its
    // extension, `fileBase`, is such a compound too, and its token has pieces).
    // (Blocks holding the token whole count among those holding it literally: at most the idf of their df.)
    if (piecesOf(token).length >= 2) best = Math.max(best, PIECES_LITERAL_WEIGHT * any, PREFIX_WEIGHT * (exact >= 0 ? most(dfFloor(index.postingListsOf(exact))) : any));
    sum += best;
    if (best > 0) held++;
  }
  for (const term of boosts) {
    const lists = index.postingLists(term);
    if (lists.length > 0) sum += PART_WEIGHT * idfOf(n, dfFloor(lists)) * factorSum(index, lists);
  }
  const value = askedShapes(distinct).length > 0 ? VALUE_BOOST : 1;
  return sum * MAX_KIND_WEIGHT * value * (query.verbatim !== null ? VERBATIM_BOOST : 1) * coverageReach(held, distinct.length) * BOUND_SLACK;
}

/**
 * The heaviest kind weight a block's token scores can end up multiplied by: its own; its result's (a
 * tool result inherits its call's token scores); a tool output's when the block is prose that may quote
 * one (`quotes`: an output comes before it in its turn; the output borrows the prose's score); the
 * user's when the prose may quote the message that opened its turn (`quotesUser`, quoted-sources.ts).
 */
export function weightReach(kind: string, resultKind: string | null, quotes: boolean, quotesUser = false): number {
  let weight = kindWeight(kind);
  if (resultKind !== null) weight = Math.max(weight, kindWeight(resultKind));
  if (quotes) weight = Math.max(weight, kindWeight("toolResult"), kindWeight("bash"));
  if (quotesUser) weight = Math.max(weight, kindWeight("user"));
  return weight;
}

/**
 * An upper bound of what one term's match adds to any block's score for one query token: its idf × the
 * best tf-and-length factor of the blocks holding it × the weight each can reach (`reach`, see
 * `weightReach`). A union of terms (a prefix's, a stem's, a compound's pieces) scores below the sum of
 * its terms' bounds (its df is at least each one's, and the factor of a summed tf at most the sum of
 * factors). The history keeps it per term and session, so a search bounds a session by its dictionary
 * alone (`wordsBoundPlan`). 0 for a term no block holds.
 */
export function termScoreBound(index: TermIndex, lists: readonly PostingList[], reach: (doc: number) => number): number {
  let df = 0;
  for (const list of lists) df += list.length / 2;
  if (df === 0) return 0;
  // (Its idf, termIdf(n, df), is kept beside it: a prefix's union is bounded by the least idf of its terms.)
  const avg = index.averageLength || 1;
  let best = 0;
  for (const list of lists) for (let k = 0; k < list.length; k += 2) {
    const doc = list[k] as number;
    best = Math.max(best, tfFactor(index, avg, doc, list[k + 1] as number) * reach(doc));
  }
  return idfOf(index.docCount, df) * best;
}

/**
 * An upper bound of the prefix match of query token `token` (`term`, a term of `index`): the union of
 * the terms it matches as a prefix (`prefixTerms`), scored as ranking scores it (one idf of the union's
 * df, each block's summed tf), × the weight each block can reach — without PREFIX_WEIGHT. Exact where
 * the per-term bounds can only sum (a common word begins dozens of terms, each rare). The history keeps
 * it per term and session (`TermBounds.union`). 0 when the token matches no longer term.
 */
export function prefixScoreBound(index: TermIndex, term: string, reach: (doc: number) => number): { bound: number; idf: number } {
  return unionScoreBound(index, prefixTerms(index, term, index.termId(term)), reach);
}

/**
 * The same bound for a query token `index` does not hold whose stem is `term`'s (a stem other than
 * `term`): ranking matches such a token by every term its stem begins (`term` among them) and the stem's
 * own term, whatever the token (`prefixTerms` with no term of its own left out). The history keeps it per
 * stem and session (`TermBounds.stemUnion`): a word no session holds (`rotation`) is matched in every
 * session holding its stem's terms (`rotate`, `rotated`, `rotatetoken`…) by one union, far below the sum of
 * their bounds.
 */
export function stemUnionScoreBound(index: TermIndex, term: string, reach: (doc: number) => number): { bound: number; idf: number } {
  return unionScoreBound(index, prefixTerms(index, term, -1), reach);
}

/** The bound of terms `ids` scored as one union (one idf of their union's df, each block's summed tf), × the weight each block can reach. */
function unionScoreBound(index: TermIndex, ids: readonly number[], reach: (doc: number) => number): { bound: number; idf: number } {
  if (ids.length === 0) return { bound: 0, idf: 0 };
  if (unionTf.length < index.docCount) unionTf = new Float64Array(index.docCount * 2);
  const tf = unionTf;
  const docs: number[] = [];
  for (const id of ids) for (const list of index.postingListsOf(id)) for (let k = 0; k < list.length; k += 2) {
    const doc = list[k] as number;
    if (tf[doc] === 0) docs.push(doc);
    tf[doc] = (tf[doc] as number) + (list[k + 1] as number);
  }
  const avg = index.averageLength || 1;
  let best = 0;
  for (const doc of docs) {
    best = Math.max(best, tfFactor(index, avg, doc, tf[doc] as number) * reach(doc));
    tf[doc] = 0;
  }
  const idf = idfOf(index.docCount, docs.length);
  return { bound: idf * best, idf };
}

/** `prefixScoreBound`'s summed tf per block, zeroed after each use (a build asks it for thousands of terms). */
let unionTf = new Float64Array(0);

/** `rankWords`' per-block arrays (see `wordsScratch`). */
interface WordsScratch {
  readonly scores: Float64Array;
  readonly token: Float64Array;
  readonly tf: Float64Array;
  readonly piece: Float64Array;
  readonly hits: Uint8Array;
  readonly coverage: Uint8Array;
  readonly matched: Uint8Array;
}

/** The arrays `wordsScratch` hands out views of, each `capacity` long. */
let rankArrays: (WordsScratch & { readonly capacity: number }) | undefined;

/** Capacity past which the kept arrays are dropped for a search this many times smaller (a 1 GB session's are ~50 MB). */
const SCRATCH_KEEP_BLOCKS = 1 << 16;
const SCRATCH_SHRINK = 4;

/**
 * `rankWords`' per-block arrays (four of numbers, three of marks), all zero: views of `n` blocks over the
 * arrays the last search used, zeroed now, when they are long enough (and not far longer than needed past
 * SCRATCH_KEEP_BLOCKS), else new ones kept for the next. Made anew per search, a session of 1.5 million
 * blocks (the 1 GB bench session) left 48 MB of them behind each search until a collection took them,
 * several searches' worth at a time, and the allocator's heap kept what they freed (eval's 46 searches:
 * ~100 MB more resident); a history search ranks hundreds of sessions of as many sizes, and seven arrays
 * made per session were a good part of its collector's work.
 */
function wordsScratch(n: number): WordsScratch {
  let kept = rankArrays;
  if (kept === undefined || kept.capacity < n || (kept.capacity > SCRATCH_KEEP_BLOCKS && kept.capacity > SCRATCH_SHRINK * n)) {
    kept = { capacity: n, scores: new Float64Array(n), token: new Float64Array(n), tf: new Float64Array(n), piece: new Float64Array(n), hits: new Uint8Array(n), coverage: new Uint8Array(n), matched: new Uint8Array(n) };
    rankArrays = kept;
  } else {
    kept.scores.fill(0, 0, n);
    kept.token.fill(0, 0, n);
    kept.tf.fill(0, 0, n);
    kept.piece.fill(0, 0, n);
    kept.hits.fill(0, 0, n);
    kept.coverage.fill(0, 0, n);
    kept.matched.fill(0, 0, n);
  }
  if (kept.capacity === n) return kept;
  return { scores: kept.scores.subarray(0, n), token: kept.token.subarray(0, n), tf: kept.tf.subarray(0, n), piece: kept.piece.subarray(0, n), hits: kept.hits.subarray(0, n), coverage: kept.coverage.subarray(0, n), matched: kept.matched.subarray(0, n) };
}

/** The idf of a term held by `df` of `n` blocks (what `termScoreBound` multiplies by; the history keeps it beside the bound). */
export function termIdf(n: number, df: number): number {
  return idfOf(n, df);
}

/**
 * What a session's per-term bounds say of some terms: their bounds summed (`termScoreBound`; Infinity
 * where one is not known), the least of their idfs (Infinity for none) and how many they are.
 */
export interface TermsBound {
  readonly bound: number;
  readonly idf: number;
  readonly count: number;
}

/** No terms: no bound, no idf. */
export const NO_TERMS: TermsBound = { bound: 0, idf: Number.POSITIVE_INFINITY, count: 0 };

/** What `wordsBoundPlan` asks of a session's per-term bounds. */
export interface TermBounds {
  /** The term's bound and idf (count 1), or none (0, Infinity, 0) when the session does not hold it. */
  exact(term: string): TermsBound;
  /** The terms longer than `prefix` that begin with it, `except` left out. */
  prefixed(prefix: string, except: string): TermsBound;
  /** The bound of query token `token`'s prefix match as ranking scores it (`prefixScoreBound`), where kept; else null. */
  union?(token: string): number | null;
  /**
   * The bound of the prefix match of a token the session does not hold whose stem is `stem`
   * (`stemUnionScoreBound`), where kept (a term of the session has that stem); else null.
   */
  stemUnion?(stem: string): number | null;
  /**
   * The session's block count (its index's docCount), where known: a compound token held inside a longer
   * one scores by the idf of as few as one block of them (`maxPieces`). Unknown: such a session is unbounded.
   */
  readonly docCount?: number | undefined;
}

/**
 * A bound of the union ranking scores a prefix's terms as (`maxUnion`): below the sum of their bounds,
 * and, when ranking takes every one of them (no more than PREFIX_LIMIT begin the prefix), below the least
 * idf of them × the most a tf-and-length factor and a kind weight reach (the union's df is at least each one's).
 */
function unionBound(prefixed: TermsBound, exact?: TermsBound): number {
  let bound = prefixed.bound;
  let idf = prefixed.idf;
  if (exact !== undefined) {
    bound += exact.bound;
    idf = Math.min(idf, exact.idf);
  }
  return prefixed.count <= PREFIX_LIMIT ? Math.min(bound, idf * (K1 + 1) * MAX_KIND_WEIGHT) : bound;
}

/**
 * An upper bound of every score `rankWords` can give a block of a session, from the session's per-term
 * bounds (`termScoreBound`, weights included) alone: per query token the best of its whole term, 0.7 × its
 * prefix's (and stem's) terms summed, and its pieces' share (a compound held inside a longer token: by the
 * session's block count, `TermBounds.docCount`); plus the boosts' 0.3 × bound; × the verbatim boost; × √ of
 * the share of the query's words the session can match at all (`coverageReach`: a word none of its terms
 * matches covers no block). Proximity only scales down; a call's result and a quoted output are covered by the
 * weights the bounds reach. Infinity when the query has phrases or a word a speaker matches (`speaks`).
 * The query's tokens, stems, prefixes and pieces are worked out once; the function returned gives each
 * session's bound from its per-term bounds.
 */
export function wordsBoundPlan(query: Extract<ParsedQuery, { mode: "words" }>, speaks: (word: string) => boolean): (terms: TermBounds) => number {
  if (query.phrases.length > 0) return () => Number.POSITIVE_INFINITY;
  const { primaries, boosts } = queryWords(query);
  const several = distinctPrimaries(primaries).length > 1;
  const tokens = distinctPrimaries(primaries).map((term) => {
    const token = term.primary;
    const stem = stemOf(token);
    const prefix = stem ?? token;
    const pieces = piecesOf(token);
    const base = fileBase(token);
    return {
      token,
      stem: stem !== null && stem !== token ? stem : null,
      prefix: prefix.length >= MIN_PREFIX ? prefix : null,
      pieces: pieces.length >= 2 ? pieces : null,
      basePieces: base !== null ? piecesOf(base) : null,
      // Scored in a multi-word query only (`addTruncations`).
      cut: several ? truncationOfTerm(term) : null,
      spoken: speaks(token),
    };
  });
  if (tokens.some((t) => t.spoken)) return () => Number.POSITIVE_INFINITY;
  const boostTerms = [...boosts];
  const value = askedShapes(distinctPrimaries(primaries)).length > 0 ? VALUE_BOOST : 1;
  const scale = value * (query.verbatim !== null ? VERBATIM_BOOST : 1) * BOUND_SLACK;
  return (terms) => {
    // Every piece must be held (the last one whole or begun); each adds its share of the bm25 sum (0: not all held).
    const shareOf = (pieces: readonly string[]): number => {
      let share = 0;
      for (let p = 0; p < pieces.length; p++) {
        const piece = pieces[p] as string;
        const whole = terms.exact(piece);
        const held = p === pieces.length - 1 ? unionBound(piece.length >= MIN_PREFIX ? terms.prefixed(piece, piece) : NO_TERMS, whole) : whole.bound;
        if (held === 0) return 0;
        share += held;
      }
      return share;
    };
    // A block holding every piece of a compound may hold the token inside a longer one (`maxPieces`),
    // scored as a prefix match by the idf of as few blocks as hold it literally, its tf-and-length factor
    // below K1 + 1, then by its kind weight (as `wordsScoreBound` bounds it). Those blocks count every block
    // holding the token whole: at most the idf of that term where the session holds it (the code's idf,
    // rounded up), else of one block (a figure of the session's block count alone).
    const n = terms.docCount;
    const literalOf = (whole: TermsBound): number => {
      const idf = Math.min(n === undefined ? Number.POSITIVE_INFINITY : idfOf(n, 1), whole.count > 0 ? whole.idf : Number.POSITIVE_INFINITY);
      return idf === Number.POSITIVE_INFINITY ? idf : PREFIX_WEIGHT * idf * (K1 + 1) * MAX_KIND_WEIGHT;
    };
    let sum = 0;
    let held = 0;
    // Indexed: run per candidate session, on baseline code (an iterator step per token is garbage).
    for (let i = 0; i < tokens.length; i++) {
      const { token, stem, prefix, pieces, basePieces, cut } = tokens[i] as (typeof tokens)[number];
      const whole = terms.exact(token);
      let best = whole.bound;
      // A token the session does not hold is matched by its stem's union alone, whatever the token.
      const kept = terms.union?.(token) ?? (stem !== null && terms.exact(token).count === 0 ? (terms.stemUnion?.(stem) ?? null) : null);
      const longer = kept === null && prefix !== null ? terms.prefixed(prefix, token) : NO_TERMS;
      // The stem itself is no longer than the prefix (it is the prefix): counted apart, unless it is the token.
      best = Math.max(best, PREFIX_WEIGHT * (kept ?? (stem !== null ? unionBound(longer, terms.exact(stem)) : unionBound(longer))));
      // The terms its truncation stem begins, where its own matches are not (`addTruncations`): all of them
      // bounded as one prefix union (those it matched itself included, which only raises the bound).
      if (cut !== null) best = Math.max(best, TRUNCATION_WEIGHT * unionBound(terms.prefixed(cut, token)));
      if (pieces !== null) {
        const share = shareOf(pieces);
        best = Math.max(best, (PIECES_LITERAL_WEIGHT * share) / pieces.length);
        if (share > 0) best = Math.max(best, literalOf(whole));
      }
      // The same for a file's name without its extension (`fileBase`), matched like a compound token.
      if (basePieces !== null) {
        const share = shareOf(basePieces);
        if (share > 0) best = Math.max(best, (PIECES_LITERAL_WEIGHT * share) / basePieces.length, literalOf(whole));
      }
      if (best === Number.POSITIVE_INFINITY) return best;
      sum += best;
      if (best > 0) held++;
    }
    for (const term of boostTerms) sum += PART_WEIGHT * terms.exact(term).bound;
    return sum * scale * coverageReach(held, tokens.length);
  };
}

/**
 * Ranks the blocks of a scope (`inScope[doc] === 1`) for a word/phrase query; `facts` (kind weights,
 * call/result pairs) refine the order.
 */
export function rankWords(
  index: TermIndex,
  query: Extract<ParsedQuery, { mode: "words" }>,
  inScope: Uint8Array,
  textOf: (doc: number) => string,
  facts: BlockFacts = {},
): ScoredDoc[] {
  const { weightOf, resultOf, speakerDocs, sourcesOf, failed } = facts;
  const n = index.docCount;
  const { scores, token, tf, piece, hits, coverage, matched } = wordsScratch(n);
  const touched: number[] = [];
  const { primaries, boosts } = queryWords(query);
  let gate: Uint8Array | null = null;
  if (query.phrases.length > 0) {
    // Phrases are required: intersect their terms' postings, then check the phrase itself.
    const marks = new Uint8Array(n);
    gate = marks;
    // The blocks holding every term of every phrase, in the first term's postings order. A term's blocks
    // are marked in `marks` (the gate to be; zeroed after each term), not gathered in a Set: a common
    // word of a phrase ("no" in "no span left") is held by most of a large session's blocks.
    let candidates: number[] | null = null;
    for (const phrase of query.phrases) {
      for (const term of phrase.terms) {
        const lists = index.postingLists(term);
        if (candidates === null) {
          candidates = [];
          for (const list of lists) for (let k = 0; k < list.length; k += 2) {
            const d = list[k] as number;
            if (marks[d] === 1) continue;
            marks[d] = 1;
            if (inScope[d] === 1) candidates.push(d);
          }
        } else {
          for (const list of lists) for (let k = 0; k < list.length; k += 2) marks[list[k] as number] = 1;
          candidates = candidates.filter((d) => marks[d] === 1);
        }
        for (const list of lists) for (let k = 0; k < list.length; k += 2) marks[list[k] as number] = 0;
      }
    }
    for (const doc of candidates ?? []) {
      const text = textOf(doc);
      if (query.phrases.every((p) => p.pattern.test(text))) gate[doc] = 1;
    }
    for (const phrase of query.phrases) for (const term of phrase.terms) addBm25(index, index.postingLists(term), 1, inScope, scores, gate, touched);
  }
  // Distinct primaries per block: a block naming more of the query ranks above one repeating a common word.
  const distinct = distinctPrimaries(primaries);
  const scratch: Scratch = { token, tf, hits, piece, touched: [] };
  const byToken: number[][] = [];
  const own: number[][] = [];
  for (const term of distinct) {
    const docs: number[] = [];
    byToken.push(docs);
    own.push(scoreToken(index, term, inScope, gate, scratch, docs, textOf, speakerDocs));
    if (resultOf !== undefined) {
      const count = docs.length;
      for (let k = 0; k < count; k++) {
        const call = docs[k] as number;
        const result = resultOf(call);
        if (result < 0 || inScope[result] !== 1 || (gate !== null && gate[result] !== 1)) continue;
        if (printedNothing(index, result)) continue;
        const inherited = (scratch.token[call] as number) * relayOf(index, call, result);
        if (scratch.token[result] === 0) docs.push(result);
        if (inherited > (scratch.token[result] as number)) scratch.token[result] = inherited;
      }
    }
    for (let i = 0; i < docs.length; i++) {
      const doc = docs[i] as number;
      const score = scratch.token[doc] as number;
      scratch.token[doc] = 0;
      if (score <= 0) continue;
      if (scores[doc] === 0) touched.push(doc);
      scores[doc] = (scores[doc] as number) + score;
      coverage[doc] = (coverage[doc] as number) + 1;
    }
  }
  const loose = distinct.length > 1 && distinct.some((t) => truncationOfTerm(t) !== null);
  if (loose || boosts.size > 0) {
    for (const doc of touched) matched[doc] = 1;
    // A long word's looser forms count in the blocks the rest of the query found (a block no other word
    // matched is not found by a word's first letters).
    if (loose) addTruncations(index, distinct, byToken, own, inScope, matched, scores, coverage, scratch);
    for (const term of boosts) addBm25(index, index.postingLists(term), PART_WEIGHT, inScope, scores, matched, touched);
  }
  if (distinct.length > 1) {
    for (let i = 0; i < touched.length; i++) {
      const doc = touched[i] as number;
      const share = Math.min(1, (coverage[doc] as number) / distinct.length);
      // √share: more of the query ranks higher, but a block holding a few rare words of a long
      // question (the tool output that answers it) is not buried under prose repeating its common ones.
      scores[doc] = (scores[doc] as number) * Math.sqrt(share);
    }
  }
  if (distinct.length > 1) {
    // Coverage again, counting only the words one stretch of the text holds together: a long output
    // holding the query's words pages apart falls below the block that holds them in one place. Words
    // matched without being in the text (the speaker, a call's words read with its result) stay counted.
    const keys = distinct.map((t) => stemOf(t.primary) ?? t.primary);
    const order = touched.filter((doc) => (coverage[doc] as number) > 1).sort((a, b) => (scores[b] as number) - (scores[a] as number) || b - a);
    for (const doc of order.slice(0, PROXIMITY_CHECKS)) {
      const text = textOf(doc);
      if (text.length <= PROXIMITY_WINDOW) continue;
      const { found, near } = nearestCoverage(text.toLowerCase(), keys);
      const held = coverage[doc] as number;
      const local = Math.max(1, held - (found - near));
      if (local < held) scores[doc] = (scores[doc] as number) * Math.sqrt(local / held);
    }
  }
  const shapes = askedShapes(distinct);
  if (shapes.length > 0) {
    // A question asking for a version, a hash, a colour or a failure: of the best blocks, those holding
    // a value of that form (or failing) answer it; those only talking about it do not.
    const order = touched.slice().sort((a, b) => (scores[b] as number) - (scores[a] as number) || b - a);
    for (const doc of order.slice(0, VALUE_CHECKS)) {
      if (holdsShape(() => textOf(doc), failed?.(doc) === true, shapes)) scores[doc] = (scores[doc] as number) * VALUE_BOOST;
    }
  }
  // Prose found quoting a source (allocated when one is).
  let restated: Uint8Array | null = null;
  if (sourcesOf !== undefined) {
    // The prose's words are the caption of the output it quotes: the output takes the prose's score and
    // coverage when higher (the prose then weighs RESTATEMENT_WEIGHT at most, which puts the source first).
    const order = touched.slice().sort((a, b) => (scores[b] as number) - (scores[a] as number) || b - a);
    for (const doc of order.slice(0, QUOTE_CHECKS)) {
      const lent = scores[doc] as number;
      for (const source of sourcesOf(doc)) {
        if (inScope[source] !== 1 || (gate !== null && gate[source] !== 1)) continue;
        (restated ??= new Uint8Array(n))[doc] = 1;
        if (scores[source] === 0) touched.push(source);
        if (lent > (scores[source] as number)) scores[source] = lent;
        if ((coverage[doc] as number) > (coverage[source] as number)) coverage[source] = coverage[doc] as number;
      }
    }
  }
  // Prose reading a source back restates it: it weighs no more than RESTATEMENT_WEIGHT, below its source.
  if (weightOf !== undefined) for (let i = 0; i < touched.length; i++) {
    const doc = touched[i] as number;
    scores[doc] = (scores[doc] as number) * (restated?.[doc] === 1 ? Math.min(RESTATEMENT_WEIGHT, weightOf(doc)) : weightOf(doc));
  }
  if (query.verbatim !== null) {
    // Someone pasting a line they remember (an error, a decision) wants the block holding that line.
    const order = touched.slice().sort((a, b) => (scores[b] as number) - (scores[a] as number) || b - a);
    for (const doc of order.slice(0, VERBATIM_CHECKS)) {
      if (query.verbatim.test(textOf(doc))) scores[doc] = (scores[doc] as number) * VERBATIM_BOOST;
    }
  }
  let top = 0;
  for (let i = 0; i < touched.length; i++) top = Math.max(top, scores[touched[i] as number] as number);
  const floor = top * SCORE_FLOOR;
  // The floor drops weak partial hits (a block matching one common word of several, or only a piece of
  // one), never a block holding every word of the query: a long file read back that names the word still
  // answers a one-word search, however far below a short message it ranks.
  const whole = distinct.length;
  const out: ScoredDoc[] = [];
  for (let i = 0; i < touched.length; i++) {
    const doc = touched[i] as number;
    const score = scores[doc] as number;
    if (score > 0 && (score >= floor || (whole > 0 && (coverage[doc] as number) >= whole))) out.push({ doc, score });
  }
  return out.sort(byScoreThenRecent);
}

/** Regex hits: every block in scope the pattern matches (re2js DFA test, linear), most recent first. */
export function rankRegex(query: Extract<ParsedQuery, { mode: "regex" }>, scopeDocs: Uint32Array, textOf: (doc: number) => string, skip?: (doc: number) => boolean): ScoredDoc[] {
  const out: ScoredDoc[] = [];
  for (let k = scopeDocs.length - 1; k >= 0; k--) {
    const doc = scopeDocs[k] as number;
    if (skip?.(doc) === true) continue;
    if (query.pattern.test(textOf(doc))) out.push({ doc, score: 1 });
  }
  return out;
}
