// The earlier summaries of a lineage folded into one document, the base a new summary merges onto: the
// latest of ours as parsed, each foreign summary after it split at its headings and merged like ours.
// It depends only on those summaries (never on the window being compacted), so a caller that keeps a
// session open folds them once, when a compaction becomes known, and hands the result to each hook.
import { foreignDoc } from "./foreign-summary.js";
import { mergeSummaries } from "./merge-summaries.js";
import { parseOwnSummary } from "./parse-summary.js";
import type { FooterDoc, SummaryDoc } from "./summary-doc.js";

/** A summary written before this compaction: ours (parsed) or foreign (split at its headings); both merged. */
export interface PreviousSummaryInput {
  readonly text: string;
  /** "compaction 2", "file", … */
  readonly label: string;
  /** #N of the compaction block holding it, or null when it came from elsewhere. */
  readonly index: number | null;
  /** `text` already read by `parseOwnSummary` (e.g. once, when the compaction became known); absent: read here. */
  readonly parsed?: SummaryDoc | null;
}

/** The earlier summaries folded, and what they were folded from (to check a prepared base still applies). */
export interface PreviousBase {
  /** null: no earlier summary. */
  readonly doc: SummaryDoc | null;
  /** The base is one of ours (possibly with foreign ones merged after it). */
  readonly ownBase: boolean;
  /** Foreign summaries merged after the latest of ours. */
  readonly foreign: number;
  /** Compaction entry ids the inputs came from, in lineage order (empty when folded from other text). */
  readonly entryIds: readonly string[];
  readonly cwd: string | undefined;
  readonly covers: boolean;
}

/**
 * The footer foreign documents are made with. Only a footer's range survives a merge (`mergeSummaries`
 * takes the rest from the newer document, and the summary's own footer replaces it before fitting), and
 * a foreign summary has none, so the base is the same whatever window it is later merged with.
 */
const NO_FOOTER: FooterDoc = { at: "", messages: 0, windowTokens: 0, summaryTokens: 0, tailMessages: 0, tailTokens: 0, range: null };

/**
 * Fold `previous` (lineage order). `covers`: the new summary's facts cover everything the earlier ones
 * did (lineage-wide extraction), so a foreign goal — a paraphrase of the founding request re-derived
 * from the file — stays in its summary's sections instead of being lifted. Pure.
 */
export function foldPrevious(previous: readonly PreviousSummaryInput[], cwd: string | undefined, covers: boolean, entryIds: readonly string[] = []): PreviousBase {
  // The latest of ours is the base, whatever came before it (it restates it): found from the end, so the
  // summaries before it are neither read nor merged (a long session's hundreds of foreign ones).
  let doc: SummaryDoc | null = null;
  let from = 0;
  for (let i = previous.length - 1; i >= 0; i--) {
    const p = previous[i] as PreviousSummaryInput;
    // Marked as ours but damaged: null, taken as foreign below, never dropped.
    const own = p.parsed !== undefined ? p.parsed : parseOwnSummary(p.text);
    if (own !== null) {
      doc = own;
      from = i + 1;
      break;
    }
  }
  const ownBase = doc !== null;
  let foreign = 0;
  for (let i = from; i < previous.length; i++) {
    const p = previous[i] as PreviousSummaryInput;
    let end = p.text.length;
    while (end > 0 && p.text.charCodeAt(end - 1) === 10) end--;
    const next = foreignDoc(p.text.slice(0, end), p.label, p.index, NO_FOOTER, cwd, !covers);
    doc = doc === null ? next : mergeSummaries(doc, next);
    foreign++;
  }
  return { doc, ownBase, foreign, entryIds, cwd, covers };
}

/** `base` was folded from the summaries of these compaction entries (lineage order), with the same cwd and coverage. */
export function baseApplies(base: PreviousBase, compactions: readonly { readonly entryId: string }[], cwd: string | undefined, covers: boolean): boolean {
  if (base.cwd !== cwd || base.covers !== covers || base.entryIds.length !== compactions.length) return false;
  for (let i = 0; i < compactions.length; i++) if (base.entryIds[i] !== compactions[i]?.entryId) return false;
  return true;
}
