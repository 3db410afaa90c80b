// Compaction end to end: cut the session, extract facts (or take pre-accumulated ones), build the
// summary document, merge it with the previous summary, fit it to the budget and render it; plus the
// durable-artifact digest. Pure given its inputs: time comes from the session or the caller.
import { createFactsAccumulator, cutOffBlocks, type DurableArtifacts, lastEntryTime, type OutsideFacts, saidElsewhere, saidElsewhereOn, type SessionFacts, type UserStatement, type UserStatementFact } from "@context-fold/extractors";
import { type Block, blockAt, type Session } from "@context-fold/ledger-reader";
import { type BriefBlock, briefRef, carriedBriefTail } from "./brief.js";
import { docFromFacts } from "./build-doc.js";
import { withBranchSummaries } from "./foreign-summary.js";
import { windowActivity } from "./carry-outstanding.js";
import { buildDigest, DEFAULT_DIGEST_BUDGET, type DigestStats, prepareDigestLines } from "./build-digest.js";
import { SummaryError } from "./errors.js";
import { BRIEF_MAX_LINES, fittedVerbatim, fitToBudget, sharesPrepared } from "./fit-budget.js";
import { mergeSummaries } from "./merge-summaries.js";
import { baseApplies, foldPrevious, type PreviousBase, type PreviousSummaryInput } from "./previous-base.js";
import { type BlockBytes, type CutPlan, type KeepTail, planCut, planCutCarried } from "./plan-cut.js";
import { bracketsBodyBytes, bracketsBytes, bracketsBytesKept, renderBrackets, renderBracketsBody, renderFooter } from "./render-brackets.js";
import { renderPiBody, renderPiLayout } from "./render-pi.js";
import type { FooterDoc, Omission, SummaryDoc } from "./summary-doc.js";
import { withCutOff, withKeptTail, withKeptTailFacts, withStatementsSaid } from "./kept-tail.js";
import { estimateTokens, tokensOfBytes, utf8Bytes } from "./tokens.js";
import { enterParts, keep, keepCarry, leaveParts, preparing, reuse, SLOT, type SummaryParts, takeCarry } from "./summary-parts.js";

/** Default summary budget in tokens (estimator: ceil(UTF-8 bytes / 4)). */
export const DEFAULT_SUMMARY_BUDGET = 4000;
/** Smallest budget accepted: room for the footer, the recall hint and a little content. */
export const MIN_SUMMARY_BUDGET = 256;

export type SummaryFormat = "brackets" | "pi";

/** The window a summary covers and what stays after it (for the footer). */
export interface SummaryWindow {
  readonly messages: number;
  readonly windowTokens: number;
  readonly tailMessages: number;
  readonly tailTokens: number;
}

export interface BuildSummaryInput {
  readonly facts: SessionFacts;
  readonly artifacts: DurableArtifacts;
  /** Blocks of the summarized window, ascending #N (the brief transcript is made from them). */
  readonly blocks: readonly BriefBlock[];
  /** The session's working directory: file lists of earlier summaries are made cwd-relative like the facts'. */
  readonly cwd?: string | undefined;
  /** Previous summaries in lineage order; the latest of ours is merged, foreign ones after it are kept. */
  readonly previous?: readonly PreviousSummaryInput[];
  readonly budget?: number;
  readonly format?: SummaryFormat;
  /** ISO time printed in the footer. */
  readonly now: string;
  readonly window: SummaryWindow;
  /** true when `facts` cover everything the previous summary covered (lineage-wide extraction). */
  readonly factsCoverPrevious?: boolean;
  /** `previous` already folded (`foldPrevious` with this input's cwd and coverage); `previous` is then not read. */
  readonly previousBase?: PreviousBase;
  /** Parts prepared at a turn's end (`prepareSummaryParts`), read where this summary's inputs are theirs. */
  readonly parts?: SummaryParts | undefined;
}

export interface SummaryStats {
  readonly format: SummaryFormat;
  readonly budget: number;
  readonly estimatedTokens: number;
  readonly withinBudget: boolean;
  /** How previous summaries were used: ours merged, foreign ones ("kept-foreign") merged section by section. */
  readonly previous: "none" | "merged" | "kept-foreign" | "merged+kept-foreign";
  /** What caps and the budget left out, counted. */
  readonly omitted: readonly Omission[];
  /** #N of verbatim items clipped to half the budget. */
  readonly clippedVerbatim: readonly number[];
}

export interface BuiltSummary {
  readonly text: string;
  readonly doc: SummaryDoc;
  readonly stats: SummaryStats;
}

function checkBudget(budget: number): void {
  if (!Number.isInteger(budget) || budget < MIN_SUMMARY_BUDGET)
    throw new SummaryError("BAD_OPTION", `summary budget must be a whole number ≥ ${String(MIN_SUMMARY_BUDGET)} tokens, got ${String(budget)}`);
}

function rangeOf(blocks: readonly BriefBlock[]): FooterDoc["range"] {
  const first = blocks[0];
  const last = blocks[blocks.length - 1];
  return first === undefined || last === undefined ? null : { from: first.index, to: last.index };
}

function omissionsOf(doc: SummaryDoc): Omission[] {
  // A loop, not a filter callback made per call (compiled again after every full GC: the hook's path).
  const out: Omission[] = [];
  for (const o of [doc.scopeOmitted, doc.correctionsOmitted, ...doc.filesOmitted, doc.commitsOmitted, doc.typeCatalogOmitted, doc.outstandingOmitted, doc.earlierTurnsOmitted, doc.briefOmitted])
    if (o !== null) out.push(o);
  return out;
}

/** Facts (+ previous summaries) to a rendered summary within budget. Pure. */
export function buildSummary(input: BuildSummaryInput): BuiltSummary {
  const scope = enterParts(input.parts, false);
  try {
    return summaryOf(input);
  } finally {
    leaveParts(scope);
  }
}

function summaryOf(input: BuildSummaryInput): BuiltSummary {
  const budget = input.budget ?? DEFAULT_SUMMARY_BUDGET;
  checkBudget(budget);
  checkNow(input.now);
  const format = input.format ?? "brackets";
  const footer: FooterDoc = {
    at: input.now,
    messages: input.window.messages,
    windowTokens: input.window.windowTokens,
    summaryTokens: budget,
    tailMessages: input.window.tailMessages,
    tailTokens: input.window.tailTokens,
    range: rangeOf(input.blocks),
  };
  // The latest of our summaries is the base; each foreign summary after it is split at its headings and
  // merged like ours (its goal, files and commits lifted; its other sections kept with their headings).
  // Facts covering the lineage re-derive the founding request verbatim: a foreign goal (a paraphrase of
  // it) then stays in its summary's sections; facts of the window alone take the foreign goal.
  const covers = input.factsCoverPrevious === true;
  const { doc: base, ownBase, foreign } = input.previousBase ?? foldPrevious(input.previous ?? [], input.cwd, covers);
  // Only the last BRIEF_MAX_LINES lines are built; the earlier ones are counted with their #N range.
  const brief = briefOf(input.blocks);
  const fromFacts = withBranchSummaries(docFromFacts(input.facts, input.artifacts, brief.lines, footer), input.facts.branchSummaries);
  const firstKept = brief.lines.length > 0 ? briefRef(brief.lines[0] ?? "") : (footer.range?.to ?? 0) + 1;
  const briefOmitted: Omission | null =
    brief.earlier === 0 || footer.range === null
      ? null
      : { count: brief.earlier, what: "earlier brief lines", recall: `#${String(footer.range.from)}–#${String(Math.max(footer.range.from, firstKept - 1))}` };
  const fresh: SummaryDoc = { ...fromFacts, briefOmitted };
  const merged =
    base === null
      ? fresh
      : mergeSummaries(base, fresh, covers ? { nextCoversPrevious: true } : { window: windowActivity(input.blocks, input.facts.files), previousGoalFirst: foreign > 0 });
  const render = format === "pi" ? renderPiLayout : renderBrackets;
  const body = format === "pi" ? renderPiBody : renderBracketsBody;
  const { doc: fitted, report } = fitToBudget({ ...merged, footer }, render, budget, format === "pi" ? undefined : bracketsBytes);
  const bodyText = body(fitted);
  // The bracketed body's bytes are its sections' sizes the fit measured (the same sum as the text's
  // own), so the text, appended piece by piece, is not flattened just to be counted.
  const bodyBytes = format === "pi" ? utf8Bytes(bodyText) : bracketsBodyBytes(fitted);
  const doc: SummaryDoc = { ...fitted, footer: { ...fitted.footer, summaryTokens: tokensOfBytes(bodyBytes) } };
  // The footer is all that differs between `fitted` and `doc`: the body is not rendered again.
  let text: string;
  let estimatedTokens: number;
  if (format === "pi") {
    text = render(doc);
    estimatedTokens = estimateTokens(text);
  } else {
    const end = `\n\n${renderFooter(doc.footer)}\n`;
    text = bodyText + end;
    estimatedTokens = tokensOfBytes(bodyBytes + utf8Bytes(end));
  }
  return {
    text,
    doc,
    stats: {
      format,
      budget,
      estimatedTokens,
      withinBudget: estimatedTokens <= budget,
      previous: !ownBase ? (foreign > 0 ? "kept-foreign" : "none") : foreign > 0 ? "merged+kept-foreign" : "merged",
      omitted: omissionsOf(doc),
      clippedVerbatim: report.clippedVerbatim,
    },
  };
}

/** `briefTail` of the window's blocks, a part made of them (the blocks of a cut prepared at a turn's end). */
function briefOf(blocks: readonly BriefBlock[]): { lines: string[]; earlier: number } {
  const held = reuse(SLOT.brief, blocks) as { lines: string[]; earlier: number } | undefined;
  return held ?? keep(SLOT.brief, carriedBriefTail(blocks, BRIEF_MAX_LINES), blocks);
}

/** What `prepareSummaryParts` builds the parts from: the facts as the turn left them, with the tail as it stands. */
export interface SummaryPartsInput {
  readonly facts: SessionFacts;
  readonly artifacts: DurableArtifacts;
  /** The blocks after those the facts were fed (the tail a compaction now would keep, as it stands). */
  readonly tail: readonly Block[];
  /** The facts of `tail`'s blocks alone, when the caller accumulates them (with `cwd`) as the tail grows. */
  readonly tailFacts?: OutsideFacts | undefined;
  readonly cwd: string | undefined;
  /** The earlier summaries folded for this lineage (lineage scope), if any. */
  readonly previousBase?: PreviousBase | undefined;
  /** The summary budget the hook fits to (tokens). */
  readonly budget: number;
}

/** The footer the parts are made with: only the brief and the footer's own section read it, and neither is a part. */
const PARTS_FOOTER: FooterDoc = { at: "", messages: 0, windowTokens: 0, summaryTokens: 0, tailMessages: 0, tailTokens: 0, range: null };
const NO_BRIEF: readonly string[] = Object.freeze([]);

/**
 * At a turn's end: make (or keep, where the turn changed nothing they are made of) the parts a compaction
 * now would build its summary from — the facts with the kept tail, each section's items merged with the
 * earlier summaries and capped, the verbatim items fitted to their share, each section rendered and
 * sized — by the same steps `buildSummary` takes, so the hook reuses them where its inputs are the same.
 */
export function prepareSummaryParts(parts: SummaryParts, input: SummaryPartsInput): void {
  const scope = enterParts(parts, true);
  try {
    const facts = keptTailFacts(input.facts, input.tail, input.cwd, input.tailFacts);
    const fresh: SummaryDoc = { ...withBranchSummaries(docFromFacts(facts, input.artifacts, NO_BRIEF, PARTS_FOOTER), facts.branchSummaries), briefOmitted: null };
    const base = input.previousBase?.doc ?? null;
    const merged = base === null ? fresh : mergeSummaries(base, fresh, { nextCoversPrevious: true });
    const fitted = fittedVerbatim({ ...merged, footer: PARTS_FOOTER }, input.budget);
    bracketsBytesKept(fitted, 0);
    bracketsBytesKept(sharesPrepared(fitted, input.budget), 1);
    prepareDigestLines(input.artifacts, facts.statements);
  } finally {
    leaveParts(scope);
  }
}

/**
 * `withKeptTail`, a part made of the facts, the tail's first and last blocks (the blocks of one session
 * read: the lineage between two of them is fixed) and the cwd paths are made relative to.
 */
function keptTailFacts(facts: SessionFacts, tail: readonly Block[], cwd: string | undefined, tailFacts?: OutsideFacts): SessionFacts {
  const first = tail[0];
  const last = tail[tail.length - 1];
  const held = reuse(SLOT.keptTail, facts, first, last, cwd) as SessionFacts | undefined;
  if (held !== undefined) return held;
  const made = tailFacts === undefined || tail.length === 0 ? withKeptTail(facts, tail, cwd) : withKeptTailFacts(facts, tailFacts);
  return keep(SLOT.keptTail, made, facts, first, last, cwd);
}

export interface CompactOptions {
  /** Summary budget in tokens (default 4000). */
  readonly budget?: number;
  readonly format?: SummaryFormat;
  /** A previous summary to merge with; default: the summaries of the compactions on the lineage. */
  readonly previous?: string;
  readonly keepTail?: KeepTail;
  /** ISO time for the footer; default the last entry's timestamp. */
  readonly now?: string;
  /** Digest budget in tokens (default 1500). */
  readonly digestBudget?: number;
  /**
   * Which blocks facts come from: "lineage" (default) = every lineage block before the cut, so the
   * founding request is re-derived from the file even after foreign compactions; "window" = only
   * this compaction's window, everything older carried by merging with the previous summary.
   */
  readonly scope?: "lineage" | "window";
  /**
   * Summaries of the lineage's compactions already read by `parseOwnSummary`, by compaction entry id
   * (an entry's summary never changes), so a caller that keeps a session open reads each one once.
   */
  readonly parsedSummaries?: ReadonlyMap<string, SummaryDoc | null>;
  /** Blocks' UTF-8 sizes by #N, kept as they were fed, for the cut (see `BlockBytes`). */
  readonly blockBytes?: BlockBytes;
  /** The session's lineage blocks (ledger-reader's `lineageBlocks`), when the caller made them already. */
  readonly lineage?: readonly Block[];
  /** #N of each compaction entry's block by entry id, as the caller met them (else found by a walk of every block). */
  readonly compactionBlocks?: ReadonlyMap<string, number>;
  /**
   * The lineage's earlier summaries already folded (`foldPrevious` over `lineagePrevious`), e.g. when the
   * last compaction became known; used only while it was folded from the same compactions, cwd and scope.
   */
  readonly previousBase?: PreviousBase;
  /** Parts prepared at a turn's end (`prepareSummaryParts`), read where this compaction's inputs are theirs. */
  readonly parts?: SummaryParts | undefined;
}

export interface CompactStats {
  readonly summary: SummaryStats;
  readonly digest: DigestStats;
  readonly summarizedMessages: number;
  readonly keptMessages: number;
  readonly summarizedBlocks: number;
  readonly range: { readonly from: number; readonly to: number } | null;
  readonly splitTurn: boolean;
  readonly compressionRatio: number;
}

export interface CompactResult {
  readonly summary: string;
  readonly firstKeptEntryId: string;
  readonly tokensBefore: number;
  readonly estimatedTokensAfter: number;
  readonly digest: string;
  readonly stats: CompactStats;
}

/**
 * The time a compaction of `session` is stamped with when the caller gives none: the last entry's
 * (extractors' `lastEntryTime`, the one home of that rule); a session with no time at all is an error here.
 */
function stampTime(session: Session): string {
  const at = lastEntryTime(session);
  if (at !== undefined) return at;
  throw new SummaryError("BAD_OPTION", `${session.path} has no timestamp to stamp the summary with: pass now (--now <iso>)`);
}

function checkNow(now: string): string {
  if (!/^\S+$/.test(now) || Number.isNaN(Date.parse(now))) throw new SummaryError("BAD_OPTION", `now must be an ISO-8601 time, got "${now}"`);
  return now;
}

/** Previous summaries on the session's lineage (or the one given), in order. */
function previousInputs(session: Session, lookups: BlockLookups, given: string | undefined, parsed: ReadonlyMap<string, SummaryDoc | null> | undefined): PreviousSummaryInput[] {
  if (given !== undefined) return [{ text: given, label: "file", index: null }];
  return lineagePrevious(session, (entryId) => lookups.compactionBlock(entryId), parsed);
}

/**
 * The summaries of the compactions on `session`'s lineage, in order, as `foldPrevious` takes them: each
 * labelled with its number and held by its compaction block (`compactionBlock`), parsed when `parsed` has it.
 */
export function lineagePrevious(
  session: Session,
  compactionBlock: (entryId: string) => number | undefined,
  parsed?: ReadonlyMap<string, SummaryDoc | null>,
): PreviousSummaryInput[] {
  return session.compactions.map((c) => {
    const input = { text: c.summary, label: `compaction ${String(c.number)}`, index: compactionBlock(c.entryId) ?? null };
    const doc = parsed?.get(c.entryId);
    return doc === undefined ? input : { ...input, parsed: doc };
  });
}

/** A user statement of the summary's at block #`index` (a module function: no closure made per digest). */
function said(lookups: BlockLookups, index: number, text: string): UserStatement {
  return { text, index, turn: lookups.turnOf(index) ?? 0 };
}

/**
 * The artifacts the digest re-injects, seen through the merged summary. When the facts cover only this
 * window, their "initial prompts" are the window's first messages, not the founding request: the digest
 * takes the summary's founding request instead, and the summary's corrections (older ones, and a
 * correction that opened the window) beside the window's own, verbatim.
 */
function digestArtifacts(lookups: BlockLookups, artifacts: DurableArtifacts, doc: SummaryDoc): DurableArtifacts {
  const goal = doc.goal;
  if (goal === null || artifacts.initialPrompts.some((p) => p.index === goal.index)) return artifacts;
  const corrections = new Map<number, UserStatement>();
  for (const c of doc.corrections) corrections.set(c.index, said(lookups, c.index, c.text));
  // The window's own texts are whole (the summary may have clipped them to its budget).
  for (const p of artifacts.initialPrompts) if (corrections.has(p.index)) corrections.set(p.index, p);
  for (const c of artifacts.corrections) corrections.set(c.index, c);
  return {
    ...artifacts,
    initialPrompts: [said(lookups, goal.index, goal.text)],
    corrections: [...corrections.values()].sort((a, b) => a.index - b.index),
  };
}

/** User statements of `facts` the summary lists nowhere (its budget dropped them): the digest carries them. */
function statementsLeftOut(facts: SessionFacts, doc: SummaryDoc): UserStatementFact[] {
  const listed = new Set<number>();
  for (const s of doc.statements) listed.add(s.index);
  for (const c of doc.corrections) listed.add(c.index);
  for (const s of doc.scopeChanges) listed.add(s.index);
  if (doc.goal !== null) listed.add(doc.goal.index);
  const left: UserStatementFact[] = [];
  for (const s of facts.statements) if (!listed.has(s.index)) left.push(s);
  return left;
}

/**
 * What a compaction looks up by `#N` besides its window: a block's turn (the digest's founding request and
 * corrections) and each compaction entry's block (previous summaries' refs). From the blocks of a whole
 * read, or from a shape read's block table when the session was streamed.
 */
export interface BlockLookups {
  turnOf(index: number): number | undefined;
  compactionBlock(entryId: string): number | undefined;
}

/**
 * A class, not an object of closures made per call: the hook makes one per compaction, and a closure made
 * per call is compiled again after every full GC (a compile on V8's helper thread in the run after it).
 */
class WholeReadLookups implements BlockLookups {
  readonly #session: Session;
  readonly #known: ReadonlyMap<string, number> | undefined;
  #compactionBlocks: Map<string, number> | undefined = undefined;

  constructor(session: Session, known: ReadonlyMap<string, number> | undefined) {
    this.#session = session;
    this.#known = known;
  }

  turnOf(index: number): number | undefined {
    return blockAt(this.#session, index)?.turn;
  }

  compactionBlock(entryId: string): number | undefined {
    const met = this.#known?.get(entryId);
    if (met !== undefined) return met;
    if (this.#compactionBlocks === undefined) {
      this.#compactionBlocks = new Map();
      for (const b of this.#session.blocks) if (b.kind === "compaction") this.#compactionBlocks.set(b.entryId, b.index);
    }
    return this.#compactionBlocks.get(entryId);
  }
}

function wholeReadLookups(session: Session, known?: ReadonlyMap<string, number>): BlockLookups {
  return new WholeReadLookups(session, known);
}

/** The facts and artifacts a compaction is built from. */
type Extracted = { readonly facts: SessionFacts; readonly artifacts: DurableArtifacts };

function compactWith(
  session: Session,
  extracted: (plan: CutPlan) => Extracted,
  options: CompactOptions,
): CompactResult {
  const scope = enterParts(options.parts, false);
  try {
    const plan = cutOf(session, options);
    return compactPlanned(session, wholeReadLookups(session, options.compactionBlocks), plan, { ...extracted(plan), ...outsideOf(session) }, options);
  } finally {
    leaveParts(scope);
  }
}

/**
 * The cut of `session`, a part made of the session read (the same object at the same size and leaf: an
 * append-only file read again is a new size or leaf) and the tail kept; `blockBytes` and `lineage` only
 * spare the work of sizing and listing the blocks, the cut is the same without them.
 */
function cutOf(session: Session, options: Pick<CompactOptions, "keepTail" | "blockBytes" | "lineage">): CutPlan {
  const keepTail = options.keepTail ?? "auto";
  const held = reuse(SLOT.cut, session, session.byteLength, session.leafId, keepTail) as CutPlan | undefined;
  if (held !== undefined) return held;
  // One literal (its shape lives as long as this code), not spreads: a shape made by spreading is freed by
  // the next full GC once no options object holds it, and planCut's optimized code that met it with it.
  const planOptions = { keepTail: options.keepTail, blockBytes: options.blockBytes, lineage: options.lineage };
  if (!preparing()) return planCut(session, planOptions);
  // A turn's end carries the last turn's cut on over what the turn appended (the same plan).
  const made = planCutCarried(session, planOptions, takeCarry("cutCarry"));
  keepCarry("cutCarry", made.carry);
  return keep(SLOT.cut, made.plan, session, session.byteLength, session.leafId, keepTail);
}

/** `outsideWindow`, a part made of the session read (see `cutOf`). */
function outsideOf(session: Session): OutsideWindow {
  const held = reuse(SLOT.outside, session, session.byteLength, session.leafId) as OutsideWindow | undefined;
  return held ?? keep(SLOT.outside, outsideWindow(session), session, session.byteLength, session.leafId);
}

/**
 * At a turn's end: the cut a compaction of `session` as it stands would make, what the user said outside
 * the branch's blocks, and the brief of the window the cut summarizes, kept as parts the hook reuses while
 * the session read is the same (a turn appended nothing since). Nothing is kept when there is nothing to
 * compact yet (the hook reports that itself).
 */
export function prepareCutParts(parts: SummaryParts, session: Session, options: Pick<CompactOptions, "keepTail" | "blockBytes" | "lineage"> = {}): void {
  const scope = enterParts(parts, true);
  try {
    let plan: CutPlan;
    try {
      plan = cutOf(session, options);
    } catch (error) {
      if (error instanceof SummaryError && error.code === "NOTHING_TO_COMPACT") return;
      throw error;
    }
    outsideOf(session);
    briefOf(plan.summarizedBlocks);
  } finally {
    leaveParts(scope);
  }
}

/**
 * The cut `prepareCutParts` plans for `session`, kept in `parts` as it keeps it: the gate weighs a
 * compaction by this cut, and the hook that runs it for the same session read finds it planned.
 */
export function prepareCut(parts: SummaryParts, session: Session, options: Pick<CompactOptions, "keepTail" | "blockBytes" | "lineage"> = {}): CutPlan {
  const scope = enterParts(parts, true);
  try {
    return cutOf(session, options);
  } finally {
    leaveParts(scope);
  }
}

/** What the user said and did outside the branch's blocks (see `compactPlanned`), from a whole read. */
export interface OutsideWindow {
  /** The part of the branch a damaged line cut off Pi's view (extractors' `cutOffBlocks`). */
  readonly cutOff: readonly Block[];
  /** Prompts kept only by an extension's custom entry (extractors' `saidElsewhere`). */
  readonly said: readonly UserStatement[];
}

/** At a turn's end the branch is read on from where the last turn's end left it (`saidElsewhereOn`); else whole. */
function outsideWindow(session: Session): OutsideWindow {
  if (!preparing()) return { cutOff: cutOffBlocks(session), said: saidElsewhere(session) };
  const { said, carry } = saidElsewhereOn(session, takeCarry("saidCarry"));
  keepCarry("saidCarry", carry);
  return { cutOff: cutOffBlocks(session), said };
}

/**
 * A compaction from its cut already planned and its facts already extracted: the summary, the digest
 * and the stats. `session` gives the header, entries' times and the compactions; the plan's blocks carry
 * their text. The one path for both the whole read and the streamed one.
 */
export function compactPlanned(
  session: Session,
  lookups: BlockLookups,
  plan: CutPlan,
  before: { readonly facts: SessionFacts; readonly artifacts: DurableArtifacts } & OutsideWindow,
  options: CompactOptions,
): CompactResult {
  const scope = enterParts(options.parts, false);
  try {
    return compactionOf(session, lookups, plan, before, options);
  } finally {
    leaveParts(scope);
  }
}

function compactionOf(
  session: Session,
  lookups: BlockLookups,
  plan: CutPlan,
  before: { readonly facts: SessionFacts; readonly artifacts: DurableArtifacts } & OutsideWindow,
  options: CompactOptions,
): CompactResult {
  const artifacts = before.artifacts;
  // What the user said and did outside the blocks facts came from — the part of the branch a damaged line
  // cut off, a prompt kept only by an extension's entry, the kept tail — the summary keeps too.
  const cwd = session.header.cwd;
  const said = withStatementsSaid(withCutOff(before.facts, before.cutOff, cwd), before.said);
  const facts = keptTailFacts(said, plan.keptBlocks, cwd);
  const now = checkNow(options.now ?? stampTime(session));
  const windowTokens = Math.max(0, plan.tokensBefore - plan.keptTokens);
  const covers = (options.scope ?? "lineage") === "lineage";
  const prepared = options.previous === undefined && options.previousBase !== undefined && baseApplies(options.previousBase, session.compactions, cwd, covers);
  const built = buildSummary({
    facts,
    artifacts,
    blocks: plan.summarizedBlocks,
    cwd: session.header.cwd,
    ...(prepared ? { previousBase: options.previousBase } : { previous: previousInputs(session, lookups, options.previous, options.parsedSummaries) }),
    ...(options.budget === undefined ? {} : { budget: options.budget }),
    ...(options.format === undefined ? {} : { format: options.format }),
    now,
    window: { messages: plan.summarizedMessages, windowTokens, tailMessages: plan.keptMessages, tailTokens: plan.keptTokens },
    factsCoverPrevious: covers,
    parts: options.parts,
  });
  const digest = buildDigest(digestArtifacts(lookups, artifacts, built.doc), {
    budget: options.digestBudget ?? DEFAULT_DIGEST_BUDGET,
    statements: statementsLeftOut(facts, built.doc),
  });
  const first = plan.summarizedBlocks[0];
  const last = plan.summarizedBlocks[plan.summarizedBlocks.length - 1];
  return {
    summary: built.text,
    firstKeptEntryId: plan.firstKeptEntryId,
    tokensBefore: plan.tokensBefore,
    estimatedTokensAfter: built.stats.estimatedTokens + plan.keptTokens,
    digest: digest.text,
    stats: {
      summary: built.stats,
      digest: digest.stats,
      summarizedMessages: plan.summarizedMessages,
      keptMessages: plan.keptMessages,
      summarizedBlocks: plan.summarizedBlocks.length,
      range: first === undefined || last === undefined ? null : { from: first.index, to: last.index },
      splitTurn: plan.splitTurn,
      compressionRatio: built.stats.estimatedTokens > 0 ? Number((windowTokens / built.stats.estimatedTokens).toFixed(2)) : 0,
    },
  };
}

/** The CLI path: cut, extract, summarize, digest. */
export function compactSession(session: Session, options: CompactOptions = {}): CompactResult {
  const cwd = session.header.cwd;
  return compactWith(
    session,
    (plan) => {
      const acc = createFactsAccumulator(cwd === undefined ? {} : { cwd });
      acc.add(options.scope === "window" ? plan.summarizedBlocks : plan.lineageBefore);
      return { facts: acc.facts(), artifacts: acc.artifacts() };
    },
    options,
  );
}

/**
 * The extension's incremental path: facts and artifacts already accumulated (e.g. a live
 * FactsAccumulator fed turn by turn), so only the cut, the brief and the rendering run here. Given a
 * function, it is asked for them once the cut is planned (so a caller can top its facts up to the cut).
 */
export function compactWithFacts(
  session: Session,
  extracted: Extracted | ((plan: CutPlan) => Extracted),
  options: CompactOptions = {},
): CompactResult {
  return compactWith(session, typeof extracted === "function" ? extracted : () => extracted, options);
}
