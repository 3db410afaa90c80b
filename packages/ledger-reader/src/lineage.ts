// The active lineage (root → last entry in file order) and the compaction segments along it.
import { LineageIdSet, LineageIndex } from "./lineage-ids.js";
import type { Block, CompactionSegment, Entry } from "./types.js";

/**
 * The parent Pi walks to: none for a null parent, a self-parent, a parent never seen, or (in the Pi
 * view) a parent recovered from a torn line, which Pi dropped.
 */
function parentOf(byId: ReadonlyMap<string, Entry>, entry: Entry, view: "pi" | "recovered"): Entry | undefined {
  if (entry.parentId === null || entry.parentId === entry.id) return undefined;
  const parent = byId.get(entry.parentId);
  return parent !== undefined && view === "pi" && parent.recovered ? undefined : parent;
}

/**
 * Parent chain from `leafId` to its root, returned root first. Stops at a null parent, a self-parent,
 * a parent never seen, or a cycle (which Pi would loop on forever). In the Pi view (the default) it
 * also stops at an entry recovered from a torn line, as Pi does (it never saw that entry).
 */
export function walkLineage(byId: ReadonlyMap<string, Entry>, leafId: string | null, view: "pi" | "recovered" = "pi"): Entry[] {
  const path: Entry[] = [];
  if (leafId === null) return path;
  const seen = new Set<string>();
  let current = byId.get(leafId);
  while (current !== undefined && !seen.has(current.id)) {
    seen.add(current.id);
    path.push(current);
    current = parentOf(byId, current, view);
  }
  return path.reverse();
}

/**
 * The recovered view of a branch: the parent chain from `leafId` through recovered entries, past a
 * line that does not parse through its readable `id` → `parentId` (`bridges`, from salvage), and — when
 * an orphan's parent is unreadable — `across(orphan)`: the entry the break most likely followed.
 * Returned root first.
 */
export function walkRecovered(
  byId: ReadonlyMap<string, Entry>,
  leafId: string | null,
  bridges: ReadonlyMap<string, string>,
  across: (orphan: Entry) => Entry | undefined = () => undefined,
): Entry[] {
  const path: Entry[] = [];
  if (leafId === null) return path;
  const seen = new Set<string>();
  let current = byId.get(leafId);
  while (current !== undefined && !seen.has(current.id)) {
    seen.add(current.id);
    path.push(current);
    const child = current;
    let parentId = current.parentId === current.id ? null : current.parentId;
    current = undefined;
    while (parentId !== null && !seen.has(parentId)) {
      current = byId.get(parentId);
      if (current !== undefined) break;
      // A damaged line's readable parentId bridges the break; mark the id so a cycle of them ends.
      seen.add(parentId);
      const next = bridges.get(parentId);
      if (next === undefined) {
        // The parent is nowhere readable: cross the break by position.
        current = across(child);
        break;
      }
      parentId = next;
    }
  }
  return path.reverse();
}

function num(value: unknown): number | undefined {
  return typeof value === "number" ? value : undefined;
}

/** Where a segment scan stopped, so a grown lineage only scans its new entries. */
export interface SegmentScan {
  readonly segments: CompactionSegment[];
  /** Lineage index where the next segment starts. */
  readonly start: number;
  /** Lineage entries already scanned. */
  readonly scanned: number;
}

/**
 * Segment k = the lineage entries compaction k summarized: from the previous compaction's kept boundary
 * (its `firstKeptEntryId`, or the entry after it when that is not on the path or is the compaction
 * itself — retain-none) up to this compaction's `firstKeptEntryId` (or up to itself when that is not on
 * the path before it). The first compaction starts at the root. `resume` continues an earlier scan of
 * a prefix of the same lineage.
 */
export function compactionSegments(
  lineage: readonly Entry[],
  blocksOf: (entry: Entry) => readonly Pick<Block, "index">[],
  indexOf: { get(id: string): number | undefined },
  resume: SegmentScan = { segments: [], start: 0, scanned: 0 },
): SegmentScan {
  const segments = resume.segments;
  let start = resume.start;
  for (let i = resume.scanned; i < lineage.length; i++) {
    const entry = lineage[i];
    if (entry === undefined || entry.type !== "compaction") continue;
    const raw = entry.raw;
    const firstKept = typeof raw["firstKeptEntryId"] === "string" ? raw["firstKeptEntryId"] : null;
    const keptAt = firstKept === null ? undefined : indexOf.get(firstKept);
    const end = keptAt !== undefined && keptAt < i ? keptAt : i;
    const summarized = lineage.slice(Math.min(start, end), end);
    let from = Number.POSITIVE_INFINITY;
    let to = Number.NEGATIVE_INFINITY;
    for (const e of summarized) {
      for (const block of blocksOf(e)) {
        if (block.index < from) from = block.index;
        if (block.index > to) to = block.index;
      }
    }
    const segment: { -readonly [K in keyof CompactionSegment]: CompactionSegment[K] } = {
      number: segments.length + 1,
      entryId: entry.id,
      firstKeptEntryId: firstKept,
      summary: typeof raw["summary"] === "string" ? raw["summary"] : "",
      segment: Number.isFinite(from) ? { from, to } : null,
      entryIds: summarized.map((e) => e.id),
    };
    const tokensBefore = num(raw["tokensBefore"]);
    if (tokensBefore !== undefined) segment.tokensBefore = tokensBefore;
    if (typeof raw["fromHook"] === "boolean") segment.fromHook = raw["fromHook"];
    segments.push(segment);
    start = keptAt !== undefined && keptAt < i ? keptAt : i + 1;
  }
  return { segments, start, scanned: lineage.length };
}

/** The active lineage with its id → index map and segment scan, kept between incremental reads. */
export interface LineageState {
  readonly leafId: string | null;
  readonly lineage: Entry[];
  readonly indexOf: Map<string, number>;
  readonly ids: Set<string>;
  readonly scan: SegmentScan;
}

/**
 * The lineage for `leafId`, reusing `previous` when the new leaf descends from an entry on it: only
 * the new part is walked (the common case: appends to the active branch cost what they add).
 */
export function advanceLineage(
  byId: ReadonlyMap<string, Entry>,
  leafId: string | null,
  blocksOf: (entry: Entry) => readonly Pick<Block, "index">[],
  previous: LineageState | undefined,
): LineageState {
  if (previous !== undefined && previous.leafId === leafId) return previous;
  if (previous !== undefined && leafId !== null) {
    const added: Entry[] = [];
    const seen = new Set<string>();
    let current = byId.get(leafId);
    let joinAt: number | undefined;
    while (current !== undefined && !seen.has(current.id)) {
      joinAt = previous.indexOf.get(current.id);
      if (joinAt !== undefined && previous.lineage[joinAt] === current) break;
      joinAt = undefined;
      seen.add(current.id);
      added.push(current);
      current = parentOf(byId, current, "pi");
    }
    if (joinAt === previous.lineage.length - 1) {
      // Extends the previous lineage: grow it in place.
      const { lineage, indexOf, ids } = previous;
      for (const entry of added.reverse()) {
        indexOf.set(entry.id, lineage.length);
        ids.add(entry.id);
        lineage.push(entry);
      }
      return { leafId, lineage, indexOf, ids, scan: compactionSegments(lineage, blocksOf, indexOf, previous.scan) };
    }
  }
  const lineage = walkLineage(byId, leafId);
  const indexOf = new Map<string, number>();
  lineage.forEach((entry, i) => indexOf.set(entry.id, i));
  return { leafId, lineage, indexOf, ids: new Set(indexOf.keys()), scan: compactionSegments(lineage, blocksOf, indexOf) };
}

/**
 * The lineage for `leafId` of a read that is never updated (the shape): the same lineage, ids and
 * segments as `advanceLineage` from scratch, without its id → index map, id set and walk's seen-set
 * (≈60 MB on a 900k-entry session): a lineage index per entry position answers all three. Every
 * entry walked to came from `byId`, one entry per id, so an entry seen twice is an id seen twice.
 */
export function shapeLineage(
  byId: ReadonlyMap<string, Entry>,
  leafId: string | null,
  blocksOf: (entry: Entry) => readonly Pick<Block, "index">[],
  entryCount: number,
): { readonly lineage: Entry[]; readonly ids: ReadonlySet<string>; readonly segments: CompactionSegment[] } {
  const indexByPosition = new Int32Array(entryCount).fill(-1);
  const lineage: Entry[] = [];
  let current = leafId === null ? undefined : byId.get(leafId);
  while (current !== undefined && (indexByPosition[current.position] ?? -1) < 0) {
    indexByPosition[current.position] = lineage.length;
    lineage.push(current);
    current = parentOf(byId, current, "pi");
  }
  lineage.reverse();
  const last = lineage.length - 1;
  for (const entry of lineage) indexByPosition[entry.position] = last - (indexByPosition[entry.position] ?? 0);
  const index = new LineageIndex(byId, indexByPosition);
  return { lineage, ids: new LineageIdSet(lineage, index), segments: compactionSegments(lineage, blocksOf, index).segments };
}
