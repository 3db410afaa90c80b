// Needles through recall the way an agent would fetch them: one search for the value (a quoted phrase
// when it has spaces), then one expand of the first page's hits; found only when an expanded block
// is verified against the ledger and holds the value. At most two calls per needle. When the session
// has a seed index, span recall by anchor is tried too (one call, sha256-verified spans).
import { existsSync } from "node:fs";
import type { Block, Session } from "@context-fold/ledger-reader";
import { type BlockVerifier, ledgerVerifier, RecallError, type RecallIndex, spanRecall } from "@context-fold/recall-engine";
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

/** A needle searched: its answer when the search alone settles it, else the hits to expand. */
type Searched = { readonly done: NeedleRecall } | { readonly base: { kind: EvalNeedle["kind"]; value: string; query: string }; readonly needle: EvalNeedle; readonly hits: readonly number[] };

function searchNeedle(index: RecallIndex, needle: EvalNeedle, queryKind: NeedleQueryKind): Searched {
  const query = queryKind === "phrase" ? needleQuery(needle.value) : distinctiveQuery(needle.value, (w) => index.documentFrequency(w));
  const base = { kind: needle.kind, value: needle.value, query };
  const options = needle.onLineage ? {} : { scope: "all" };
  if (query.trim() === "") return { done: { ...base, found: false, calls: 0, reason: "no word to search for" } };
  let hits;
  try {
    hits = index.search(query, options).hits;
  } catch (error) {
    return { done: { ...base, found: false, calls: 1, reason: `search failed: ${error instanceof Error ? error.message : String(error)}` } };
  }
  if (hits.length === 0) return { done: { ...base, found: false, calls: 1, reason: "no hits" } };
  return { base, needle, hits: hits.map((h) => h.index) };
}

function expandNeedle(index: RecallIndex, verify: BlockVerifier, searched: Exclude<Searched, { done: NeedleRecall }>): NeedleRecall {
  const { base, needle, hits } = searched;
  const wanted = collapseWhitespace(needle.value);
  const expanded = index.expand(hits, verify);
  for (const entry of expanded) {
    if (entry.verified && collapseWhitespace(entry.text).includes(wanted)) {
      const rank = hits.indexOf(entry.index) + 1;
      return { ...base, found: true, calls: 2, index: entry.index, rank };
    }
  }
  const unverified = expanded.some((e) => !e.verified && collapseWhitespace(e.text).includes(wanted));
  return { ...base, found: false, calls: 2, reason: unverified ? "found only in a block that failed verification" : `not on the first page of ${String(hits.length)} hit(s)` };
}

/**
 * The verifier of the blocks to expand, made once every needle was searched: given the `#N` of every hit
 * (a verifier over a block table resolves the anchors of those blocks only: see evaluate-streamed.ts).
 */
export type VerifierFor = (hits: readonly number[]) => BlockVerifier;

/**
 * Every needle searched, then the hits of each expanded and verified (`verifierFor` gets them all first).
 * `between` runs after each search and each expand (eval of a large session collects garbage there).
 */
export function recallNeedles(index: RecallIndex, verifierFor: VerifierFor, needles: readonly EvalNeedle[], queryKind: NeedleQueryKind = "phrase", between?: () => void): RecallTally {
  const searched = needles.map((n) => {
    const s = searchNeedle(index, n, queryKind);
    between?.();
    return s;
  });
  const hits: number[] = [];
  for (const s of searched) if (!("done" in s)) hits.push(...s.hits);
  const verify = verifierFor(hits);
  const results = searched.map((s) => {
    if ("done" in s) return s.done;
    const r = expandNeedle(index, verify, s);
    between?.();
    return r;
  });
  return { n: results.length, found: results.filter((r) => r.found).length, maxCalls: Math.max(0, ...results.map((r) => r.calls)), results };
}

export interface SpanRecallTally {
  readonly seedIndex: string;
  /** Lineage needles with an anchor (tool output, assistant parts): the ones a seed index spans. */
  readonly n: number;
  readonly found: number;
  readonly results: readonly NeedleRecall[];
}

/**
 * `ledgerVerifier` over a session served from its block table (`blocks`: each read back from the ledger
 * `file` by byte offset): the blocks carrying the anchors of the `hits` are found in one pass over the
 * table and held in a view with their entries' locations, where the anchor resolution finds them as it
 * does on the whole read (one block: its text re-read and compared; two or more: ambiguous). A block
 * without an anchor is checked against its entry's bytes, which needs nothing but the file.
 */
export function tableVerifier(file: string, blocks: readonly Block[], hits: readonly number[]): BlockVerifier {
  const wanted = new Set<string>();
  for (const n of hits) {
    const anchor = blocks[n]?.anchor;
    if (anchor !== undefined) wanted.add(anchor);
  }
  const held: Block[] = [];
  // Sparse, by entry position: where `blockTextFromFile` finds an entry's bytes.
  const entries: { byteOffset: number; byteLength: number }[] = [];
  if (wanted.size > 0) {
    for (const block of blocks) {
      const anchor = block.anchor;
      if (anchor === undefined || !wanted.has(anchor)) continue;
      held.push(block);
      entries[block.entryPosition] = { byteOffset: block.byteOffset, byteLength: block.byteLength };
    }
  }
  // What ledgerVerifier and resolveAnchor read of a session, for blocks that carry no edit suffix (none does).
  const view = { path: file, withText: false, blocks: held, entries } as unknown as Session;
  return ledgerVerifier(view);
}

/** The anchored lineage needles: the ones span recall tries. */
function anchoredOnLineage(needles: readonly EvalNeedle[]): (EvalNeedle & { readonly anchor: string })[] {
  return needles.filter((n): n is EvalNeedle & { readonly anchor: string } => n.anchor !== undefined && n.onLineage);
}

/**
 * Span recall by anchor for every anchored lineage needle; null when the session (`path`, its id) has no
 * seed index. `sessionFor` gives the session the spans resolve in, asked only when there is a seed index,
 * with the needles' anchors (a large session's view holds only the blocks carrying them: `withAnchoredBlocks`).
 */
export async function spanRecallNeedles(
  where: { readonly path: string; readonly sessionId: string },
  needles: readonly EvalNeedle[],
  sessionFor: (anchors: readonly string[]) => Session | Promise<Session>,
): Promise<SpanRecallTally | null> {
  const seedIndex = seedIndexPath(where.path, where.sessionId);
  if (!existsSync(seedIndex)) return null;
  const anchored = anchoredOnLineage(needles);
  const session = await sessionFor(anchored.map((n) => n.anchor));
  const results: NeedleRecall[] = [];
  for (const needle of anchored) {
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
