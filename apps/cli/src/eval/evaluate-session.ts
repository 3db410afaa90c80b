// One session's retention evaluation: compact it, score the summary against the ledger's ground truth,
// fetch every needle through recall, and (with rounds > 1) compact again and again at growing cut
// points along the lineage, each time feeding the previous summary, then score the last one.
import { readFileSync } from "node:fs";
import { parseSessionText, type Session } from "@context-fold/ledger-reader";
import { ledgerVerifier, RecallIndex } from "@context-fold/recall-engine";
import { createFactsAccumulator } from "@context-fold/extractors";
import { compactSession, compactWithFacts, type CompactOptions, type CompactResult, estimateTokens, planCut, SummaryError } from "@context-fold/summary-formatter";
import type { EvalManifest } from "./eval-manifest.js";
import { evaluateTruth } from "./evaluate-truth.js";
import type { TruthScore } from "./score-truth.js";
import type { SessionTruth } from "./truth-file.js";
import { type GroundTruth, groundTruth } from "./ground-truth.js";
import { recallNeedles, type RecallTally, spanRecallNeedles, type SpanRecallTally } from "./recall-check.js";
import { type Retention, scoreRetention } from "./score-retention.js";
import { type EvalNeedle, manifestNeedles, sampleNeedles } from "./sample-needles.js";

export interface EvalOptions {
  /** The generator's manifest for this session: needles and errors open at the end. */
  readonly manifest?: EvalManifest;
  /** Compactions in the repeated chain (default 1: the single compaction only). */
  readonly rounds?: number;
  /**
   * What each round extracts facts from: "window" (default) = only the blocks since the previous
   * round's cut, so everything older survives only through the merged previous summary; "lineage" =
   * the whole lineage before the cut every time (the CLI's `compact` path).
   */
  readonly roundFacts?: RoundFacts;
  /** Summary budget in tokens (the formatter's default when absent). */
  readonly budget?: number;
  /** Hand-written truth for this session (its sha256 already checked): scored against the single compaction. */
  readonly truth?: SessionTruth;
  /** Milliseconds from any fixed origin (e.g. performance.now): time is an input, never read here. */
  readonly clock: () => number;
}

export type RoundFacts = "window" | "lineage";

export interface CompactionEval {
  readonly firstKeptEntryId: string;
  /** Blocks of the lineage before the cut: what the summary stands for. */
  readonly windowBlocks: number;
  readonly summaryTokens: number;
  readonly digestTokens: number;
  /** Estimated tokens of the lineage's context before compaction. */
  readonly tokensBefore: number;
  /** Summary + kept tail. */
  readonly tokensAfter: number;
  /** tokensBefore / tokensAfter. */
  readonly ratio: number;
  readonly withinBudget: boolean;
  readonly retention: Retention;
}

export interface EvalRound {
  readonly round: number;
  /** The lineage entry the session ended at for this round (its leaf). */
  readonly leafEntryId: string;
  readonly lineageEntries: number;
  /** null when there was nothing to compact yet at this point (the chain goes on without it). */
  readonly firstKeptEntryId: string | null;
  readonly summaryTokens: number;
  readonly compactMs: number;
}

export interface EvalTimes {
  readonly groundTruthMs: number;
  readonly compactMs: number;
  readonly recallIndexMs: number;
  readonly recallMs: number;
  readonly recallPerNeedleMs: number;
  readonly roundsMs: number;
  /** Scoring against the truth file (0 without one). */
  readonly truthMs: number;
}

export interface Floors {
  readonly foundingRequest: boolean;
  readonly commits: boolean;
  readonly needlesViaRecall: boolean;
  /** Every floor against the truth file held (`truth.floors`); null without a truth file. */
  readonly truth: boolean | null;
}

export interface SessionEval {
  readonly file: string;
  readonly sessionId: string;
  readonly entries: number;
  readonly blocks: number;
  readonly lineageEntries: number;
  readonly needleSource: "manifest" | "sampled";
  readonly needles: number;
  readonly single: CompactionEval;
  /** Needles searched as the whole value (a quoted phrase when it has spaces): what the floor is on. */
  readonly needlesViaRecall: RecallTally;
  /** The same needles searched by their three most distinctive words (rarest in the session's index), beside it. */
  readonly needlesViaWords: RecallTally;
  /** Span recall by anchor (one call each) when the session has a seed index; null otherwise. */
  readonly needlesViaSpanRecall: SpanRecallTally | null;
  readonly repeated: { readonly roundFacts: RoundFacts; readonly rounds: readonly EvalRound[]; readonly final: CompactionEval } | null;
  /** Scores against the hand-written truth file (`--truth`); null without one. */
  readonly truth: TruthScore | null;
  readonly floors: Floors;
  readonly times: EvalTimes;
}

function ratio(before: number, after: number): number {
  return after > 0 ? Number((before / after).toFixed(2)) : 0;
}

export function scored(result: CompactResult, truth: GroundTruth, needles: readonly EvalNeedle[]): CompactionEval {
  return {
    firstKeptEntryId: result.firstKeptEntryId,
    windowBlocks: truth.windowBlocks,
    summaryTokens: estimateTokens(result.summary),
    digestTokens: estimateTokens(result.digest),
    tokensBefore: result.tokensBefore,
    tokensAfter: result.estimatedTokensAfter,
    ratio: ratio(result.tokensBefore, result.estimatedTokensAfter),
    withinBudget: result.stats.summary.withinBudget,
    retention: scoreRetention(truth, needles, result.summary, result.digest),
  };
}

function needlesFor(session: Session, cutEntryId: string | null, manifest: EvalManifest | undefined): EvalNeedle[] {
  return manifest === undefined ? sampleNeedles(session, cutEntryId) : manifestNeedles(session, cutEntryId, manifest);
}

/** Floors other issues promise: founding request kept, every commit named or counted, every needle recalled. */
export function floorsOf(single: CompactionEval, recall: RecallTally, final: CompactionEval | null, truth: TruthScore | null = null): Floors {
  const ok = (c: CompactionEval): { founding: boolean; commits: boolean } => ({
    founding: !c.retention.foundingRequest.expected || c.retention.foundingRequest.verbatim,
    commits: c.retention.commits.named + c.retention.commits.counted === c.retention.commits.n,
  });
  const a = ok(single);
  const b = final === null ? a : ok(final);
  return { foundingRequest: a.founding && b.founding, commits: a.commits && b.commits, needlesViaRecall: recall.found === recall.n, truth: truth === null ? null : truth.floors.held };
}

/** The session as it stood when its lineage reached `lineageIndex` (a byte prefix of the file, parsed). */
function prefixSession(session: Session, bytes: Uint8Array, lineageIndex: number): Session {
  const entry = session.lineage[lineageIndex];
  if (entry === undefined) return session;
  const end = entry.byteOffset + entry.byteLength;
  const text = `${Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(end, bytes.byteLength)).toString("utf8")}\n`;
  // A fragment (read with `fragment: true`) has no header line: its prefix gets the one made up for it,
  // so the rounds read it as the same session (same id, same #N: a header has no blocks).
  const header = session.header.fragment === true ? `${JSON.stringify(session.header.raw)}\n` : "";
  return parseSessionText(header + text, session.path);
}

/**
 * One round of the chain. "window": facts and artifacts from the blocks after `after` (#N) only, the
 * previous summary carrying the rest. Returns null when there is nothing to compact yet.
 */
function compactRound(session: Session, options: CompactOptions, roundFacts: RoundFacts, after: number): { result: CompactResult; lastIndex: number } | null {
  try {
    const plan = planCut(session, options.keepTail === undefined ? {} : { keepTail: options.keepTail });
    const lastIndex = plan.lineageBefore[plan.lineageBefore.length - 1]?.index ?? after;
    if (roundFacts === "lineage") return { result: compactSession(session, options), lastIndex };
    const cwd = session.header.cwd;
    const acc = createFactsAccumulator(cwd === undefined ? {} : { cwd });
    acc.add(plan.lineageBefore.filter((b) => b.index > after));
    return { result: compactWithFacts(session, { facts: acc.facts(), artifacts: acc.artifacts() }, { ...options, scope: "window" }), lastIndex };
  } catch (error) {
    if (error instanceof SummaryError && error.code === "NOTHING_TO_COMPACT") return null;
    throw error;
  }
}

/**
 * Evaluates one session read with text. Reads nothing but the session file (recall verifies each
 * expanded block against it; rounds re-read its bytes for the earlier cut points) and its seed index.
 */
export async function evaluateSession(session: Session, options: EvalOptions): Promise<SessionEval> {
  const { clock, manifest } = options;
  const budget = options.budget === undefined ? {} : { budget: options.budget };
  let t = clock();
  const result = compactSession(session, budget);
  const compactMs = clock() - t;

  t = clock();
  const truth = groundTruth(session, result.firstKeptEntryId, manifest);
  const needles = needlesFor(session, result.firstKeptEntryId, manifest);
  const groundTruthMs = clock() - t;
  const single = scored(result, truth, needles);

  const { index, ...recalled } = await recallPart(session, needles, clock);
  t = clock();
  const truthScore = options.truth === undefined ? null : evaluateTruth(session, result, index, options.truth);
  const truthMs = options.truth === undefined ? 0 : clock() - t;

  let repeated: SessionEval["repeated"] = null;
  let roundsMs = 0;
  const roundCount = options.rounds ?? 1;
  if (roundCount > 1 && session.lineage.length > 0) {
    const bytes = readFileSync(session.path);
    const steps: EvalRound[] = [];
    let previous: string | undefined;
    let last: CompactResult | null = null;
    let after = -1;
    const roundFacts = options.roundFacts ?? "window";
    const L = session.lineage.length;
    for (let round = 1; round <= roundCount; round++) {
      const at = Math.max(0, Math.ceil((round * L) / roundCount) - 1);
      const view = round === roundCount ? session : prefixSession(session, bytes, at);
      t = clock();
      const done = compactRound(view, { ...budget, ...(previous === undefined ? {} : { previous }) }, roundFacts, after);
      const ms = clock() - t;
      const r = done?.result ?? null;
      if (done !== null) after = done.lastIndex;
      roundsMs += ms;
      const leaf = session.lineage[at];
      steps.push({
        round,
        leafEntryId: leaf?.id ?? "",
        lineageEntries: view.lineage.length,
        firstKeptEntryId: r?.firstKeptEntryId ?? null,
        summaryTokens: r === null ? 0 : estimateTokens(r.summary),
        compactMs: Number(ms.toFixed(2)),
      });
      if (r !== null) {
        previous = r.summary;
        last = r;
      }
    }
    if (last !== null) {
      const finalTruth = groundTruth(session, last.firstKeptEntryId, manifest);
      repeated = { roundFacts, rounds: steps, final: scored(last, finalTruth, needlesFor(session, last.firstKeptEntryId, manifest)) };
    }
  }

  return assembleEval({
    file: session.path,
    sessionId: session.header.id,
    entries: session.entries.length,
    blocks: session.blocks.length,
    lineageEntries: session.lineage.length,
    needleSource: manifest === undefined ? "sampled" : "manifest",
    needles,
    single,
    recalled,
    repeated,
    truth: truthScore,
    times: { groundTruthMs, compactMs, roundsMs, truthMs },
  });
}

/** What the recall part of an evaluation found: each needle searched by phrase and by words, and by span. */
export interface RecallPart {
  readonly recall: RecallTally;
  readonly byWords: RecallTally;
  readonly spans: SpanRecallTally | null;
  readonly recallIndexMs: number;
  readonly recallMs: number;
}

/** The recall part: the session's recall index built, every needle searched (phrase, words) and tried by span. */
export async function recallPart(session: Session, needles: readonly EvalNeedle[], clock: () => number): Promise<RecallPart & { readonly index: RecallIndex }> {
  let t = clock();
  const index = RecallIndex.build(session);
  const recallIndexMs = clock() - t;
  t = clock();
  const recall = recallNeedles(index, () => ledgerVerifier(session), needles);
  const recallMs = clock() - t;
  const byWords = recallNeedles(index, () => ledgerVerifier(session), needles, "words");
  const spans = await spanRecallNeedles({ path: session.path, sessionId: session.header.id }, needles, () => session);
  return { index, recall, byWords, spans, recallIndexMs, recallMs };
}

/** The parts of a `SessionEval`, in the order its JSON lists them (whole and streamed evaluations alike). */
export interface EvalParts {
  readonly file: string;
  readonly sessionId: string;
  readonly entries: number;
  readonly blocks: number;
  readonly lineageEntries: number;
  readonly needleSource: SessionEval["needleSource"];
  readonly needles: readonly EvalNeedle[];
  readonly single: CompactionEval;
  readonly recalled: RecallPart;
  readonly repeated: SessionEval["repeated"];
  readonly truth: TruthScore | null;
  readonly times: { readonly groundTruthMs: number; readonly compactMs: number; readonly roundsMs: number; readonly truthMs: number };
}

export function assembleEval(parts: EvalParts): SessionEval {
  const { needles, recalled, times } = parts;
  const fixed = (ms: number): number => Number(ms.toFixed(2));
  return {
    file: parts.file,
    sessionId: parts.sessionId,
    entries: parts.entries,
    blocks: parts.blocks,
    lineageEntries: parts.lineageEntries,
    needleSource: parts.needleSource,
    needles: needles.length,
    single: parts.single,
    needlesViaRecall: recalled.recall,
    needlesViaWords: recalled.byWords,
    needlesViaSpanRecall: recalled.spans,
    repeated: parts.repeated,
    truth: parts.truth,
    floors: floorsOf(parts.single, recalled.recall, parts.repeated?.final ?? null, parts.truth),
    times: {
      groundTruthMs: fixed(times.groundTruthMs),
      compactMs: fixed(times.compactMs),
      recallIndexMs: fixed(recalled.recallIndexMs),
      recallMs: fixed(recalled.recallMs),
      recallPerNeedleMs: fixed(needles.length > 0 ? recalled.recallMs / needles.length : 0),
      roundsMs: fixed(times.roundsMs),
      truthMs: fixed(times.truthMs),
    },
  };
}
