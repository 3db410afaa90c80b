// Scores one session's compaction against its truth file: gathers what the scorer reads — the summary and
// digest, the three file lists (facts, the summary's file section, a seed-index record's `files`), where
// the kept tail starts, and a recall search — and hands them to `scoreTruth`.
import { buildCompactRecord, extractFacts, lastEntryTime } from "@context-fold/extractors";
import { lineageBlocks, type Session } from "@context-fold/ledger-reader";
import type { RecallIndex } from "@context-fold/recall-engine";
import { type CompactResult, parseSummary } from "@context-fold/summary-formatter";
import { lineageCut } from "./ground-truth.js";
import { type PageHit, scoreTruth, type TruthScore } from "./score-truth.js";
import type { SessionTruth, TruthRef } from "./truth-file.js";

/** A record needs a time; the files it lists do not depend on it. */
const ANY_TIME = "1970-01-01T00:00:00.000Z";

/** The summary's file section, or null when the summary is not in our own layout. */
function summaryFiles(summary: string): string[] | null {
  try {
    return parseSummary(summary).files.map((f) => f.path);
  } catch {
    return null;
  }
}

/** Lineage position of the entry a truth item points at (by id, else by line); undefined when off the lineage. */
function positionOf(session: Session, ref: TruthRef, byLine: ReadonlyMap<number, number>, byId: ReadonlyMap<string, number>): number | undefined {
  if (ref.entryId !== null) {
    const p = byId.get(ref.entryId);
    if (p !== undefined) return p;
  }
  return ref.line === null ? undefined : byLine.get(ref.line);
}

/**
 * Recall answers questions over the whole session (`scope: all`): the evidence may sit on a part of the
 * file the active lineage does not reach (an orphaned segment behind a damaged line, another branch).
 */
export const QUESTION_SCOPE = "all";

export function evaluateTruth(session: Session, result: CompactResult, index: RecallIndex, truth: SessionTruth): TruthScore {
  const cwd = session.header.cwd;
  const blocks = lineageBlocks(session);
  const facts = extractFacts(blocks, cwd === undefined ? {} : { cwd }).files.map((f) => f.path);
  const record = buildCompactRecord(session, { seq: 0, scope: "lineage", at: lastEntryTime(session) ?? ANY_TIME });

  const cut = lineageCut(session, result.firstKeptEntryId);
  const byLine = new Map<number, number>();
  session.lineage.forEach((entry, i) => {
    if (!byLine.has(entry.line)) byLine.set(entry.line, i);
  });
  const inTail = (ref: TruthRef): boolean => {
    const p = positionOf(session, ref, byLine, cut.position);
    return p !== undefined && p >= cut.cutAt;
  };
  const firstPage = (query: string): PageHit[] =>
    index.search(query, { scope: QUESTION_SCOPE }).hits.map((h) => ({ entryId: h.entryId, line: session.blocks[h.index]?.line ?? 0 }));

  return scoreTruth(truth, {
    summary: result.summary,
    digest: result.digest,
    cwd: cwd ?? null,
    lists: { facts, summaryFiles: summaryFiles(result.summary), seedIndexFiles: record.files },
    inTail,
    firstPage,
  });
}
