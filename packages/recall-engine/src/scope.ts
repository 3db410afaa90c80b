// Scopes: which blocks a query sees (active lineage by default, all branches, or the entries one
// compaction summarized), in `#N` order, cut into conversation segments (a user turn and what followed).
import type { Block } from "@context-fold/ledger-reader";
import { RecallScopeError } from "./errors.js";
import { lastAtOrBefore } from "./sorted-search.js";

export type ScopeSpec = { readonly kind: "lineage" } | { readonly kind: "all" } | { readonly kind: "compaction"; readonly number: number | "latest" };

/** What a scope needs from a read session (a `Session` of @context-fold/ledger-reader has all of it). */
export interface ScopeSource {
  readonly blocks: readonly Block[];
  readonly lineageIds: ReadonlySet<string>;
  /**
   * The recovered view of the active lineage (a `Session`'s `recoveredLineageIds`): what the `lineage`
   * scope searches, so entries Pi dropped from a torn line stay findable. `lineageIds` when absent.
   */
  readonly recoveredLineageIds?: ReadonlySet<string>;
  /**
   * `[#N] === 1` for the blocks on the lineage, when the source keeps it per block (a block table:
   * block-table.ts): the lineage scope is then read from it, not from every block's entry id.
   */
  readonly lineageMask?: () => Uint8Array;
  readonly compactions: readonly {
    readonly number: number;
    readonly segment: { readonly from: number; readonly to: number } | null;
    readonly entryIds: readonly string[];
  }[];
}

export interface ScopeView {
  /** Canonical name: `lineage`, `all`, `compaction:N` (latest resolved to its number). */
  readonly name: string;
  /** Block indices in the scope, ascending. */
  readonly docs: Uint32Array;
  /** `mask[#N] === 1` when block #N is in the scope. */
  readonly mask: Uint8Array;
  /** Positions in `docs` where a conversation segment starts, ascending; first is 0 when non-empty. */
  readonly segmentStarts: Uint32Array;
}

const COMPACTION = /^compaction:(\d+|latest)$/;

export function parseScope(text: string | undefined): ScopeSpec {
  const value = (text ?? "lineage").trim();
  if (value === "lineage" || value === "") return { kind: "lineage" };
  if (value === "all") return { kind: "all" };
  const m = COMPACTION.exec(value);
  if (m === null) throw new RecallScopeError(value, "unknown scope");
  const n = m[1] as string;
  if (n === "latest") return { kind: "compaction", number: "latest" };
  const number = Number(n);
  if (!Number.isSafeInteger(number) || number < 1) throw new RecallScopeError(value, "compactions are numbered from 1");
  return { kind: "compaction", number };
}

/** Blocks that open a segment: a user message, a user `!cmd`, or a compaction/branch summary. */
function opensSegment(block: Block): boolean {
  return block.kind === "user" || block.kind === "bash" || block.kind === "compaction" || block.kind === "branchSummary";
}

export function buildScope(source: ScopeSource, spec: ScopeSpec): ScopeView {
  const blocks = source.blocks;
  const mask = new Uint8Array(blocks.length);
  let name: string;
  if (spec.kind === "all") {
    name = "all";
    mask.fill(1);
  } else if (spec.kind === "lineage") {
    name = "lineage";
    const kept = source.lineageMask?.();
    if (kept?.length === blocks.length) mask.set(kept);
    else {
      const ids = source.recoveredLineageIds ?? source.lineageIds;
      for (const b of blocks) if (ids.has(b.entryId)) mask[b.index] = 1;
    }
  } else {
    const list = source.compactions;
    const chosen = spec.number === "latest" ? list[list.length - 1] : list.find((c) => c.number === spec.number);
    const label = `compaction:${String(spec.number)}`;
    if (chosen === undefined) {
      throw new RecallScopeError(label, list.length === 0 ? "the session has no compactions" : `the session has compactions 1..${String(list.length)}`);
    }
    name = `compaction:${String(chosen.number)}`;
    if (chosen.entryIds.length > 0) {
      const ids = new Set(chosen.entryIds);
      for (const b of blocks) if (ids.has(b.entryId)) mask[b.index] = 1;
    } else if (chosen.segment !== null) {
      for (let i = chosen.segment.from; i <= chosen.segment.to && i < blocks.length; i++) mask[i] = 1;
    }
  }
  let count = 0;
  for (let i = 0; i < mask.length; i++) count += mask[i] as number;
  const docs = new Uint32Array(count);
  const starts: number[] = [];
  let p = 0;
  for (let i = 0; i < mask.length; i++) {
    if (mask[i] !== 1) continue;
    if (p === 0 || opensSegment(blocks[i] as Block)) starts.push(p);
    docs[p++] = i;
  }
  return { name, docs, mask, segmentStarts: Uint32Array.from(starts) };
}

/** Position of block `doc` in `scope.docs` (binary search), or -1. */
export function positionOf(scope: ScopeView, doc: number): number {
  let lo = 0;
  let hi = scope.docs.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = scope.docs[mid] as number;
    if (v === doc) return mid;
    if (v < doc) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** Segment number (index into segmentStarts) holding position `pos`. */
export function segmentOf(scope: ScopeView, pos: number): number {
  return lastAtOrBefore(scope.segmentStarts, pos);
}

/** [first, last] positions of segment `seg`. */
export function segmentRange(scope: ScopeView, seg: number): [number, number] {
  const first = scope.segmentStarts[seg] as number;
  const next = scope.segmentStarts[seg + 1];
  return [first, (next ?? scope.docs.length) - 1];
}
