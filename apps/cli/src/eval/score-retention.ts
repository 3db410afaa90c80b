// Scores one compaction against the ground truth: which items the summary (and the artifact digest
// re-injected beside it) names, which it only counts with a recall pointer, and which it lost.
import type { GroundTruth, TruthFile } from "./ground-truth.js";
import { COMMAND_MATCH_CHARS } from "./ground-truth.js";
import type { EvalNeedle } from "./sample-needles.js";
import { collapseWhitespace, countedBy, haystackOf, holdsToken, holdsVerbatim, type Haystack, type OmissionLine, omissionLines } from "./text-match.js";

export interface ItemTally {
  readonly n: number;
  /** Named in the summary or the digest. */
  readonly named: number;
  /** Named in the summary text itself. */
  readonly namedInSummary: number;
  /** Not named, but covered by a "… and N more X (recall: …)" line of the right kind. */
  readonly counted: number;
  /** Neither named nor counted (each clipped to 160 characters). */
  readonly missing: readonly string[];
}

export interface FoundingRetention {
  /** false when the summarized part holds no user message. */
  readonly expected: boolean;
  readonly verbatim: boolean;
  readonly inSummary: boolean;
  readonly inDigest: boolean;
}

export interface Retention {
  readonly foundingRequest: FoundingRetention;
  readonly corrections: ItemTally;
  readonly modifiedFiles: ItemTally;
  readonly commits: ItemTally;
  readonly unresolvedErrors: ItemTally & { readonly inTail: number };
  /** Needles of the summarized part found in the summary/digest text (no recall). */
  readonly needlesInSummary: ItemTally;
}

const MISSING_MAX = 160;

function clipped(text: string): string {
  const flat = collapseWhitespace(text);
  return flat.length <= MISSING_MAX ? flat : `${flat.slice(0, MISSING_MAX - 1)}…`;
}

function tally<T>(
  items: readonly T[],
  both: Haystack,
  summary: Haystack,
  holds: (hay: Haystack, item: T) => boolean,
  label: (item: T) => string,
  countable: number,
): ItemTally {
  let named = 0;
  let namedInSummary = 0;
  const notNamed: string[] = [];
  for (const item of items) {
    if (holds(summary, item)) {
      named++;
      namedInSummary++;
    } else if (holds(both, item)) named++;
    else notNamed.push(clipped(label(item)));
  }
  const counted = Math.min(notNamed.length, countable);
  return { n: items.length, named, namedInSummary, counted, missing: notNamed.slice(counted) };
}

function holdsFile(hay: Haystack, file: TruthFile): boolean {
  return file.forms.some((form) => holdsToken(hay.raw, form));
}

function holdsHash(hay: Haystack, hash: string): boolean {
  return holdsToken(hay.raw, hash) || (hash.length > 7 && holdsToken(hay.raw, hash.slice(0, 7)));
}

function accepts(words: readonly string[]): (what: string) => boolean {
  return (what) => words.some((w) => what.toLowerCase().includes(w));
}

const FILE_OMISSIONS = (what: string): boolean => {
  const w = what.toLowerCase();
  return w.includes("modified files") || w.includes("created files") || w === "more files";
};

/** Scores `summary` and `digest` against `truth` and the needles. Pure. */
export function scoreRetention(truth: GroundTruth, needles: readonly EvalNeedle[], summary: string, digest: string): Retention {
  const s = haystackOf(summary);
  const both = haystackOf(summary, digest);
  const omitted: OmissionLine[] = omissionLines(`${summary}\n${digest}`);
  const founding = truth.foundingRequest;
  const inSummary = founding !== null && holdsVerbatim(s, founding.text);
  const inDigest = founding !== null && holdsVerbatim(haystackOf(digest), founding.text);
  const errorText = (e: { text: string; source: string }): string => (e.source === "command" ? collapseWhitespace(e.text).slice(0, COMMAND_MATCH_CHARS) : e.text);
  const windowNeedles = needles.filter((n) => n.inWindow);
  return {
    foundingRequest: { expected: founding !== null, verbatim: inSummary || inDigest, inSummary, inDigest },
    corrections: tally(truth.corrections, both, s, (h, c) => holdsVerbatim(h, c.text), (c) => c.text, countedBy(omitted, accepts(["correction"]))),
    modifiedFiles: tally(truth.modifiedFiles, both, s, holdsFile, (f) => f.path, countedBy(omitted, FILE_OMISSIONS)),
    commits: tally(truth.commits, both, s, (h, c) => holdsHash(h, c.hash), (c) => `${c.hash} ${c.subject}`, countedBy(omitted, accepts(["commit"]))),
    unresolvedErrors: {
      ...tally(truth.unresolvedErrors, both, s, (h, e) => holdsVerbatim(h, errorText(e)), (e) => e.text, countedBy(omitted, accepts(["error", "outstanding"]))),
      inTail: truth.errorsInTail,
    },
    needlesInSummary: tally(windowNeedles, both, s, (h, n) => holdsVerbatim(h, n.value), (n) => n.value, 0),
  };
}
