// The handoff seed as data: goal, current state, decisions, open errors and recovery pointers, built
// deterministically from session facts, durable artifacts and the seed index's current view.
import type { DurableArtifacts, OutstandingItem, SessionFacts } from "@context-fold/extractors";
import { CompactBlockSet, type FoldIndexRecord, type Span } from "@context-fold/seed-index-format";

/**
 * The spans of a seed index's current view, in record order, each record's in order: how a view too
 * large to hold is given (records read without their spans, `readSeedIndexLean`, and these read back
 * from the file, `forEachSpan`: a 1 GB session's `index` record holds a million).
 */
export interface SeedSpanWalk {
  /** How many spans `forEach` gives. */
  readonly count: number;
  forEach(onSpan: (span: Span) => void): void;
}

/** What a handoff is built from. Everything is input: no clock, no file access. */
export interface HandoffInput {
  readonly sessionId: string;
  /** The session file the recall commands name (as the reader should type it). */
  readonly sessionFile: string;
  /** `extractFacts` over the active lineage. */
  readonly facts: SessionFacts;
  /** `extractArtifacts` over the same blocks. */
  readonly artifacts: DurableArtifacts;
  /** The seed index's current view (`currentView(outcomes)`); absent or empty without folds. */
  readonly seedRecords?: readonly FoldIndexRecord[];
  /** The current view's spans walked instead of held (see `SeedSpanWalk`); when given, `seedRecords` is not read. */
  readonly seedSpans?: SeedSpanWalk;
  /**
   * The fold spans already picked from the view (`latestFoldSpans` with this input's `maxSpans`), when the
   * caller walked them earlier: then neither `seedRecords` nor `seedSpans` is read. A streamed handoff
   * walks a large view before its stream, on a heap that holds little else (see session-handoff.ts).
   */
  readonly foldSpans?: FoldSpans;
  /** The goal as the user states it now; default: the founding request. */
  readonly goal?: string;
  /** ISO-8601 time printed as the handoff's time (from input, never the clock). */
  readonly now: string;
  /**
   * Anchors of `#N` blocks (`{index, anchor}` of the session's blocks) so block pointers can name a
   * `context-fold resolve` command too; optional.
   */
  readonly blocks?: Iterable<{ readonly index: number; readonly anchor?: string }>;
  /** The seed index file (named in the hint for spans left out by the cap). */
  readonly seedIndexFile?: string;
  /** Most fold spans listed (the most recent; default `HANDOFF_MAX_SPANS`). */
  readonly maxSpans?: number;
  /** Verbatim decisions longer than this are clipped with a recall pointer (default `HANDOFF_VERBATIM_MAX`). */
  readonly verbatimMax?: number;
}

export type DecisionKind = "correction" | "preference" | "scope-change" | "statement";

export interface HandoffDecision {
  readonly kind: DecisionKind;
  readonly text: string;
  readonly turn: number;
  readonly index: number;
  /** true when `text` was clipped (the whole text is at `#index`). */
  readonly clipped: boolean;
}

/** A way back into the full history: a fold span (by code) or a `#N` block. */
export interface HandoffPointer {
  readonly kind: "span" | "block";
  /** What the pointer is for ("founding request", "open error", "fold of bash", …). */
  readonly label: string;
  readonly turn: number;
  readonly code?: string;
  readonly anchor?: string;
  readonly index?: number;
  readonly tool?: string;
  readonly bytes?: number;
  /** The command that brings the content back, ready to paste. */
  readonly command: string;
}

export interface HandoffDoc {
  readonly sessionId: string;
  readonly sessionFile: string;
  readonly seedIndexFile?: string;
  readonly now: string;
  readonly goal: { readonly text: string; readonly source: "given" | "founding-request" | "none"; readonly index?: number };
  /** The founding request(s) verbatim (also when a goal was given): every user message before the first reply. */
  readonly foundingRequests: readonly { readonly text: string; readonly index: number; readonly turn: number }[];
  readonly state: {
    readonly focus: string;
    readonly focusIndex: number | null;
    readonly lastModification?: { readonly text: string; readonly index: number };
    readonly nextSteps: readonly string[];
    readonly changedFiles: readonly { readonly path: string; readonly status: string; readonly index: number }[];
    readonly commits: readonly { readonly hash: string; readonly subject: string; readonly index: number }[];
    /** Commits of the session left out of `commits` (older than the most recent MAX_COMMITS). */
    readonly commitsOmitted: number;
    readonly workingCommands: readonly { readonly command: string; readonly index: number }[];
    readonly recentTurns: readonly { readonly turn: number; readonly index: number; readonly line: string }[];
    readonly turns: number;
  };
  readonly decisions: readonly HandoffDecision[];
  readonly openErrors: readonly OutstandingItem[];
  readonly pointers: readonly HandoffPointer[];
  /** Fold spans in the seed index that the pointer list leaves out (cap). */
  readonly spansOmitted: number;
}

export const HANDOFF_MAX_SPANS = 40;
export const HANDOFF_VERBATIM_MAX = 4000;
const RECENT_TURNS = 6;
const MAX_FILES = 30;
const MAX_COMMITS = 10;
const MAX_WORKING = 8;

/** POSIX shell quoting for paths and codes in the commands we print (only when needed). */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

function clipVerbatim(text: string, max: number): { text: string; clipped: boolean } {
  return text.length <= max ? { text, clipped: false } : { text: text.slice(0, max), clipped: true };
}

function isOpen(item: OutstandingItem): boolean {
  return !item.resolved && (item.severity === "ERROR" || item.source === "user");
}

/** The handoff's content, ready to render. Pure and deterministic. */
export function buildHandoffDoc(input: HandoffInput): HandoffDoc {
  const { facts, artifacts } = input;
  const file = shellQuote(input.sessionFile);
  const verbatimMax = input.verbatimMax ?? HANDOFF_VERBATIM_MAX;
  const prompts = artifacts.initialPrompts.length > 0 ? artifacts.initialPrompts : facts.goal === null ? [] : [facts.goal];
  const foundingRequests = prompts.map((p) => ({ text: p.text, index: p.index, turn: p.turn }));
  // The facts' goal is the first substantive request (a lone "/mode" typed to the harness is not one).
  const founding = facts.goal ?? foundingRequests[0] ?? null;
  const given = input.goal?.trim();
  const goal =
    given !== undefined && given.length > 0
      ? { text: input.goal ?? given, source: "given" as const }
      : founding !== null
        ? { text: founding.text, source: "founding-request" as const, index: founding.index }
        : { text: "", source: "none" as const };

  // Decisions: corrections, preferences and scope changes, verbatim, in session order, one per (#N, text).
  const seen = new Set<string>();
  const decisions: HandoffDecision[] = [];
  const addDecision = (kind: DecisionKind, s: { text: string; turn: number; index: number }): void => {
    const key = `${String(s.index)}\0${s.text}`;
    if (seen.has(key)) return;
    seen.add(key);
    const clip = clipVerbatim(s.text, verbatimMax);
    decisions.push({ kind, text: clip.text, clipped: clip.clipped, turn: s.turn, index: s.index });
  };
  for (const c of artifacts.corrections) addDecision("correction", c);
  for (const p of facts.preferences) addDecision("preference", p);
  for (const s of facts.scopeChanges) addDecision("scope-change", s);
  const listed = new Set(decisions.map((d) => d.index));
  if (founding !== null) listed.add(founding.index);
  for (const s of facts.statements) if (!listed.has(s.index)) addDecision("statement", s);
  decisions.sort((a, b) => a.index - b.index);

  const openErrors = facts.outstanding.filter(isOpen);

  const pointers: HandoffPointer[] = [];
  const pointed = new Set<number>();
  const asked: { label: string; index: number; turn: number }[] = [];
  const blockPointer = (label: string, index: number, turn: number): void => {
    if (pointed.has(index)) return;
    pointed.add(index);
    asked.push({ label, index, turn });
  };
  if (founding !== null) blockPointer("founding request", founding.index, founding.turn);
  for (const p of foundingRequests) blockPointer("founding request", p.index, p.turn);
  // Decisions carry their #N in their heading; only clipped ones need the way back to the whole text.
  for (const d of decisions) if (d.clipped) blockPointer(`${d.kind} (clipped)`, d.index, d.turn);
  for (const e of openErrors) blockPointer(`open error (${e.label})`, e.index, e.turn);
  if (facts.status.lastModification !== undefined) {
    const m = facts.status.lastModification;
    const turn = facts.turns.filter((t) => t.index <= m.index).at(-1)?.turn ?? 0;
    blockPointer("last modification", m.index, turn);
  }
  // The anchors of the pointed blocks only, from one pass over the blocks (a 1 GB session has a million:
  // a map of them all was held while the fold spans are walked).
  const anchors = new Map<number, string>();
  for (const block of input.blocks ?? []) if (block.anchor !== undefined && pointed.has(block.index)) anchors.set(block.index, block.anchor);
  for (const { label, index, turn } of asked) {
    const anchor = anchors.get(index);
    pointers.push({
      kind: "block",
      label,
      turn,
      index,
      ...(anchor === undefined ? {} : { anchor }),
      command: `context-fold recall ${file} --expand ${String(index)}`,
    });
  }

  const { kept, distinct } = input.foldSpans ?? latestFoldSpans(input, input.maxSpans);
  for (const s of kept) {
    pointers.push({
      kind: "span",
      label: `fold of ${s.tool ?? (s.blockId.startsWith("a:") ? "assistant text" : "tool output")}`,
      turn: s.turn,
      code: s.code,
      anchor: s.blockId,
      ...(s.tool === undefined ? {} : { tool: s.tool }),
      bytes: s.bytes,
      command: `context-fold recall ${file} --code ${s.code}`,
    });
  }

  const changedFiles = facts.files
    .filter((f) => f.status !== "read")
    .slice(-MAX_FILES)
    .map((f) => ({ path: f.path, status: f.status, index: f.lastModifiedIndex ?? f.lastIndex }));
  return {
    sessionId: input.sessionId,
    sessionFile: input.sessionFile,
    ...(input.seedIndexFile === undefined ? {} : { seedIndexFile: input.seedIndexFile }),
    now: input.now,
    goal,
    foundingRequests,
    state: {
      focus: facts.status.focus,
      focusIndex: facts.status.focusIndex,
      ...(facts.status.lastModification === undefined ? {} : { lastModification: facts.status.lastModification }),
      nextSteps: facts.status.nextSteps,
      changedFiles,
      commits: facts.commits.slice(-MAX_COMMITS).map((c) => ({ hash: c.hash, subject: c.subject, index: c.index })),
      commitsOmitted: Math.max(0, facts.commits.length - MAX_COMMITS),
      workingCommands: artifacts.workingCommands.slice(-MAX_WORKING).map((w) => ({ command: w.command, index: w.succeededIndex })),
      recentTurns: facts.turns.slice(-RECENT_TURNS).map((t) => ({ turn: t.turn, index: t.index, line: t.oneLine })),
      turns: facts.turns.length,
    },
    decisions,
    openErrors,
    pointers,
    spansOmitted: distinct - kept.length,
  };
}

interface SpanPointerSource {
  code: string;
  blockId: string;
  tool?: string;
  turn: number;
  bytes: number;
}

/** The fold spans a handoff lists (the most recent kept) and how many blockIds the view names. */
export interface FoldSpans {
  readonly kept: readonly SpanPointerSource[];
  readonly distinct: number;
}

/**
 * Fold spans: the latest span naming a blockId wins; listed in the order of each blockId's latest span,
 * the `maxSpans` most recent kept; and how many blockIds there are. Only the `max` most recent are held: a
 * blockId that falls out can come back only as the newest, where a whole ordered map would put it too.
 * The blockIds are counted in a `Set`, or, for a walked view, a `CompactBlockSet` (no anchor held).
 */
export function latestFoldSpans(input: { readonly seedRecords?: readonly FoldIndexRecord[] | undefined; readonly seedSpans?: SeedSpanWalk | undefined }, maxSpans = HANDOFF_MAX_SPANS): FoldSpans {
  const max = Math.max(0, maxSpans);
  const recent = new Map<string, SpanPointerSource>();
  const seen: { add(blockId: string): unknown; readonly size: number } = input.seedSpans === undefined ? new Set<string>() : new CompactBlockSet(input.seedSpans.count);
  const take = (span: Span): void => {
    seen.add(span.blockId);
    if (max === 0) return;
    recent.delete(span.blockId);
    recent.set(span.blockId, {
      code: span.code,
      blockId: span.blockId,
      ...(span.tool === undefined ? {} : { tool: span.tool }),
      turn: span.turn,
      bytes: span.log.bytes,
    });
    if (recent.size > max) recent.delete(recent.keys().next().value as string);
  };
  if (input.seedSpans !== undefined) input.seedSpans.forEach(take);
  else for (const record of input.seedRecords ?? []) for (const span of record.spans) take(span);
  return { kept: [...recent.values()], distinct: seen.size };
}
