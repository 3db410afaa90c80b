// Re-locates every span of a seed index's current view in the session ledger and checks its sha256 and
// extent: the check `context-fold verify` runs and recovery tools rely on.
import { resolveAnchor, type Session } from "@context-fold/ledger-reader";
import { verifySpanText, type FoldIndexRecord } from "@context-fold/seed-index-format";

export interface SpanProblem {
  readonly seq: number;
  readonly blockId: string;
  readonly code: string;
  readonly reason: string;
}

export interface SeedVerification {
  /** Spans checked (every span of every record in the current view). */
  readonly spans: number;
  readonly verified: number;
  /** Found in the ledger, but its text no longer matches sha256 or log. */
  readonly mismatched: SpanProblem[];
  /** Not found (or found twice) in the ledger. */
  readonly missing: SpanProblem[];
  /** Spans without sha256 (restored from pre-v2 records): found but served unverified. */
  readonly unverified: SpanProblem[];
}

/** Check the spans of `records` (a current view, see seed-index-format's `currentView`) against `session`. */
export function verifySpans(session: Session, records: readonly FoldIndexRecord[]): SeedVerification {
  let spans = 0;
  let verified = 0;
  const mismatched: SpanProblem[] = [];
  const missing: SpanProblem[] = [];
  const unverified: SpanProblem[] = [];
  for (const record of records) {
    for (const span of record.spans) {
      spans += 1;
      const where = { seq: record.seq, blockId: span.blockId, code: span.code };
      const found = resolveAnchor(session, span.blockId, span.sha256);
      if (found.status === "missing" || found.status === "malformed") {
        missing.push({ ...where, reason: found.reason });
        continue;
      }
      if (found.status === "ambiguous") {
        missing.push({ ...where, reason: `${String(found.candidates.length)} blocks carry this anchor (#${found.candidates.map((b) => b.index).join(", #")})` });
        continue;
      }
      const check = verifySpanText(span, found.text);
      if (check.verified) verified += 1;
      else if (span.sha256 === undefined) unverified.push({ ...where, reason: check.reason ?? "no sha256" });
      else mismatched.push({ ...where, reason: `${check.reason ?? "mismatch"} (block #${String(found.block.index)}, line ${String(found.block.line)})` });
    }
  }
  return { spans, verified, mismatched, missing, unverified };
}
