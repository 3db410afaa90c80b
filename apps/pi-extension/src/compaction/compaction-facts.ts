// Facts, durable artifacts and the `compact` record's fields, accumulated incrementally as the session
// grows: each lineage block is scanned once, so the compaction hook only tops up the last stretch and
// renders. The `compact` record's spans are made as their blocks are fed (with the session's codes) and
// kept, so the hook reuses them instead of rebuilding thousands of spans. A switch of branch (the last
// block fed left the lineage) starts over from the new lineage. Each compaction's summary is read once,
// when its block is fed (at session start or the turn after it), so the hook merges it without parsing.
// At a turn's end near a compaction, `prepare` takes what depends only on the facts fed (their
// snapshots, the record's capped fields, the earlier summaries folded): the hook then reuses them while
// nothing was fed since, and computes each afresh otherwise (the same functions, so the same output).
import {
  createFactsAccumulator,
  createSeedAccumulator,
  type DurableArtifacts,
  type FactsAccumulator,
  type OutsideFacts,
  recordBlocksAmong,
  type SeedAccumulator,
  type SeedScanCache,
  type SeedFields,
  type SeedRecordParams,
  type SessionFacts,
} from "@context-fold/extractors";
import { type Block, lineageBlocks, lineageBlocksAfter, type Session } from "@context-fold/ledger-reader";
import type { CodeAssigner, FoldIndexRecord, Span } from "@context-fold/seed-index-format";
import {
  baseApplies,
  type BlockBytes,
  type CutPlan,
  DEFAULT_SUMMARY_BUDGET,
  foldPrevious,
  lineagePrevious,
  parseOwnSummary,
  prepareCut,
  prepareCutParts,
  prepareSummaryParts,
  type PreviousBase,
  type SummaryDoc,
  SummaryParts,
  utf8Bytes,
} from "@context-fold/summary-formatter";
import { sharedWith } from "./shared-snapshot.js";

/** The facts' and artifacts' snapshots a compaction is built from. */
export interface Extracted {
  readonly facts: SessionFacts;
  readonly artifacts: DurableArtifacts;
}

/** What `prepare` took, for the facts as fed at `fed` (see `#fed`). */
interface Prepared {
  readonly fed: number;
  readonly extracted: Extracted;
  /** The `compact` record's capped fields (recent blocks favoured). */
  readonly fields: SeedFields;
}

/**
 * The record's own spans are left out (the kept ones are added): one function for every record, since a
 * closure made per call is called for every span and compiled again after each full GC.
 */
const noSpans = (): boolean => false;

export class CompactionFacts {
  readonly #cwd: string | undefined;
  readonly #codes: CodeAssigner | undefined;
  #facts: FactsAccumulator;
  #seed: SeedAccumulator;
  #seedHigh = -1;
  /** The record's spans of every block fed, in feed order, made with `#codes` (empty without codes). */
  #spans: Span[] = [];
  /** `#spans` was handed out in a record: copied before a later feed adds to it (the record keeps its spans). */
  #spansShared = false;
  /** The newest block fed (entry id, #N): the check that later feeds continue the same lineage. */
  #last: { entryId: string; index: number } | undefined;
  /** The blocks left unfed by the last feed, for the session as it was read then (same object, size and leaf). */
  #rest: { session: Session; bytes: number; leaf: string | null; last: { entryId: string; index: number }; blocks: readonly Block[] } | undefined;
  #rebuilds = 0;
  /** Summaries of the compactions fed, read by `parseOwnSummary`, by entry id (kept across branches: an entry never changes). */
  readonly #summaries = new Map<string, SummaryDoc | null>();
  /** UTF-8 bytes of each fed block's text by #N (what the cut adds up), counted once as it is fed. */
  readonly #bytes: (number | undefined)[] = [];
  /** #N of each compaction block fed, by entry id (kept across branches, like `#summaries`). */
  readonly #compactionBlocks = new Map<string, number>();
  /** Counts feeds that changed the accumulators (and starts over): what a prepared part was taken at. */
  #fed = 0;
  #prepared: Prepared | undefined;
  /** The lineage's earlier summaries folded, for the compactions it names (checked by `baseApplies`). */
  #base: PreviousBase | undefined;
  /** The summary's parts as the last `prepare` left them (the hook reads them; only `prepare` makes them). */
  readonly #parts = new SummaryParts();
  /** The lineage's blocks as the last `prepare` listed them, for the session read it met (see `lineage`). */
  #lineage: { session: Session; bytes: number; leaf: string | null; blocks: readonly Block[] } | undefined;
  /** The tail's own facts, accumulated from its first block as it grows (see `#tailFacts`). */
  #tailAcc: { first: Block; acc: FactsAccumulator } | undefined;
  /** What the parts were last made of: the snapshot, the budget, the earlier summaries and the tail (its length and last block). */
  #partsAt: { prepared: Prepared; budget: number; base: PreviousBase | undefined; tail: number; last: Block | undefined } | undefined;

  /** `codes`: the session's assigner; each fed block gets its code then, not in the compaction hook. */
  /** Seed scans shared with the session's other accumulators (the fold stretch's), if any. */
  readonly #scans: SeedScanCache | undefined;

  /** `codes`: the session's assigner; `scans`: the session's shared seed scans (`createSeedScanCache`). */
  constructor(cwd: string | undefined, codes?: CodeAssigner, scans?: SeedScanCache) {
    this.#cwd = cwd;
    this.#codes = codes;
    this.#scans = scans;
    this.#facts = createFactsAccumulator({ cwd });
    this.#seed = createSeedAccumulator({ cwd, scans });
  }

  get accumulator(): FactsAccumulator {
    return this.#facts;
  }
  get seed(): SeedAccumulator {
    return this.#seed;
  }
  /** #N of the last block fed (-1: none). */
  get lastIndex(): number {
    return this.#last?.index ?? -1;
  }
  /** The summaries of the compactions fed so far, parsed, by compaction entry id. */
  get parsedSummaries(): ReadonlyMap<string, SummaryDoc | null> {
    return this.#summaries;
  }
  /** #N of the compaction blocks fed so far, by entry id. */
  get compactionBlocks(): ReadonlyMap<string, number> {
    return this.#compactionBlocks;
  }
  /** Sizes of the blocks fed so far, by #N, for `planCut` (kept across branches: #N and text never change). */
  get blockBytes(): BlockBytes {
    return this.#bytes;
  }
  /** Times the accumulators started over because the lineage changed. */
  get rebuilds(): number {
    return this.#rebuilds;
  }

  #resetIfBranched(session: Session): void {
    if (this.#last === undefined || session.lineageIds.has(this.#last.entryId)) return;
    this.#facts = createFactsAccumulator({ cwd: this.#cwd });
    this.#seed = createSeedAccumulator({ cwd: this.#cwd, scans: this.#scans });
    this.#seedHigh = -1;
    this.#spans = [];
    this.#spansShared = false;
    this.#last = undefined;
    this.#rebuilds += 1;
    this.#fed += 1;
  }

  /**
   * Feed the lineage blocks of entries before position `endPosition` (every lineage entry when
   * undefined). Facts take the raw blocks; the record's fields take them with context edits applied.
   * Returns the number of blocks fed.
   */
  feed(session: Session, endPosition?: number): number {
    return this.#feedBlocks(session, this.#unfed(session), endPosition);
  }

  /**
   * The lineage blocks not fed yet: those of the entries after the last block fed, found by walking back
   * from the leaf over what the turn appended (never the whole lineage), or the whole lineage after a
   * start or a switch of branch.
   */
  #unfed(session: Session): readonly Block[] {
    this.#resetIfBranched(session);
    const rest = this.#rest;
    if (rest !== undefined && rest.session === session && rest.bytes === session.byteLength && rest.leaf === session.leafId && rest.last === this.#last) return rest.blocks;
    const from = this.lastIndex;
    const after = this.#last === undefined ? undefined : lineageBlocksAfter(session, this.#last.entryId);
    const blocks = after ?? lineageBlocks(session);
    return after === undefined ? blocks.filter((block) => block.index > from) : blocks;
  }

  #feedBlocks(session: Session, unfed: readonly Block[], endPosition: number | undefined): number {
    const fresh: Block[] = [];
    for (const block of unfed) {
      if (endPosition !== undefined && block.entryPosition >= endPosition) break;
      fresh.push(block);
    }
    if (fresh.length === 0) return 0;
    this.#fed += 1;
    // What stays unfed is the rest of this list: the turn's end (`prepare`'s tail) need not walk the lineage again.
    const rest = fresh.length === unfed.length ? [] : unfed.slice(fresh.length);
    this.#facts.add(fresh);
    for (const block of fresh) {
      this.#bytes[block.index] = utf8Bytes(block.text);
      if (block.kind === "compaction") {
        this.#compactionBlocks.set(block.entryId, block.index);
        this.#readSummary(session, block.entryId);
      }
    }
    const high = fresh[fresh.length - 1] as Block;
    // Context edits: the record describes blocks as the model last saw them (replacement text).
    const edited = recordBlocksAmong(session, fresh, { scope: "lineage" }).filter((block) => block.index > this.#seedHigh);
    // Spans of this feed only: the seed lists them from the mark taken before the add, so a turn
    // does not walk every span of the session (the filter keeps the old rule for what counts as new).
    const mark = this.#seed.spanCount;
    this.#seed.add(edited);
    const seedFrom = this.#seedHigh;
    if (this.#codes !== undefined) {
      const made = this.#seed.spans(this.#codes, (block) => block.index > seedFrom, mark);
      if (made.length > 0 && this.#spansShared) {
        this.#spans = this.#spans.slice();
        this.#spansShared = false;
      }
      for (const span of made) this.#spans.push(span);
    }
    this.#seedHigh = high.index;
    this.#last = { entryId: high.entryId, index: high.index };
    this.#rest = { session, bytes: session.byteLength, leaf: session.leafId, last: this.#last, blocks: rest };
    return fresh.length;
  }

  #readSummary(session: Session, entryId: string): void {
    if (this.#summaries.has(entryId)) return;
    const compaction = session.compactions.find((c) => c.entryId === entryId);
    if (compaction !== undefined) this.#summaries.set(entryId, parseOwnSummary(compaction.summary));
  }

  /**
   * Take now, off the hook's path, what a compaction of the facts fed so far is built from: the facts'
   * and artifacts' snapshots (each list the turn did not change kept as the last prepare took it, so the
   * summary's parts made of it are kept too), the record's capped fields, the earlier summaries folded
   * (when a compaction was fed since), and the summary's parts (`prepareSummaryParts`: only those made
   * of lists that changed are made again). Nothing is redone while nothing was fed and the tail did not
   * grow. `tailEnd`: the tail as it stood before that entry position (a replay of a finished session).
   */
  prepare(session: Session, summaryBudget: number = DEFAULT_SUMMARY_BUDGET, tailEnd?: number): void {
    this.#prepareBase(session);
    // The lineage's blocks and the cut of the session as it stands (with what it summarizes and keeps
    // aside), for a hook that meets the same session read (nothing appended since).
    const lineage = this.#lineageOf(session);
    if (this.#lineage?.blocks !== lineage) this.#lineage = { session, bytes: session.byteLength, leaf: session.leafId, blocks: lineage };
    prepareCutParts(this.#parts, session, { blockBytes: this.#bytes, lineage });
    let prepared = this.#prepared;
    if (prepared?.fed !== this.#fed) {
      const taken = { facts: this.#facts.facts(), artifacts: this.#facts.artifacts() };
      const extracted = prepared === undefined ? taken : sharedWith(prepared.extracted, taken);
      prepared = this.#prepared = { fed: this.#fed, extracted, fields: this.#seed.fields({ favourRecent: true }) };
    }
    // The tail grows within a run while nothing is fed (feeding stops before the last user message).
    const tail = this.#tail(session, tailEnd);
    const base = this.#base !== undefined && baseApplies(this.#base, session.compactions, this.#cwd, true) ? this.#base : undefined;
    const at = this.#partsAt;
    if (at !== undefined && at.prepared === prepared && at.budget === summaryBudget && at.base === base && at.tail === tail.length && at.last === tail[tail.length - 1]) return;
    prepareSummaryParts(this.#parts, { ...prepared.extracted, tail, tailFacts: this.#tailFacts(tail), cwd: this.#cwd, previousBase: base, budget: summaryBudget });
    this.#partsAt = { prepared, budget: summaryBudget, base, tail: tail.length, last: tail[tail.length - 1] };
  }

  /**
   * The facts of the tail's blocks alone, from an accumulator kept while the tail starts at the same block
   * and only grows (a run's turns append to it): each turn's end reads only the blocks it added. Only the
   * fields a summary reads of its kept tail are made (`outsideFacts`).
   */
  #tailFacts(tail: readonly Block[]): OutsideFacts | undefined {
    const first = tail[0];
    const last = tail[tail.length - 1];
    if (first === undefined || last === undefined) return undefined;
    let held = this.#tailAcc;
    if (held?.first !== first || held.acc.lastIndex > last.index) held = this.#tailAcc = { first, acc: createFactsAccumulator({ cwd: this.#cwd }) };
    held.acc.add(tail);
    return held.acc.outsideFacts();
  }

  /** The blocks after those fed (before entry position `end` when given: the tail as it stood then). */
  #tail(session: Session, end: number | undefined): readonly Block[] {
    const unfed = this.#unfed(session);
    if (end === undefined) return unfed;
    let n = 0;
    while (n < unfed.length && (unfed[n] as Block).entryPosition < end) n++;
    return n === unfed.length ? unfed : unfed.slice(0, n);
  }

  /**
   * The lineage's blocks (ledger-reader's `lineageBlocks`): as the last `prepare` listed them while the
   * session read is the same (the same object at the same size and leaf), else listed now (not kept: only
   * `prepare` keeps, so a hook never finds an earlier hook's work).
   */
  lineage(session: Session): readonly Block[] {
    return this.#lineageOf(session);
  }

  #lineageOf(session: Session): readonly Block[] {
    const held = this.#lineage;
    if (held !== undefined && held.session === session && held.bytes === session.byteLength && held.leaf === session.leafId) return held.blocks;
    return lineageBlocks(session);
  }

  /**
   * The cut of `session` as it stands (`prepareCut`), kept in the parts with the lineage listed for it,
   * so the compaction the gate starts for this session read plans and lists nothing again.
   */
  cut(session: Session): CutPlan {
    const lineage = this.#lineageOf(session);
    if (this.#lineage?.blocks !== lineage) this.#lineage = { session, bytes: session.byteLength, leaf: session.leafId, blocks: lineage };
    return prepareCut(this.#parts, session, { blockBytes: this.#bytes, lineage });
  }

  /** The summary's parts prepared at the last turn's end (read, never made, by the hook). */
  get parts(): SummaryParts {
    return this.#parts;
  }

  /** Fold the lineage's earlier summaries once per set of compactions, when every one of them was fed. */
  #prepareBase(session: Session): void {
    const compactions = session.compactions;
    if (compactions.length === 0 || (this.#base !== undefined && baseApplies(this.#base, compactions, this.#cwd, true))) return;
    if (!compactions.every((c) => this.#compactionBlocks.has(c.entryId))) return;
    const previous = lineagePrevious(session, (entryId) => this.#compactionBlocks.get(entryId), this.#summaries);
    this.#base = foldPrevious(previous, this.#cwd, true, compactions.map((c) => c.entryId));
  }

  /** The earlier summaries as last folded by `prepare` (the compaction checks they are still the lineage's). */
  get previousBase(): PreviousBase | undefined {
    return this.#base;
  }

  /** The facts' and artifacts' snapshots of everything fed: prepared ones while nothing was fed since, else taken now. */
  extracted(): Extracted {
    const prepared = this.#prepared;
    if (prepared?.fed === this.#fed) return prepared.extracted;
    return { facts: this.#facts.facts(), artifacts: this.#facts.artifacts() };
  }

  /**
   * The `compact` record of everything fed: the seed accumulator's, with the spans kept from feeding
   * when `params.codes` is the session's assigner (the same spans it would build, in the same order),
   * and the fields `prepare` took while nothing was fed since.
   */
  record(params: Omit<SeedRecordParams, "spanFilter" | "fields">): FoldIndexRecord {
    if (this.#codes === undefined || params.codes !== this.#codes) return this.#seed.record(params);
    const prepared = this.#prepared;
    const fields = prepared?.fed === this.#fed && params.favourRecent === true ? prepared.fields : undefined;
    const record = this.#seed.record({ ...params, spanFilter: noSpans, fields });
    // The spans list itself, not a copy made in the hook: the next feed that adds spans copies it first.
    this.#spansShared = true;
    return { ...record, spans: this.#spans };
  }

  /** Feed everything before the last user message on the lineage (a compaction never cuts earlier). */
  feedSettled(session: Session): number {
    // Only the unfed blocks can hold a user message the feed has not passed: feeding always stops just
    // before the last user message, so an older one was fed already and leaves nothing to feed.
    const unfed = this.#unfed(session);
    let end: number | undefined;
    for (let i = unfed.length - 1; i >= 0; i--) {
      const block = unfed[i] as Block;
      if (block.role === "user") {
        end = block.entryPosition;
        break;
      }
    }
    return end === undefined ? 0 : this.#feedBlocks(session, unfed, end);
  }
}
