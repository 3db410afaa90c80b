// Needles through recall the way an agent would fetch them: one search for the value (a quoted phrase
// when it has spaces), then one expand of the first page's hits; found only when an expanded block
// is verified against the ledger and holds the value. At most two calls per needle. When the session
// has a seed index, span recall by anchor is tried too (one call, sha256-verified spans).
import { existsSync } from "node:fs";
import type { Session } from "@context-fold/ledger-reader";
import { type BlockVerifier, RecallError, type RecallIndex, spanRecall } from "@context-fold/recall-engine";
import { seedIndexPath } from "@context-fold/seed-index-format";
import type { EvalNeedle } from "./sample-needles.js";
import { collapseWhitespace } from "./text-match.js";
import { distinctiveQuery } from "./truth-queries.js";

export interface NeedleRecall {
  readonly kind: EvalNeedle["kind"];
  readonly value: string;
  /** What was typed into recall. */
  readonly query?: string;
  readonly found: boolean;
  /** Recall calls used (1: the search found nothing to expand; 2: search + expand). */
  readonly calls: number;
  /** `#N` of the verified block that holds it. */
  readonly index?: number;
  /** 1-based rank of that block among the search hits. */
  readonly rank?: number;
  readonly reason?: string;
}

export interface RecallTally {
  readonly n: number;
  readonly found: number;
  readonly maxCalls: number;
  readonly results: readonly NeedleRecall[];
}

/** The query an agent would type for a value. */
export function needleQuery(value: string): string {
  const flat = collapseWhitespace(value);
  const spaced = flat.includes(" ");
  if ((spaced || flat.startsWith("/")) && !flat.includes('"')) return `"${flat}"`;
  return flat;
}

/** How a needle is typed into recall: the whole value as a phrase, or its three most distinctive words. */
export type NeedleQueryKind = "phrase" | "words";

export function recallNeedle(index: RecallIndex, verify: BlockVerifier, needle: EvalNeedle, queryKind: NeedleQueryKind = "phrase"): NeedleRecall {
  const query = queryKind === "phrase" ? needleQuery(needle.value) : distinctiveQuery(needle.value, (w) => index.documentFrequency(w));
  const base = { kind: needle.kind, value: needle.value, query };
  const options = needle.onLineage ? {} : { scope: "all" };
  if (query.trim() === "") return { ...base, found: false, calls: 0, reason: "no word to search for" };
  let hits;
  try {
    hits = index.search(query, options).hits;
  } catch (error) {
    return { ...base, found: false, calls: 1, reason: `search failed: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (hits.length === 0) return { ...base, found: false, calls: 1, reason: "no hits" };
  const wanted = collapseWhitespace(needle.value);
  const expanded = index.expand(
    hits.map((h) => h.index),
    verify,
  );
  for (const entry of expanded) {
    if (entry.verified && collapseWhitespace(entry.text).includes(wanted)) {
      const rank = hits.findIndex((h) => h.index === entry.index) + 1;
      return { ...base, found: true, calls: 2, index: entry.index, rank };
    }
  }
  const unverified = expanded.some((e) => !e.verified && collapseWhitespace(e.text).includes(wanted));
  return { ...base, found: false, calls: 2, reason: unverified ? "found only in a block that failed verification" : `not on the first page of ${String(hits.length)} hit(s)` };
}

export function recallNeedles(index: RecallIndex, verify: BlockVerifier, needles: readonly EvalNeedle[], queryKind: NeedleQueryKind = "phrase"): RecallTally {
  const results = needles.map((n) => recallNeedle(index, verify, n, queryKind));
  return { n: results.length, found: results.filter((r) => r.found).length, maxCalls: Math.max(0, ...results.map((r) => r.calls)), results };
}

export interface SpanRecallTally {
  readonly seedIndex: string;
  /** Lineage needles with an anchor (tool output, assistant parts): the ones a seed index spans. */
  readonly n: number;
  readonly found: number;
  readonly results: readonly NeedleRecall[];
}

/** Span recall by anchor for every anchored lineage needle; null when the session has no seed index. */
export async function spanRecallNeedles(session: Session, needles: readonly EvalNeedle[]): Promise<SpanRecallTally | null> {
  const seedIndex = seedIndexPath(session.path, session.header.id);
  if (!existsSync(seedIndex)) return null;
  const results: NeedleRecall[] = [];
  for (const needle of needles) {
    if (needle.anchor === undefined || !needle.onLineage) continue;
    const base = { kind: needle.kind, value: needle.value, calls: 1 };
    try {
      const { spans } = await spanRecall(session, { anchor: needle.anchor, seedIndex });
      const hit = spans.find((s) => s.verified && s.text !== undefined && s.text.includes(needle.value));
      results.push(
        hit === undefined
          ? { ...base, found: false, reason: spans.length === 0 ? "no span" : `span ${spans[0]?.status ?? "?"} or without the value` }
          : { ...base, found: true, ...(hit.index === undefined ? {} : { index: hit.index }) },
      );
    } catch (error) {
      if (!(error instanceof RecallError)) throw error;
      results.push({ ...base, found: false, reason: error.message });
    }
  }
  return { seedIndex, n: results.length, found: results.filter((r) => r.found).length, results };
}
