// Deterministic lexical recall: BM25 over lightly stemmed word tokens of text + context. Stands in for
// the real server's semantic/keyword/graph fusion, which needs embeddings and an LLM; the stemming lets
// a query in other inflections ("decided", "caches") find a memory ("decide", "cache").
import type { StoredMemory } from "./records.js";

// One class, one quantifier: linear time on any input.
const WORD = /[\p{L}\p{N}_]+/gu;
const LOWER_LETTERS = /^[a-z]+$/;
const VOWEL = /[aeiouy]/;

/**
 * Light English stemming (inflections only, not derivations): plural and verb endings come off, so
 * "decides", "decided", "deciding" and "decide" meet at "decid"; "stories" → "story"; "running" → "run".
 * Only plain a–z words longer than 3 letters are touched, and a stem keeps at least 2 letters and a vowel.
 */
export function stem(word: string): string {
  if (word.length <= 3 || !LOWER_LETTERS.test(word)) return word;
  let w = word;
  const keeps = (s: string): boolean => s.length >= 2 && VOWEL.test(s);
  if (w.endsWith("ies") && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith("sses")) w = w.slice(0, -2);
  else if (w.endsWith("s") && !w.endsWith("ss") && !w.endsWith("us") && !w.endsWith("is") && keeps(w.slice(0, -1))) w = w.slice(0, -1);
  let cut = false;
  if (w.endsWith("ing") && keeps(w.slice(0, -3))) {
    w = w.slice(0, -3);
    cut = true;
  } else if (w.endsWith("ed") && keeps(w.slice(0, -2))) {
    w = w.slice(0, -2);
    cut = true;
  }
  // "stopped" → "stopp" → "stop"; "running" → "runn" → "run" (not "ll"/"ss"/"zz": "called", "passed").
  const last = w[w.length - 1];
  if (cut && w.length >= 3 && last === w[w.length - 2] && last !== undefined && !"aeioulsz".includes(last)) w = w.slice(0, -1);
  if (w.endsWith("e") && keeps(w.slice(0, -1))) w = w.slice(0, -1);
  return w;
}

/** Lower-cased, stemmed word tokens. */
export function tokenize(text: string): string[] {
  return ((text.toLowerCase().match(WORD) ?? []) as string[]).map(stem);
}

export function hasWordCharacter(text: string): boolean {
  WORD.lastIndex = 0;
  return WORD.test(text);
}

export interface ScoredMemory {
  readonly memory: StoredMemory;
  readonly score: number;
}

interface TermStats {
  readonly tf: ReadonlyMap<string, number>;
  readonly length: number;
}

// Stored memories are immutable (a patch stores a new object), so their term counts are computed once.
const STATS = new WeakMap<StoredMemory, TermStats>();

function statsOf(memory: StoredMemory): TermStats {
  let stats = STATS.get(memory);
  if (stats === undefined) {
    const tokens = tokenize(memory.context === null ? memory.text : `${memory.text} ${memory.context}`);
    const tf = new Map<string, number>();
    for (const token of tokens) tf.set(token, (tf.get(token) ?? 0) + 1);
    stats = { tf, length: tokens.length };
    STATS.set(memory, stats);
  }
  return stats;
}

const K1 = 1.2;
const B = 0.75;

/** Rank candidates (already filtered, in list order) by BM25; ties keep the list order. Score > 0 only. */
export function rankLexically(query: string, candidates: readonly StoredMemory[]): ScoredMemory[] {
  const terms = [...new Set(tokenize(query))];
  if (terms.length === 0 || candidates.length === 0) return [];
  // One pass: each candidate's length, and the term frequencies of the candidates that match at all
  // (usually few), so scoring touches only those.
  let total = 0;
  const df = new Array<number>(terms.length).fill(0);
  const matched: { order: number; stats: TermStats; freqs: number[] }[] = [];
  for (let order = 0; order < candidates.length; order++) {
    const stats = statsOf(candidates[order] as StoredMemory);
    total += stats.length;
    let freqs: number[] | undefined;
    for (let t = 0; t < terms.length; t++) {
      const f = stats.tf.get(terms[t] as string);
      if (f === undefined) continue;
      freqs ??= new Array<number>(terms.length).fill(0);
      freqs[t] = f;
      df[t] = (df[t] ?? 0) + 1;
    }
    if (freqs !== undefined) matched.push({ order, stats, freqs });
  }
  const n = candidates.length;
  const avgLength = total / n || 1;
  const idf = df.map((d) => Math.log(1 + (n - d + 0.5) / (d + 0.5)));
  const scored: { memory: StoredMemory; score: number; order: number }[] = [];
  for (const { order, stats, freqs } of matched) {
    let score = 0;
    for (let t = 0; t < terms.length; t++) {
      const f = freqs[t] ?? 0;
      if (f === 0) continue;
      score += ((idf[t] ?? 0) * f * (K1 + 1)) / (f + K1 * (1 - B + (B * stats.length) / avgLength));
    }
    if (score > 0) scored.push({ memory: candidates[order] as StoredMemory, score: Math.round(score * 1e6) / 1e6, order });
  }
  scored.sort((a, b) => b.score - a.score || a.order - b.order);
  return scored.map(({ memory, score }) => ({ memory, score }));
}
