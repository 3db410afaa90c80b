// Which blocks are folded right now, with their codes and frozen stubs. Rebuilt on restart from the
// seed index's current view (records of our own fold events) minus the blocks the user unfolded.
import {
  CodeAssigner,
  CompactCodeAssigner,
  currentView,
  type FoldIndexRecord,
  forEachSpan,
  type LeanReadOutcome,
  nextSeq,
  parseAnchor,
  type Span,
  type SpansInFile,
} from "@context-fold/seed-index-format";
import { renderStub, type StubSpan } from "./stub.js";

/** A folded block: its anchor (blockId), recall code and extent, and the fold event that folded it. */
export interface FoldedSpan extends StubSpan {
  readonly blockId: string;
  readonly seq: number;
  readonly turn: number;
}

/** An unfold the user asked for, as recorded with `pi.appendEntry`. */
export interface UnfoldMark {
  readonly blockId: string;
  readonly code: string;
}

/** `customType` of the session entries that record unfolds. */
export const UNFOLD_ENTRY = "context-fold-unfold";

/** Record triggers written by the fold ladder (a `compact` record describes compaction, not folds). */
const FOLD_TRIGGERS = new Set(["threshold", "cap"]);

function kindOf(blockId: string): "toolResult" | "thinking" {
  return blockId.startsWith("r:") ? "toolResult" : "thinking";
}

/**
 * The codes of a seed index whose spans were left in the file (a `context-fold index` record of a large
 * session: a million spans on one line), kept in a `CompactCodeAssigner` (tables of numbers, no anchor
 * held: 1.5 GB of span objects, or two maps of a million strings, otherwise). Hands out exactly the codes
 * a `CodeAssigner` given the same pairs would. It does not hold the anchors, so `blockFor` can name only
 * the blocks it keeps as text (12-character codes, codes not their block's own); nothing in the extension
 * asks it (codes are only handed out), and it says so rather than answer "no block" wrongly.
 */
class LeanCodeAssigner extends CodeAssigner {
  readonly #codes: CompactCodeAssigner;

  constructor(expected: number) {
    super();
    this.#codes = new CompactCodeAssigner([], expected);
  }

  /** An existing record's pair (the `CodeAssigner` constructor's rule: a block or code already held is skipped). */
  keep(blockId: string, code: string): void {
    this.#codes.keep(blockId, code);
  }

  override assign(blockId: string): string {
    return this.#codes.assign(blockId);
  }

  override blockFor(code: string): string | undefined {
    const held = this.#codes.holderOf(code);
    if (held !== undefined || !this.#codes.holds(code)) return held;
    throw new Error(`code ${code} is held by a block of a seed-index record read lean (its anchor is not kept)`);
  }
}

export class FoldState {
  readonly codes: CodeAssigner;
  readonly #byAnchor = new Map<string, FoldedSpan>();
  readonly #byCode = new Map<string, FoldedSpan>();
  /** Folded thinking parts per responseId: lets the hook skip assistant messages with none. */
  readonly #thinkingByResponse = new Map<string, number>();
  readonly #pinned = new Set<string>();
  readonly #stubs = new Map<string, string>();
  #nextSeq: number;
  #events = 0;
  /** Bumped whenever the set of folded spans changes (readers cache what they derive from it). */
  #version = 0;

  constructor(nextSeq = 0, codes: CodeAssigner = new CodeAssigner()) {
    this.#nextSeq = nextSeq;
    this.codes = codes;
  }

  /** State from a seed index's current view, its next seq, and the unfolds recorded in the session. */
  static restore(records: readonly FoldIndexRecord[], nextSeq: number, unfolds: readonly UnfoldMark[] = []): FoldState {
    const pairs: [string, string][] = [];
    for (const record of records) for (const span of record.spans) pairs.push([span.blockId, span.code]);
    const state = new FoldState(nextSeq, new CodeAssigner(pairs));
    for (const mark of unfolds) state.#pinned.add(mark.blockId);
    for (const record of records) {
      if (!FOLD_TRIGGERS.has(record.trigger)) continue;
      state.#events += 1;
      state.addRecord(record);
    }
    return state;
  }

  /**
   * `restore` from the outcomes of a lean read (`readSeedIndexFileLean`): its current view, its next seq.
   * A record whose line was too long to hold has its spans read back from the file: into a table of
   * codes (`LeanCodeAssigner`), and, for a fold event's record, into the folded spans held anyway. The
   * state is the one `restore` builds from the same index read whole.
   */
  static restoreLean(outcomes: readonly LeanReadOutcome[], unfolds: readonly UnfoldMark[] = []): FoldState {
    const records = currentView(outcomes);
    const where = new Map<FoldIndexRecord, SpansInFile>();
    for (const o of outcomes) if (o.outcome === "record" && o.spansInFile !== undefined) where.set(o.record, o.spansInFile);
    if (!records.some((record) => where.has(record))) return FoldState.restore(records, nextSeq(outcomes), unfolds);
    let count = 0;
    for (const record of records) count += where.get(record)?.count ?? record.spans.length;
    const codes = new LeanCodeAssigner(count);
    for (const record of records) forEachSpan(record, where.get(record), (span) => codes.keep(span.blockId, span.code));
    const state = new FoldState(nextSeq(outcomes), codes);
    for (const mark of unfolds) state.#pinned.add(mark.blockId);
    for (const record of records) {
      if (!FOLD_TRIGGERS.has(record.trigger)) continue;
      state.#events += 1;
      const spansInFile = where.get(record);
      if (spansInFile === undefined) state.addRecord(record);
      else {
        const spans: Span[] = [];
        forEachSpan(record, spansInFile, (span) => spans.push(span));
        state.addRecord({ ...record, spans });
      }
    }
    return state;
  }

  get nextSeq(): number {
    return this.#nextSeq;
  }
  /** Fold events that stand (restored ones included). */
  get events(): number {
    return this.#events;
  }
  get size(): number {
    return this.#byAnchor.size;
  }
  get isEmpty(): boolean {
    return this.#byAnchor.size === 0;
  }
  /** Changes whenever a span is folded or unfolded: what is derived from `spans()` holds while it stays. */
  get version(): number {
    return this.#version;
  }

  /** Take the spans of a fold-index record we just appended (or restored) as folded. */
  addRecord(record: FoldIndexRecord): FoldedSpan[] {
    const added: FoldedSpan[] = [];
    for (const span of record.spans) {
      if (this.#pinned.has(span.blockId) || this.#byAnchor.has(span.blockId)) continue;
      const folded: FoldedSpan = {
        blockId: span.blockId,
        code: span.code,
        kind: kindOf(span.blockId),
        tool: span.tool,
        bytes: span.log.bytes,
        lines: span.log.lines,
        seq: record.seq,
        turn: span.turn,
      };
      this.#byAnchor.set(span.blockId, folded);
      this.#byCode.set(span.code, folded);
      if (folded.kind === "thinking") {
        const responseId = responseIdOf(span.blockId);
        if (responseId !== undefined) this.#thinkingByResponse.set(responseId, (this.#thinkingByResponse.get(responseId) ?? 0) + 1);
      }
      added.push(folded);
    }
    if (added.length > 0) this.#version += 1;
    if (record.seq + 1 > this.#nextSeq) this.#nextSeq = record.seq + 1;
    return added;
  }

  /** Count a fold event appended in this process. */
  noteEvent(): void {
    this.#events += 1;
  }

  get(anchor: string): FoldedSpan | undefined {
    return this.#byAnchor.get(anchor);
  }
  byCode(code: string): FoldedSpan | undefined {
    return this.#byCode.get(code);
  }
  hasThinkingFolds(responseId: string): boolean {
    return this.#thinkingByResponse.has(responseId);
  }
  isPinned(anchor: string): boolean {
    return this.#pinned.has(anchor);
  }

  /** The stub for a folded block: rendered once from its text (read only then), then frozen. */
  stubFor(span: FoldedSpan, text: () => string): string {
    let stub = this.#stubs.get(span.blockId);
    if (stub === undefined) {
      stub = renderStub(span, text());
      this.#stubs.set(span.blockId, stub);
    }
    return stub;
  }

  /** Unfold a code: its block goes back verbatim and is never folded again. */
  unfold(code: string): FoldedSpan | undefined {
    const span = this.#byCode.get(code);
    if (span === undefined) return undefined;
    this.#byAnchor.delete(span.blockId);
    this.#byCode.delete(code);
    this.#stubs.delete(span.blockId);
    this.#pinned.add(span.blockId);
    this.#version += 1;
    if (span.kind === "thinking") {
      const responseId = responseIdOf(span.blockId);
      if (responseId !== undefined) {
        const left = (this.#thinkingByResponse.get(responseId) ?? 1) - 1;
        if (left <= 0) this.#thinkingByResponse.delete(responseId);
        else this.#thinkingByResponse.set(responseId, left);
      }
    }
    return span;
  }

  spans(): FoldedSpan[] {
    return [...this.#byAnchor.values()];
  }

  /** Bytes of block text folded away (what the stubs stand in for). */
  foldedBytes(): number {
    let bytes = 0;
    for (const span of this.#byAnchor.values()) bytes += span.bytes;
    return bytes;
  }
}

/** `a:<responseId>:p<n>` → responseId; undefined for other anchors. */
export function responseIdOf(blockId: string): string | undefined {
  const parsed = parseAnchor(blockId);
  return parsed.ok && parsed.anchor.kind === "part" ? parsed.anchor.responseId : undefined;
}
