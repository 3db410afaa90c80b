// Merging a new summary with the previous one: sticky (founding goal, scope changes, preferences,
// corrections, previous foreign summaries), union (files: modified outrank read; commits), replace
// (type catalog, status, anchors; outstanding when the new facts cover the previous ones, else the
// new items plus the older open ones they do not name), rolling (earlier turns, brief transcript).
import { isCorrection, statementKey } from "@context-fold/extractors";
import { LINE_MAX, orderFiles, SYMBOLS_PER_FILE, withoutCorrectionEchoes, withoutListedStatements, withoutStatementEchoes } from "./build-doc.js";
import { briefRef } from "./brief.js";
import { mergeOutstanding, type WindowActivity } from "./carry-outstanding.js";
import type { CommitItem, FileItem, LineItem, Omission, PreviousSummaryDoc, StatementItem, SummaryDoc, VerbatimItem } from "./summary-doc.js";
import { keep, keepSame, MERGED, mergedOf, reuse, SLOT } from "./summary-parts.js";
import { oneLine } from "./summary-syntax.js";

export interface MergeOptions {
  /**
   * true when `next` was extracted from the whole lineage, so it already names everything `previous`
   * named from the same file: `previous`'s omission counts are then not added again, and its
   * outstanding context is replaced.
   */
  readonly nextCoversPrevious?: boolean;
  /**
   * What `next`'s window did (successful commands, edited files), so an open item of `previous` the
   * window settled is carried as RESOLVED (only used when `next` does not cover `previous`).
   */
  readonly window?: WindowActivity;
  /**
   * true when `next` holds only its window's facts while `previous` came from earlier summaries: the
   * window's first request is then no founding request, so `previous`'s goal is kept whatever its #N
   * (a foreign summary's goal sits at its compaction block, after the entries it summarized) and the
   * window's goal is demoted.
   */
  readonly previousGoalFirst?: boolean;
}

const STRENGTH = { created: 2, modified: 1, read: 0 } as const;

// Comparators and lookups are module-level functions and loops, not callbacks made per call: merging runs
// in the compaction hook, and a closure made per call is compiled again after every full GC.
const ascendingIndex = (x: { readonly index: number }, y: { readonly index: number }): number => x.index - y.index;

/** Items of `a` then `b`, each (#N, text) once (the first met), in #N order. */
function unionByIndex<T extends LineItem | VerbatimItem>(a: readonly T[], b: readonly T[]): T[] {
  // Texts met per #N: comparing a few texts at one #N costs less than a key string joining #N and text.
  const seen = new Map<number, string[]>();
  const out: T[] = [];
  for (const list of [a, b]) {
    for (const x of list) {
      const texts = seen.get(x.index);
      if (texts?.includes(x.text) === true) continue;
      if (texts === undefined) seen.set(x.index, [x.text]);
      else texts.push(x.text);
      out.push(x);
    }
  }
  return out.sort(ascendingIndex);
}

/** `old` counted with `s` (the same wording at another #N). */
const addedCount = (old: StatementItem, s: StatementItem): StatementItem => ({ ...old, count: old.count + s.count });

/**
 * Statements of both summaries, once each: the same #N keeps the newer count (a lineage-wide extraction
 * recounted it); the same wording at another #N is folded into the earlier one, counts added.
 */
function unionStatements(a: readonly StatementItem[], b: readonly StatementItem[]): StatementItem[] {
  const byIndex = new Map<number, StatementItem>();
  for (const s of a) byIndex.set(s.index, s);
  for (const s of b) byIndex.set(s.index, s);
  const byKey = new Map<string, StatementItem>();
  for (const s of [...byIndex.values()].sort(ascendingIndex)) {
    const key = statementKey(s.text);
    const old = byKey.get(key);
    byKey.set(key, old === undefined ? s : mergedOf(MERGED.statement, old, s, addedCount));
  }
  return [...byKey.values()].sort(ascendingIndex);
}

/** Each #N after the one before it (no #N twice): what both lists of a summary's turns are. */
function strictlyAscending(list: readonly LineItem[]): boolean {
  for (let k = 1; k < list.length; k++) if (!((list[k - 1] as LineItem).index < (list[k] as LineItem).index)) return false;
  return true;
}

/**
 * Turns by the #N that opened them; the newer one-liner wins (a turn still running last time grew since).
 * Two lists each in #N order (as summaries hold them) are merged in one walk: the same turns in the same
 * order as the map sorted below gives (its keys are distinct), without sorting a long session's thousands.
 */
function unionTurns(a: readonly LineItem[], b: readonly LineItem[]): LineItem[] {
  if (strictlyAscending(a) && strictlyAscending(b)) {
    const out: LineItem[] = [];
    let i = 0;
    let j = 0;
    while (i < a.length && j < b.length) {
      const x = a[i] as LineItem;
      const y = b[j] as LineItem;
      if (x.index < y.index) {
        out.push(x);
        i += 1;
      } else {
        out.push(y);
        j += 1;
        if (x.index === y.index) i += 1;
      }
    }
    for (; i < a.length; i++) out.push(a[i] as LineItem);
    for (; j < b.length; j++) out.push(b[j] as LineItem);
    return out;
  }
  const byIndex = new Map<number, LineItem>();
  for (const t of a) byIndex.set(t.index, t);
  for (const t of b) byIndex.set(t.index, t);
  return [...byIndex.values()].sort(ascendingIndex);
}

function unionFiles(a: readonly FileItem[], b: readonly FileItem[]): FileItem[] {
  const byPath = new Map<string, FileItem>();
  for (const f of [...a, ...b]) {
    const old = byPath.get(f.path);
    if (old === undefined) {
      byPath.set(f.path, f);
      continue;
    }
    byPath.set(f.path, mergedOf(MERGED.file, old, f, mergedFile));
  }
  return orderFiles([...byPath.values()]);
}

/** One file named by both summaries: the stronger status, the symbols of both (capped), the later #N. */
function mergedFile(old: FileItem, f: FileItem): FileItem {
  const symbols = [...old.symbols];
  for (const s of f.symbols) if (!symbols.includes(s) && symbols.length < SYMBOLS_PER_FILE) symbols.push(s);
  return {
    status: STRENGTH[f.status] > STRENGTH[old.status] ? f.status : old.status,
    path: f.path,
    symbols,
    index: Math.max(old.index, f.index),
  };
}

const sameHash = (x: string, y: string): boolean => x.startsWith(y) || y.startsWith(x);

/** Hashes at least this long are compared only with kept hashes sharing their first HEAD characters. */
const HEAD = 7;

/**
 * The commits of `a` then `b`, each left out when a hash already kept is a prefix of its hash or the other
 * way round (`sameHash`), in #N order. Two hashes of at least HEAD characters can be prefixes of each other
 * only when their heads are equal, so each is compared with its head's bucket and the shorter hashes kept:
 * a session merged many times carries hundreds of commits, and comparing each with every kept one was quadratic.
 */
function unionCommits(a: readonly CommitItem[], b: readonly CommitItem[]): CommitItem[] {
  const out: CommitItem[] = [];
  const buckets = new Map<string, string[]>();
  const short: string[] = [];
  for (const list of [a, b]) {
    for (const c of list) {
      if (keptHash(c.hash, out, short, buckets)) continue;
      out.push(c);
      if (c.hash.length < HEAD) short.push(c.hash);
      else {
        const head = c.hash.slice(0, HEAD);
        const bucket = buckets.get(head);
        if (bucket === undefined) buckets.set(head, [c.hash]);
        else bucket.push(c.hash);
      }
    }
  }
  return out.sort(ascendingIndex);
}

/** Whether a kept hash is `hash`'s prefix or has it as a prefix (`sameHash`), looked up as `unionCommits` files them. */
function keptHash(hash: string, out: readonly CommitItem[], short: readonly string[], buckets: ReadonlyMap<string, readonly string[]>): boolean {
  if (hash.length < HEAD) {
    for (const o of out) if (sameHash(o.hash, hash)) return true;
    return false;
  }
  for (const o of short) if (hash.startsWith(o)) return true;
  const bucket = buckets.get(hash.slice(0, HEAD));
  if (bucket !== undefined) for (const o of bucket) if (sameHash(o, hash)) return true;
  return false;
}


function addCounts(a: Omission | null, b: Omission | null, carry: boolean): Omission | null {
  const prev = carry ? a : null;
  if (prev === null) return b;
  if (b === null) return prev;
  return { ...b, count: prev.count + b.count };
}

/**
 * The founding request not kept (in practice: a later window's first request, which its own
 * extraction took for a goal) goes where the extractors would have put a later user message: a
 * correction when it reads as one, else a scope change — never silently dropped.
 */
function demoted(loser: VerbatimItem | null, goal: VerbatimItem | null): { corrections: VerbatimItem[]; scopeChanges: LineItem[] } {
  // A loser restating the kept goal word for word (a later foreign summary repeating its goal) adds nothing.
  if (loser === null || loser.index === goal?.index || loser.text === goal?.text) return { corrections: [], scopeChanges: [] };
  if (isCorrection(loser.text)) return { corrections: [loser], scopeChanges: [] };
  return { corrections: [], scopeChanges: [{ text: oneLine(loser.text, LINE_MAX), index: loser.index }] };
}

/** `next` merged onto `previous` (both context-fold SummaryDocs). Pure. Each merged list is a part (summary-parts.ts) made of the two lists it merges. */
export function mergeSummaries(previous: SummaryDoc, next: SummaryDoc, options: MergeOptions = {}): SummaryDoc {
  const carry = options.nextCoversPrevious !== true;
  const keepPrevious = previous.goal !== null && (options.previousGoalFirst === true || next.goal === null || previous.goal.index <= next.goal.index);
  const goal = keepPrevious ? previous.goal : next.goal;
  const loser = keepPrevious ? next.goal : previous.goal;
  let corrections = reuse(SLOT.mergedCorrections, previous.corrections, next.corrections, goal, loser) as VerbatimItem[] | undefined;
  let scopeChanges = reuse(SLOT.mergedScopeChanges, previous.scopeChanges, next.scopeChanges, goal, loser) as LineItem[] | undefined;
  if (corrections === undefined || scopeChanges === undefined) {
    const demote = demoted(loser, goal);
    corrections ??= keep(SLOT.mergedCorrections, withoutGoal(unionByIndex(previous.corrections, [...next.corrections, ...demote.corrections]), goal), previous.corrections, next.corrections, goal, loser);
    scopeChanges ??= keep(SLOT.mergedScopeChanges, unionByIndex(previous.scopeChanges, [...next.scopeChanges, ...demote.scopeChanges]), previous.scopeChanges, next.scopeChanges, goal, loser);
  }
  const firstNew = next.brief.length > 0 ? briefRef(next.brief[0] ?? "") : Number.POSITIVE_INFINITY;
  const newRefs = new Set<number>();
  for (const l of next.brief) newRefs.add(briefRef(l));
  const rolled: string[] = [];
  for (const l of previous.brief) {
    const ref = briefRef(l);
    if (ref < firstNew && !newRefs.has(ref)) rolled.push(l);
  }
  const previousSummaries =
    (reuse(SLOT.mergedPrevious, previous.previous, next.previous) as PreviousSummaryDoc[] | undefined) ??
    keep(SLOT.mergedPrevious, unionPrevious(previous.previous, next.previous), previous.previous, next.previous);
  const range =
    previous.footer.range === null
      ? next.footer.range
      : next.footer.range === null
        ? previous.footer.range
        : { from: Math.min(previous.footer.range.from, next.footer.range.from), to: Math.max(previous.footer.range.to, next.footer.range.to) };
  const filesOmitted = carry ? [...previous.filesOmitted, ...next.filesOmitted] : next.filesOmitted;
  const unionSaid =
    (reuse(SLOT.unionStatements, previous.statements, next.statements) as StatementItem[] | undefined) ??
    keep(SLOT.unionStatements, unionStatements(previous.statements, next.statements), previous.statements, next.statements);
  const statements =
    (reuse(SLOT.mergedStatements, unionSaid, goal, corrections, scopeChanges) as StatementItem[] | undefined) ??
    keep(SLOT.mergedStatements, withoutListedStatements(unionSaid, goal, corrections, scopeChanges), unionSaid, goal, corrections, scopeChanges);
  const unionPrefs =
    (reuse(SLOT.unionPreferences, previous.preferences, next.preferences) as LineItem[] | undefined) ??
    keep(SLOT.unionPreferences, unionByIndex(previous.preferences, next.preferences), previous.preferences, next.preferences);
  const preferences =
    (reuse(SLOT.mergedPreferences, unionPrefs, corrections, statements) as LineItem[] | undefined) ??
    keepSame(SLOT.mergedPreferences, withoutStatementEchoes(withoutCorrectionEchoes(unionPrefs, corrections), statements), unionPrefs, corrections, statements);
  const files =
    (reuse(SLOT.mergedFiles, previous.files, next.files) as FileItem[] | undefined) ?? keep(SLOT.mergedFiles, unionFiles(previous.files, next.files), previous.files, next.files);
  const commits =
    (reuse(SLOT.mergedCommits, previous.commits, next.commits) as CommitItem[] | undefined) ??
    keep(SLOT.mergedCommits, unionCommits(previous.commits, next.commits), previous.commits, next.commits);
  const earlierTurns =
    (reuse(SLOT.mergedTurns, previous.earlierTurns, next.earlierTurns) as LineItem[] | undefined) ??
    keep(SLOT.mergedTurns, unionTurns(previous.earlierTurns, next.earlierTurns), previous.earlierTurns, next.earlierTurns);
  return {
    goal,
    scopeChanges,
    scopeOmitted: addCounts(previous.scopeOmitted, next.scopeOmitted, carry),
    preferences,
    corrections,
    correctionsOmitted: addCounts(previous.correctionsOmitted, next.correctionsOmitted, carry),
    statements,
    statementsOmitted: addCounts(previous.statementsOmitted, next.statementsOmitted, carry),
    files,
    filesOmitted,
    commits,
    commitsOmitted: addCounts(previous.commitsOmitted, next.commitsOmitted, carry),
    anchors: next.anchors,
    previous: previousSummaries,
    typeCatalog: next.typeCatalog,
    typeCatalogOmitted: next.typeCatalogOmitted,
    outstanding: carry ? mergeOutstanding(previous.outstanding, next.outstanding, options.window ?? null) : next.outstanding,
    outstandingOmitted: addCounts(previous.outstandingOmitted, next.outstandingOmitted, carry),
    earlierTurns,
    earlierTurnsOmitted: addCounts(previous.earlierTurnsOmitted, next.earlierTurnsOmitted, carry),
    status: next.status,
    // Every earlier line rolled on and none added (a turn's end, which has no brief yet): the same list, so its section is found by it.
    brief: next.brief.length === 0 && rolled.length === previous.brief.length ? previous.brief : [...rolled, ...next.brief],
    briefOmitted: addCounts(previous.briefOmitted, next.briefOmitted, true),
    footer: { ...next.footer, range },
  };
}

/** `corrections` without the one at the goal's #N (the goal is listed once, as the founding request). */
function withoutGoal(corrections: readonly VerbatimItem[], goal: VerbatimItem | null): VerbatimItem[] {
  const out: VerbatimItem[] = [];
  for (const c of corrections) if (c.index !== goal?.index) out.push(c);
  return out;
}

/** The earlier summaries of both, each (#N, label) once. */
function unionPrevious(a: readonly PreviousSummaryDoc[], b: readonly PreviousSummaryDoc[]): PreviousSummaryDoc[] {
  const out = [...a];
  for (const p of b) if (!out.some((q) => q.index === p.index && q.label === p.label)) out.push(p);
  return out;
}
