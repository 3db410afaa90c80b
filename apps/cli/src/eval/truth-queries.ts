// The queries the evaluation types into recall, made the way an agent would type them rather than by
// quoting what it is looking for: a question becomes its five longest non-stop words; a needle (a value
// the agent half-remembers) its three most distinctive words, the ones rarest in the session's index.
import { queryTerms, STOPWORDS } from "@context-fold/recall-engine";

/** Words of a question that make its query. */
export const QUESTION_WORDS = 5;
/** Words of a needle that make its distinctive-word query. */
export const NEEDLE_WORDS = 3;

/** Characters stripped from both ends of a word: sentence punctuation, quotes and brackets. */
const EDGE = new Set([..."?!.,;:\"'`()[]{}<>“”‘’«»"]);

/** Whitespace-separated words with surrounding punctuation stripped, in order; empty ones dropped. One pass per word. */
export function plainWords(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.split(/\s+/)) {
    let a = 0;
    let b = raw.length;
    while (a < b && EDGE.has(raw[a] ?? "")) a++;
    while (b > a && EDGE.has(raw[b - 1] ?? "")) b--;
    if (b > a) out.push(raw.slice(a, b));
  }
  return out;
}

function isStopWord(word: string): boolean {
  return STOPWORDS.has(word.toLowerCase());
}

/** Distinct (case-insensitive) non-stop words with their first position. */
function candidates(text: string): { word: string; at: number }[] {
  const seen = new Set<string>();
  const out: { word: string; at: number }[] = [];
  plainWords(text).forEach((word, at) => {
    const lower = word.toLowerCase();
    if (isStopWord(word) || seen.has(lower)) return;
    seen.add(lower);
    out.push({ word, at });
  });
  return out;
}

/** The `n` chosen words, put back in the order the text has them. */
function inTextOrder(chosen: readonly { word: string; at: number }[]): string {
  return [...chosen]
    .sort((a, b) => a.at - b.at)
    .map((c) => c.word)
    .join(" ");
}

/** A question's query: its five longest non-stop words (ties: the earlier word), in the question's order. */
export function questionQuery(question: string, n = QUESTION_WORDS): string {
  const words = candidates(question);
  const chosen = [...words].sort((a, b) => b.word.length - a.word.length || a.at - b.at).slice(0, n);
  return inTextOrder(chosen);
}

/**
 * A needle's distinctive-word query: of its words as the index splits them (`queryTerms`: lower-cased
 * whole tokens), the three non-stop ones held by the fewest blocks of the session (`documentFrequency`);
 * a word no block holds whole ranks after every held word. Ties: the longer word, then the earlier one.
 * In the needle's order.
 */
export function distinctiveQuery(value: string, documentFrequency: (word: string) => number, n = NEEDLE_WORDS): string {
  const seen = new Set<string>();
  const words: { word: string; at: number; df: number }[] = [];
  queryTerms(value).forEach((t, at) => {
    if (STOPWORDS.has(t.primary) || seen.has(t.primary)) return;
    seen.add(t.primary);
    const df = documentFrequency(t.primary);
    words.push({ word: t.primary, at, df: df > 0 ? df : Number.POSITIVE_INFINITY });
  });
  const chosen = [...words].sort((a, b) => a.df - b.df || b.word.length - a.word.length || a.at - b.at).slice(0, n);
  return inTextOrder(chosen);
}
