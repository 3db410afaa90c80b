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
  const docs = candidates.map(statsOf);
  let total = 0;
  const df = new Map<string, number>(terms.map((t) => [t, 0]));
  for (const doc of docs) {
    total += doc.length;
    for (const term of terms) if (doc.tf.has(term)) df.set(term, (df.get(term) ?? 0) + 1);
  }
  const avgLength = total / docs.length || 1;
  const idf = new Map(terms.map((t) => {
    const n = df.get(t) ?? 0;
    return [t, Math.log(1 + (docs.length - n + 0.5) / (n + 0.5))] as const;
  }));
  const scored: { memory: StoredMemory; score: number; order: number }[] = [];
  docs.forEach((doc, order) => {
    let score = 0;
    for (const term of terms) {
      const f = doc.tf.get(term) ?? 0;
      if (f === 0) continue;
      score += ((idf.get(term) ?? 0) * f * (K1 + 1)) / (f + K1 * (1 - B + (B * doc.length) / avgLength));
    }
    const memory = candidates[order];
    if (score > 0 && memory !== undefined) scored.push({ memory, score: Math.round(score * 1e6) / 1e6, order });
  });
  scored.sort((a, b) => b.score - a.score || a.order - b.order);
  return scored.map(({ memory, score }) => ({ memory, score }));
}
