// The union view of a seed index: latest record per seq; a fold-retract voids the records with its seq
// appended before it; a record appended after the retraction reuses the seq and stands.
import type { ReadOutcome } from "./reader.js";
import type { FoldIndexRecord } from "./records.js";

/** Every fold-index record not voided by a later retraction, in file order (superseded ones included). */
export function archivalUnion(outcomes: Iterable<ReadOutcome>): FoldIndexRecord[] {
  const records: (FoldIndexRecord | undefined)[] = [];
  const bySeq = new Map<number, number[]>();
  for (const outcome of outcomes) {
    if (outcome.outcome === "record") {
      const seq = outcome.record.seq;
      const indices = bySeq.get(seq) ?? [];
      indices.push(records.length);
      bySeq.set(seq, indices);
      records.push(outcome.record);
    } else if (outcome.outcome === "retract") {
      for (const index of bySeq.get(outcome.record.seq) ?? []) records[index] = undefined;
      bySeq.delete(outcome.record.seq);
    }
  }
  return records.filter((record): record is FoldIndexRecord => record !== undefined);
}

/** The current view: for each seq, the latest standing record; ordered by seq ascending. */
export function currentView(outcomes: Iterable<ReadOutcome>): FoldIndexRecord[] {
  const latest = new Map<number, FoldIndexRecord>();
  for (const outcome of outcomes) {
    if (outcome.outcome === "record") latest.set(outcome.record.seq, outcome.record);
    else if (outcome.outcome === "retract") latest.delete(outcome.record.seq);
  }
  return [...latest.entries()].sort((a, b) => a[0] - b[0]).map(([, record]) => record);
}

/** One past the highest seq seen in records and retractions; 0 for an empty index. */
export function nextSeq(outcomes: Iterable<ReadOutcome>): number {
  let next = 0;
  for (const outcome of outcomes) {
    if ((outcome.outcome === "record" || outcome.outcome === "retract") && outcome.record.seq + 1 > next) next = outcome.record.seq + 1;
  }
  return next;
}
