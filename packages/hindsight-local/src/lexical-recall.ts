// Deterministic lexical recall: BM25 over word tokens of text + context. Stands in for the real
// server's semantic/keyword/graph fusion, which needs embeddings and an LLM.
import type { StoredMemory } from "./records.js";

// One class, one quantifier: linear time on any input.
const WORD = /[\p{L}\p{N}_]+/gu;

export function tokenize(text: string): string[] {
  return (text.toLowerCase().match(WORD) ?? []) as string[];
}

export function hasWordCharacter(text: string): boolean {
  WORD.lastIndex = 0;
  return WORD.test(text);
}

export interface ScoredMemory {
  readonly memory: StoredMemory;
  readonly score: number;
}

const K1 = 1.2;
const B = 0.75;

/** Rank candidates (already filtered, in list order) by BM25; ties keep the list order. Score > 0 only. */
export function rankLexically(query: string, candidates: readonly StoredMemory[]): ScoredMemory[] {
  const terms = [...new Set(tokenize(query))];
  if (terms.length === 0 || candidates.length === 0) return [];
  const docs = candidates.map((memory) => {
    const tokens = tokenize(memory.context === null ? memory.text : `${memory.text} ${memory.context}`);
    const tf = new Map<string, number>();
    for (const token of tokens) tf.set(token, (tf.get(token) ?? 0) + 1);
    return { memory, tf, length: tokens.length };
  });
  const avgLength = docs.reduce((sum, d) => sum + d.length, 0) / docs.length || 1;
  const df = new Map<string, number>();
  for (const term of terms) df.set(term, docs.reduce((n, d) => n + (d.tf.has(term) ? 1 : 0), 0));
  const scored: { memory: StoredMemory; score: number; order: number }[] = [];
  docs.forEach((doc, order) => {
    let score = 0;
    for (const term of terms) {
      const f = doc.tf.get(term) ?? 0;
      if (f === 0) continue;
      const n = df.get(term) ?? 0;
      const idf = Math.log(1 + (docs.length - n + 0.5) / (n + 0.5));
      score += (idf * f * (K1 + 1)) / (f + K1 * (1 - B + (B * doc.length) / avgLength));
    }
    if (score > 0) scored.push({ memory: doc.memory, score: Math.round(score * 1e6) / 1e6, order });
  });
  scored.sort((a, b) => b.score - a.score || a.order - b.order);
  return scored.map(({ memory, score }) => ({ memory, score }));
}
