// A turn's facts snapshot with each list the turn did not change replaced by the one the last turn's
// snapshot held (equal item by item): the summary's parts (summary-formatter's `SummaryParts`) are kept
// by the identity of the lists they are made of, so a turn's end remakes only the parts of lists that
// changed. The accumulator makes every snapshot afresh; comparing a list costs far less than remaking
// its part (its lines made, merged, sized).
import type { DurableArtifacts, SessionFacts } from "@context-fold/extractors";

/** Snapshot items are plain data: a list of records of strings, numbers and short lists, a few levels deep. */
const DEPTH = 4;

/** `a` and `b` hold the same data (same keys in the same order, same values), compared to `depth` levels. */
function same(a: unknown, b: unknown, depth: number): boolean {
  if (a === b) return true;
  if (depth === 0 || typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!same(a[i], b[i], depth - 1)) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (let i = 0; i < ka.length; i++) {
    const k = ka[i] as string;
    if (k !== kb[i] || !same((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], depth - 1)) return false;
  }
  return true;
}

/** `next`, or `prev` when it holds the same data (so its identity, and the parts made of it, are kept). */
function kept<T>(prev: T, next: T): T {
  return same(prev, next, DEPTH) ? prev : next;
}

/**
 * `next`, or `prev` when it holds the same items; else `next` with each item equal to `prev`'s at the same
 * place replaced by it (lists mostly grow at their end), so what is kept per item (a digest line) is kept.
 */
function keptList<T>(prev: readonly T[], next: readonly T[]): readonly T[] {
  let i = 0;
  const n = Math.min(prev.length, next.length);
  while (i < n && same(prev[i], next[i], DEPTH)) i++;
  if (i === prev.length && i === next.length) return prev;
  if (i === 0) return next;
  const out = next.slice();
  for (let k = 0; k < i; k++) out[k] = prev[k] as T;
  for (let k = i + 1; k < n; k++) if (same(prev[k], next[k], DEPTH)) out[k] = prev[k] as T;
  return out;
}

/** `next` with every list (and small record) equal to `prev`'s replaced by `prev`'s. */
export function sharedWith(
  prev: { readonly facts: SessionFacts; readonly artifacts: DurableArtifacts },
  next: { readonly facts: SessionFacts; readonly artifacts: DurableArtifacts },
): { readonly facts: SessionFacts; readonly artifacts: DurableArtifacts } {
  const p = prev.facts;
  const n = next.facts;
  const anchors = kept(p.anchors, n.anchors);
  const facts: SessionFacts = {
    goal: kept(p.goal, n.goal),
    scopeChanges: keptList(p.scopeChanges, n.scopeChanges),
    preferences: keptList(p.preferences, n.preferences),
    statements: keptList(p.statements, n.statements),
    ...(n.branchSummaries === undefined ? {} : { branchSummaries: keptList(p.branchSummaries ?? [], n.branchSummaries) }),
    files: keptList(p.files, n.files),
    typeCatalog: keptList(p.typeCatalog, n.typeCatalog),
    commits: keptList(p.commits, n.commits),
    outstanding: keptList(p.outstanding, n.outstanding),
    turns: keptList(p.turns, n.turns),
    status: kept(p.status, n.status),
    anchors:
      anchors === p.anchors
        ? anchors
        : { commits: kept(p.anchors.commits, n.anchors.commits), errorIds: kept(p.anchors.errorIds, n.anchors.errorIds), keyFiles: kept(p.anchors.keyFiles, n.anchors.keyFiles) },
    range: n.range,
  };
  const pa = prev.artifacts;
  const na = next.artifacts;
  const artifacts: DurableArtifacts = {
    initialPrompts: keptList(pa.initialPrompts, na.initialPrompts),
    corrections: keptList(pa.corrections, na.corrections),
    errorLedger: keptList(pa.errorLedger, na.errorLedger),
    workingCommands: keptList(pa.workingCommands, na.workingCommands),
    hexConstants: keptList(pa.hexConstants, na.hexConstants),
    files: keptList(pa.files, na.files),
  };
  return { facts, artifacts };
}
