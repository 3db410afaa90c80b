// The active lineage (root → last entry in file order) and the compaction segments along it.
import type { Block, CompactionSegment, Entry } from "./types.js";

/**
 * Parent chain from `leafId` to its root, returned root first. Stops at a null parent, a self-parent,
 * a parent never seen, or a cycle (which Pi would loop on forever).
 */
export function walkLineage(byId: ReadonlyMap<string, Entry>, leafId: string | null): Entry[] {
  const path: Entry[] = [];
  if (leafId === null) return path;
  const seen = new Set<string>();
  let current = byId.get(leafId);
  while (current !== undefined && !seen.has(current.id)) {
    seen.add(current.id);
    path.push(current);
    current = current.parentId === null || current.parentId === current.id ? undefined : byId.get(current.parentId);
  }
  return path.reverse();
}

function num(value: unknown): number | undefined {
  return typeof value === "number" ? value : undefined;
}

/**
 * Segment k = the lineage entries compaction k summarized: from the previous compaction's kept boundary
 * (its `firstKeptEntryId`, or the entry after it when that is not on the path or is the compaction
 * itself — retain-none) up to this compaction's `firstKeptEntryId` (or up to itself when that is not on
 * the path before it). The first compaction starts at the root.
 */
export function compactionSegments(
  lineage: readonly Entry[],
  blocksOf: (entry: Entry) => readonly Block[],
): CompactionSegment[] {
  const segments: CompactionSegment[] = [];
  const indexOf = new Map<string, number>();
  lineage.forEach((entry, i) => indexOf.set(entry.id, i));
  let start = 0;
  for (let i = 0; i < lineage.length; i++) {
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
  return segments;
}
