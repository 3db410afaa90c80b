// Facts and artifacts (from @context-fold/extractors) to a SummaryDoc, before merging and budgeting:
// one-line fields flattened, symbol names and anchor items filtered to what the line grammar can carry.
import { memoizeText, statementKey, withoutDirectories, type DurableArtifacts, type SessionFacts } from "@context-fold/extractors";
import type {
  AnchorsDoc,
  CatalogFile,
  CommitItem,
  FileItem,
  FooterDoc,
  LineItem,
  Omission,
  OutstandingDoc,
  PreviousSummaryDoc,
  StatementItem,
  StatusDoc,
  SummaryDoc,
  VerbatimItem,
} from "./summary-doc.js";
import { ITEM, itemOf, keep, keepSame, reuse, SLOT } from "./summary-parts.js";
import { LINE_MEMORY, statementLine } from "./statement-line.js";
import { flat, oneLine } from "./summary-syntax.js";

/** Characters kept of one-line items (scope changes, preferences, turns, outstanding, status). */
export const LINE_MAX = 300;
/** Symbols listed per file. */
export const SYMBOLS_PER_FILE = 8;

const SYMBOL_OK = /^[^\s,()]+$/;
const STATUS_RANK = { modified: 0, created: 1, read: 2 } as const;

/** Remembered per text: each compaction of a session renders mostly the same items again. */
const line = memoizeText((text) => oneLine(text, LINE_MAX), LINE_MEMORY);
const isListable = (s: string): boolean => s !== "" && !s.includes(", ") && !s.includes("\n");

/**
 * Preferences without the sentences of a message listed as a correction: a correction is listed once,
 * verbatim, as a correction (the preference extractor also picks "don't …" sentences out of it).
 */
export function withoutCorrectionEchoes<T extends LineItem>(preferences: readonly T[], corrections: readonly VerbatimItem[]): T[] {
  if (corrections.length === 0) return [...preferences];
  const said = new Set<number>();
  for (const c of corrections) said.add(c.index);
  const out: T[] = [];
  for (const p of preferences) if (!said.has(p.index)) out.push(p);
  return out;
}

/**
 * User statements not already listed verbatim elsewhere (the goal, a correction, a scope change at the
 * same #N): each message appears once in the summary.
 */
export function withoutListedStatements(
  statements: readonly StatementItem[],
  goal: VerbatimItem | null,
  corrections: readonly VerbatimItem[],
  scopeChanges: readonly LineItem[],
): StatementItem[] {
  const listed = new Set<number>();
  for (const c of corrections) listed.add(c.index);
  for (const s of scopeChanges) listed.add(s.index);
  if (goal !== null) listed.add(goal.index);
  const out: StatementItem[] = [];
  for (const s of statements) if (!listed.has(s.index)) out.push(s);
  return out;
}

/** Preferences whose sentence a statement of the same message already quotes (containment after `statementKey`). */
export function withoutStatementEchoes<T extends LineItem>(preferences: readonly T[], statements: readonly StatementItem[]): T[] {
  if (statements.length === 0) return [...preferences];
  const byIndex = new Map<number, string>();
  for (const s of statements) byIndex.set(s.index, statementKey(s.text));
  const out: T[] = [];
  for (const p of preferences) {
    const said = byIndex.get(p.index);
    if (said === undefined || !said.includes(statementKey(p.text))) out.push(p);
  }
  return out;
}

/**
 * Files ordered modified, created, then read; first-touched order within each. Every file list of the
 * summary comes through here: a directory among them (a path another one lies under) is left out.
 */
export function orderFiles(files: readonly FileItem[]): FileItem[] {
  // By status, first-touched order kept within one (the sort is stable).
  return [...withoutDirectories(files)].sort(byStatus);
}

const byStatus = (a: FileItem, b: FileItem): number => STATUS_RANK[a.status] - STATUS_RANK[b.status];

/** Symbol names the line grammar can carry, at most SYMBOLS_PER_FILE. */
function listedSymbols(symbols: readonly string[]): string[] {
  const out: string[] = [];
  for (const s of symbols) if (SYMBOL_OK.test(s)) out.push(s);
  return out.length > SYMBOLS_PER_FILE ? out.slice(0, SYMBOLS_PER_FILE) : out;
}

/** The entries of `list` one comma-separated line can carry (a loop, not a callback made per call: see `docFromFacts`). */
function listable(list: readonly string[]): string[] {
  const out: string[] = [];
  for (const s of list) if (isListable(s)) out.push(s);
  return out;
}

/** Empty lists of a fresh doc, one each (never mutated: every step copies), so parts made of them match. */
const NO_OMISSIONS: readonly Omission[] = Object.freeze([]);
const NO_PREVIOUS: readonly PreviousSummaryDoc[] = Object.freeze([]);

type FileFact = SessionFacts["files"][number];

function fileItem(f: FileFact): FileItem {
  return { status: f.status, path: flat(f.path), symbols: listedSymbols(f.symbols), index: f.lastIndex };
}

/** Each item by its fact (`itemOf`: a file the turn did not change keeps its item, so its line). */
function fileItems(list: SessionFacts["files"]): FileItem[] {
  const items: FileItem[] = [];
  for (const f of list) items.push(itemOf(ITEM.file, f, fileItem));
  return orderFiles(items);
}

/**
 * A catalog's signature line made flat, remembered: the catalog is ordered by recency, so a turn that
 * touches a file makes it again, with the same lines (the same strings) at other places.
 */
const flatSignature = memoizeText(flat);

function catalogOf(list: SessionFacts["typeCatalog"]): CatalogFile[] {
  const catalog: CatalogFile[] = [];
  for (const t of list) {
    const last = catalog[catalog.length - 1];
    const text = flatSignature(t.line);
    if (last !== undefined && last.path === t.path) (last.lines as string[]).push(text);
    else catalog.push({ path: flat(t.path), status: t.status, lines: [text] });
  }
  return catalog;
}

function outstandingOf(list: SessionFacts["outstanding"]): OutstandingDoc[] {
  const outstanding: OutstandingDoc[] = [];
  for (const o of list) {
    outstanding.push({
      tag: o.resolved ? "RESOLVED" : o.severity,
      label: flat(o.label).replaceAll("]", ")"),
      text: line(o.text),
      index: o.index,
      ...(o.resolved && o.resolvedIndex !== undefined ? { resolvedIndex: o.resolvedIndex } : {}),
    });
  }
  return outstanding;
}

function preferenceItems(list: SessionFacts["preferences"]): LineItem[] {
  // One entry per (#N, text): the same #N may hold two preferences, the same text two #N.
  const prefSeen = new Map<number, string[]>();
  const preferences: LineItem[] = [];
  for (const p of list) {
    const text = line(p.text);
    const seen = prefSeen.get(p.index);
    if (seen?.includes(text) === true) continue;
    if (seen === undefined) prefSeen.set(p.index, [text]);
    else seen.push(text);
    preferences.push({ text, index: p.index });
  }
  return preferences;
}

function correctionsOf(list: DurableArtifacts["corrections"], goalIndex: number | null): VerbatimItem[] {
  const corrections: VerbatimItem[] = [];
  for (const c of list) if (c.index !== goalIndex) corrections.push({ text: c.text, index: c.index });
  return corrections;
}

function lineItems(list: readonly { readonly text: string; readonly index: number }[]): LineItem[] {
  const items: LineItem[] = [];
  for (const x of list) items.push({ text: line(x.text), index: x.index });
  return items;
}

function saidItem(st: SessionFacts["statements"][number]): StatementItem {
  return { text: statementLine(st.text), index: st.index, count: st.count };
}

function saidOf(list: SessionFacts["statements"]): StatementItem[] {
  const said: StatementItem[] = [];
  for (const st of list) said.push(itemOf(ITEM.statement, st, saidItem));
  return said;
}

function commitItems(list: SessionFacts["commits"]): CommitItem[] {
  const commits: CommitItem[] = [];
  for (const c of list) commits.push({ hash: c.hash, subject: line(`${c.subject}${c.kind === "commit" ? "" : ` [${c.kind}]`}`), index: c.index });
  return commits;
}

function anchorsOf(anchors: SessionFacts["anchors"]): AnchorsDoc {
  const keyFiles: string[] = [];
  for (const f of anchors.keyFiles) keyFiles.push(flat(f));
  return { commits: listable(anchors.commits), errors: listable(anchors.errorIds), files: listable(keyFiles) };
}

function turnItem(t: SessionFacts["turns"][number]): LineItem {
  return { text: line(t.oneLine), index: t.index };
}

function turnItems(list: SessionFacts["turns"]): LineItem[] {
  const earlierTurns: LineItem[] = [];
  for (const t of list) earlierTurns.push(itemOf(ITEM.turn, t, turnItem));
  return earlierTurns;
}

function statusOf(status: SessionFacts["status"], goalIndex: number | null): StatusDoc {
  const focusIndex = status.focusIndex ?? goalIndex;
  const next: string[] = [];
  for (const n of status.nextSteps) {
    const text = line(n);
    if (text !== "") next.push(text);
  }
  return {
    focus: status.focus !== "" && focusIndex !== null ? { text: line(status.focus), index: focusIndex } : null,
    lastAction: status.lastModification === undefined ? null : { text: line(status.lastModification.text), index: status.lastModification.index },
    next,
  };
}

/**
 * The doc of `facts`. Written as loops over module-level helpers, not callbacks: this runs in the
 * compaction hook, and a closure made per call is compiled again after every full GC. Each field is a
 * part (summary-parts.ts) made of the facts lists it reads: a list the turn did not change keeps its
 * part from the turn's end.
 */
export function docFromFacts(facts: SessionFacts, artifacts: DurableArtifacts, brief: readonly string[], footer: FooterDoc): SummaryDoc {
  const files = (reuse(SLOT.files, facts.files) as FileItem[] | undefined) ?? keep(SLOT.files, fileItems(facts.files), facts.files);
  const catalog = (reuse(SLOT.catalog, facts.typeCatalog) as CatalogFile[] | undefined) ?? keep(SLOT.catalog, catalogOf(facts.typeCatalog), facts.typeCatalog);
  const outstanding = (reuse(SLOT.outstanding, facts.outstanding) as OutstandingDoc[] | undefined) ?? keep(SLOT.outstanding, outstandingOf(facts.outstanding), facts.outstanding);
  const goalIndex = facts.goal?.index ?? null;
  const prefItems =
    (reuse(SLOT.preferenceItems, facts.preferences) as LineItem[] | undefined) ?? keep(SLOT.preferenceItems, preferenceItems(facts.preferences), facts.preferences);
  const corrections =
    (reuse(SLOT.corrections, artifacts.corrections, goalIndex) as VerbatimItem[] | undefined) ??
    keep(SLOT.corrections, correctionsOf(artifacts.corrections, goalIndex), artifacts.corrections, goalIndex);
  let goal = reuse(SLOT.goal, facts.goal) as VerbatimItem | null | undefined;
  if (goal === undefined) goal = keep(SLOT.goal, facts.goal === null ? null : { text: facts.goal.text, index: facts.goal.index }, facts.goal);
  const scopeChanges = (reuse(SLOT.scopeChanges, facts.scopeChanges) as LineItem[] | undefined) ?? keep(SLOT.scopeChanges, lineItems(facts.scopeChanges), facts.scopeChanges);
  const said = (reuse(SLOT.said, facts.statements) as StatementItem[] | undefined) ?? keep(SLOT.said, saidOf(facts.statements), facts.statements);
  const statements =
    (reuse(SLOT.statements, said, goal, corrections, scopeChanges) as StatementItem[] | undefined) ??
    keep(SLOT.statements, withoutListedStatements(said, goal, corrections, scopeChanges), said, goal, corrections, scopeChanges);
  const preferences =
    (reuse(SLOT.preferences, prefItems, corrections, statements) as LineItem[] | undefined) ??
    keepSame(SLOT.preferences, withoutStatementEchoes(withoutCorrectionEchoes(prefItems, corrections), statements), prefItems, corrections, statements);
  const commits = (reuse(SLOT.commits, facts.commits) as CommitItem[] | undefined) ?? keep(SLOT.commits, commitItems(facts.commits), facts.commits);
  const a = facts.anchors;
  const anchors = (reuse(SLOT.anchors, a.commits, a.errorIds, a.keyFiles) as AnchorsDoc | undefined) ?? keep(SLOT.anchors, anchorsOf(a), a.commits, a.errorIds, a.keyFiles);
  const earlierTurns = (reuse(SLOT.earlierTurns, facts.turns) as LineItem[] | undefined) ?? keep(SLOT.earlierTurns, turnItems(facts.turns), facts.turns);
  const status = (reuse(SLOT.status, facts.status, goalIndex) as StatusDoc | undefined) ?? keep(SLOT.status, statusOf(facts.status, goalIndex), facts.status, goalIndex);
  return {
    goal,
    scopeChanges,
    scopeOmitted: null,
    preferences,
    corrections,
    correctionsOmitted: null,
    statements,
    statementsOmitted: null,
    files,
    filesOmitted: NO_OMISSIONS,
    commits,
    commitsOmitted: null,
    anchors,
    previous: NO_PREVIOUS,
    typeCatalog: catalog,
    typeCatalogOmitted: null,
    outstanding,
    outstandingOmitted: null,
    earlierTurns,
    earlierTurnsOmitted: null,
    status,
    brief,
    briefOmitted: null,
    footer,
  };
}
