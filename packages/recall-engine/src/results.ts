// Turns ranked blocks into what a reader sees: a page of hits grouped by conversation segment,
// matches marked, neighbours for context, `(context)` segments between nearby matches.
import type { Block } from "@context-fold/ledger-reader";
import type { ParsedQuery } from "./query.js";
import type { ScoredDoc } from "./rank.js";
import { positionOf, segmentOf, segmentRange, type ScopeView } from "./scope.js";

export interface RecallHit {
  /** `#N` */
  readonly index: number;
  readonly entryId: string;
  readonly role: string;
  readonly kind: Block["kind"];
  readonly turn: number;
  /** 1-based rank over all hits. */
  readonly rank: number;
  /** BM25 score rounded to 3 decimals (regex hits: 1). */
  readonly score: number;
  /** One-line excerpt around the first match. */
  readonly text: string;
  /** Session file, for searches across sessions. */
  readonly session?: string;
}

export interface SegmentLine {
  readonly index: number;
  readonly kind: Block["kind"];
  readonly role: string;
  /** `user`, `assistant`, `thinking`, `tool_call read`, `tool_result bash`, `!cmd output`, … */
  readonly label: string;
  readonly matched: boolean;
  readonly preview: string;
  /** Blocks of the segment left out just before this line. */
  readonly skippedBefore: number;
}

export interface ResultSegment {
  /** First and last `#N` of the segment (inclusive). */
  readonly from: number;
  readonly to: number;
  readonly turn: number;
  /** A segment shown only because it sits between two matching ones. */
  readonly context: boolean;
  readonly size: number;
  readonly matched: number;
  readonly lines: readonly SegmentLine[];
  /** Blocks left out after the last line. */
  readonly skippedAfter: number;
  /** Session file, for searches across sessions. */
  readonly session?: string;
}

export interface SearchResult {
  readonly query: string | null;
  readonly mode: "words" | "regex" | "browse";
  readonly scope: string;
  /** Hits over all pages. */
  readonly total: number;
  readonly page: number;
  readonly pages: number;
  readonly pageSize: number;
  readonly hits: readonly RecallHit[];
  readonly segments: readonly ResultSegment[];
  /** Distinct segments holding any hit (all pages). */
  readonly segmentCount: number;
  /** Why the query ran in another mode than it looked like (a regex the engine refused → words). */
  readonly notice?: string;
}

const PREVIEW = 160;
/** Neighbours shown on each side of a match inside a segment. */
const NEIGHBOURS = 1;
const CONTEXT_LINES = 2;

function oneLine(text: string, max: number): string {
  let s = "";
  let space = false;
  for (let i = 0; i < text.length && s.length < max + 1; i++) {
    const c = text.charCodeAt(i);
    if (c === 32 || c === 9 || c === 10 || c === 13) {
      space = s.length > 0;
      continue;
    }
    if (space) s += " ";
    space = false;
    s += text.charAt(i);
  }
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

export function labelOf(block: Block): string {
  switch (block.kind) {
    case "user":
      return "user";
    case "text":
      return "assistant";
    case "thinking":
      return "thinking";
    case "toolCall":
      return `tool_call ${block.toolName ?? "?"}`;
    case "toolResult":
      return `tool_result ${block.toolName ?? "?"}${block.isError === true ? " error" : ""}`;
    case "bash":
      return `!cmd output${block.exitCode !== undefined && block.exitCode !== 0 ? ` exit ${String(block.exitCode)}` : ""}`;
    case "compaction":
      return "compaction summary";
    case "branchSummary":
      return "branch summary";
    case "custom":
      return `custom ${block.role}`;
  }
}

function commandOf(block: Block): string | undefined {
  const command = block.args?.["command"];
  return typeof command === "string" ? command : undefined;
}

/** A block's brief: the first line, with a `!cmd`'s command in front of its output. */
export function briefOf(block: Block, max = PREVIEW): string {
  if (block.kind === "bash") {
    const command = commandOf(block);
    return oneLine(`${command === undefined ? "" : `$ ${command} → `}${block.text}`, max);
  }
  return oneLine(block.text, max);
}

/** Excerpt around the first place the query matches (falls back to the brief). */
export function excerptOf(block: Block, query: ParsedQuery | null, max = PREVIEW): string {
  if (query === null) return briefOf(block, max);
  const text = block.text;
  let at = -1;
  let length = 0;
  if (query.mode === "regex") {
    // Line by line with the DFA test: finding exact bounds over a huge block can be slow in re2js.
    let start = 0;
    for (let lines = 0; start <= text.length && lines < 50_000; lines++) {
      const end = text.indexOf("\n", start);
      const line = text.slice(start, end < 0 ? text.length : end);
      if (query.pattern.test(line)) {
        at = start;
        length = Math.min(line.length, max);
        break;
      }
      if (end < 0) break;
      start = end + 1;
    }
  } else {
    const lower = text.length > 4_000_000 ? text.slice(0, 4_000_000).toLowerCase() : text.toLowerCase();
    const needles = [...query.phrases.map((p) => p.text.toLowerCase()), ...query.terms.map((t) => t.primary)];
    for (const needle of needles) {
      const k = lower.indexOf(needle);
      if (k >= 0 && (at < 0 || k < at)) {
        at = k;
        length = needle.length;
      }
    }
  }
  if (at < 0) return briefOf(block, max);
  const before = Math.max(0, Math.floor((max - length) / 3));
  const from = Math.max(0, at - before);
  const prefix = from > 0 ? "…" : "";
  const body = oneLine(text.slice(from, from + max * 2), max - prefix.length);
  return block.kind === "bash" && from === 0 ? briefOf(block, max) : `${prefix}${body}`;
}

function lineFor(block: Block, matched: boolean, query: ParsedQuery | null, skippedBefore: number): SegmentLine {
  return {
    index: block.index,
    kind: block.kind,
    role: block.role,
    label: labelOf(block),
    matched,
    preview: matched ? excerptOf(block, query) : briefOf(block),
    skippedBefore,
  };
}

function segmentView(blocks: readonly Block[], scope: ScopeView, seg: number, matchedDocs: ReadonlySet<number>, query: ParsedQuery | null, mode: "match" | "context" | "all"): ResultSegment {
  const [first, last] = segmentRange(scope, seg);
  const show = new Set<number>();
  if (mode === "all") for (let p = first; p <= last; p++) show.add(p);
  else if (mode === "context") for (let p = first; p <= Math.min(last, first + CONTEXT_LINES - 1); p++) show.add(p);
  else {
    show.add(first);
    for (let p = first; p <= last; p++) {
      if (!matchedDocs.has(scope.docs[p] as number)) continue;
      for (let q = Math.max(first, p - NEIGHBOURS); q <= Math.min(last, p + NEIGHBOURS); q++) show.add(q);
    }
  }
  const lines: SegmentLine[] = [];
  let skipped = 0;
  let matched = 0;
  for (let p = first; p <= last; p++) {
    const doc = scope.docs[p] as number;
    const isMatch = matchedDocs.has(doc);
    if (isMatch) matched++;
    if (!show.has(p)) {
      skipped++;
      continue;
    }
    lines.push(lineFor(blocks[doc] as Block, isMatch, query, skipped));
    skipped = 0;
  }
  const head = blocks[scope.docs[first] as number] as Block;
  return {
    from: scope.docs[first] as number,
    to: scope.docs[last] as number,
    turn: head.turn,
    context: mode === "context",
    size: last - first + 1,
    matched,
    lines,
    skippedAfter: skipped,
  };
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}

/** One page of hits, grouped: segments in order of their best hit, then `(context)` segments. */
export function buildPage(
  blocks: readonly Block[],
  scope: ScopeView,
  query: ParsedQuery,
  ranked: readonly ScoredDoc[],
  options: { page?: number; pageSize?: number; session?: string } = {},
): SearchResult {
  const pageSize = Math.max(1, Math.floor(options.pageSize ?? 5));
  const total = ranked.length;
  const pages = Math.ceil(total / pageSize);
  const page = Math.min(Math.max(1, Math.floor(options.page ?? 1)), Math.max(1, pages));
  const slice = ranked.slice((page - 1) * pageSize, page * pageSize);
  const segOfDoc = (doc: number): number => segmentOf(scope, positionOf(scope, doc));
  const allSegments = new Set<number>();
  for (const r of ranked) allSegments.add(segOfDoc(r.doc));
  const hits: RecallHit[] = slice.map((r, k) => {
    const b = blocks[r.doc] as Block;
    const hit = { index: b.index, entryId: b.entryId, role: b.role, kind: b.kind, turn: b.turn, rank: (page - 1) * pageSize + k + 1, score: round3(r.score), text: excerptOf(b, query) };
    return options.session === undefined ? hit : { ...hit, session: options.session };
  });
  const order: number[] = [];
  const matchedDocs = new Set<number>();
  for (const r of slice) {
    matchedDocs.add(r.doc);
    const seg = segOfDoc(r.doc);
    if (!order.includes(seg)) order.push(seg);
  }
  const segments = order.map((seg) => segmentView(blocks, scope, seg, matchedDocs, query, "match"));
  const chronological = [...order].sort((a, b) => a - b);
  for (let k = 1; k < chronological.length; k++) {
    const a = chronological[k - 1] as number;
    const b = chronological[k] as number;
    if (b - a === 2) segments.push(segmentView(blocks, scope, a + 1, matchedDocs, query, "context"));
  }
  const notice = query.mode === "words" && query.notice !== undefined ? { notice: query.notice } : {};
  if (options.session !== undefined) {
    const session = options.session;
    return { query: query.text, mode: query.mode, scope: scope.name, total, page, pages, pageSize, hits, segments: segments.map((s) => ({ ...s, session })), segmentCount: allSegments.size, ...notice };
  }
  return { query: query.text, mode: query.mode, scope: scope.name, total, page, pages, pageSize, hits, segments, segmentCount: allSegments.size, ...notice };
}

/** No query: the last `count` blocks of the scope, every one shown. */
export function buildBrowse(blocks: readonly Block[], scope: ScopeView, count = 25): SearchResult {
  const firstPos = Math.max(0, scope.docs.length - count);
  const segments: ResultSegment[] = [];
  if (scope.docs.length > 0) {
    const firstSeg = segmentOf(scope, firstPos);
    const lastSeg = scope.segmentStarts.length - 1;
    for (let seg = firstSeg; seg <= lastSeg; seg++) {
      const view = segmentView(blocks, scope, seg, new Set(), null, "all");
      if (seg !== firstSeg) {
        segments.push(view);
        continue;
      }
      // Cut the first segment at the browse window.
      const lines = view.lines.filter((l) => positionOf(scope, l.index) >= firstPos);
      const cut = view.lines.length - lines.length;
      const head = lines[0];
      segments.push({ ...view, lines: head === undefined ? lines : [{ ...head, skippedBefore: cut }, ...lines.slice(1)] });
    }
  }
  const shown = scope.docs.length - firstPos;
  return { query: null, mode: "browse", scope: scope.name, total: shown, page: 1, pages: shown > 0 ? 1 : 0, pageSize: count, hits: [], segments, segmentCount: segments.length };
}
