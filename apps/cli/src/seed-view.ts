// Reading a seed index for a command: records whole for a session read whole, or, for a session that
// streams (see STREAM_ABOVE_BYTES), every record without its spans — an `index` record of a 1 GB session
// is one 213 MB line of a million spans, 1.5 GB as objects — which are read back from the file span by
// span (`forEachSpan`, `recordSpans`) when the answer needs them.
import { type FoldIndexRecord, type LeanReadOutcome, readSeedIndexFileLean, type SpansInFile } from "@context-fold/seed-index-format";

/**
 * Outcomes of a seed index ([] when it does not exist yet). With `lean` every record comes without its
 * spans (`spansInFile` says where they are; read them with `forEachSpan`); otherwise every line is read
 * whole, in one parse (a scanned line costs a parse per span, twice: 1.15× the CPU of `verify` on the
 * 100 MB bench session).
 */
export async function readIndexOutcomes(file: string, lean = false): Promise<{ outcomes: LeanReadOutcome[]; exists: boolean }> {
  return await readSeedIndexFileLean(file, { holdLineUpTo: lean ? 0 : Number.POSITIVE_INFINITY });
}

/** Where each record of `outcomes` left its spans (records that hold theirs are absent). */
export function spansInFileOf(outcomes: readonly LeanReadOutcome[]): Map<FoldIndexRecord, SpansInFile> {
  const where = new Map<FoldIndexRecord, SpansInFile>();
  for (const o of outcomes) if (o.outcome === "record" && o.spansInFile !== undefined) where.set(o.record, o.spansInFile);
  return where;
}
