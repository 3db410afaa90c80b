// Facts and artifacts (from @context-fold/extractors) to a SummaryDoc, before merging and budgeting:
// one-line fields flattened, symbol names and anchor items filtered to what the line grammar can carry.
import { memoizeText, statementKey, type DurableArtifacts, type SessionFacts } from "@context-fold/extractors";
import type { CatalogFile, CommitItem, FileItem, FooterDoc, LineItem, OutstandingDoc, StatementItem, SummaryDoc, VerbatimItem } from "./summary-doc.js";
import { statementLine } from "./statement-line.js";
import { flat, oneLine } from "./summary-syntax.js";

/** Characters kept of one-line items (scope changes, preferences, turns, outstanding, status). */
export const LINE_MAX = 300;
/** Symbols listed per file. */
export const SYMBOLS_PER_FILE = 8;

const SYMBOL_OK = /^[^\s,()]+$/;
const STATUS_RANK = { modified: 0, created: 1, read: 2 } as const;

/** Remembered per text: each compaction of a session renders mostly the same items again. */
const line = memoizeText((text) => oneLine(text, LINE_MAX));
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

/** Files ordered modified, created, then read; first-touched order within each. */
export function orderFiles(files: readonly FileItem[]): FileItem[] {
  // By status, first-touched order kept within one (the sort is stable).
  return [...files].sort(byStatus);
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

/**
 * The doc of `facts`. Written as loops over module-level helpers, not callbacks: this runs in the
 * compaction hook, and a closure made per call is compiled again after every full GC.
 */
export function docFromFacts(facts: SessionFacts, artifacts: DurableArtifacts, brief: readonly string[], footer: FooterDoc): SummaryDoc {
  const fileItems: FileItem[] = [];
  for (const f of facts.files) fileItems.push({ status: f.status, path: flat(f.path), symbols: listedSymbols(f.symbols), index: f.lastIndex });
  const files = orderFiles(fileItems);
  const catalog: CatalogFile[] = [];
  for (const t of facts.typeCatalog) {
    const last = catalog[catalog.length - 1];
    const text = flat(t.line);
    if (last !== undefined && last.path === t.path) (last.lines as string[]).push(text);
    else catalog.push({ path: flat(t.path), status: t.status, lines: [text] });
  }
  const outstanding: OutstandingDoc[] = [];
  for (const o of facts.outstanding) {
    outstanding.push({
      tag: o.resolved ? "RESOLVED" : o.severity,
      label: flat(o.label).replaceAll("]", ")"),
      text: line(o.text),
      index: o.index,
      ...(o.resolved && o.resolvedIndex !== undefined ? { resolvedIndex: o.resolvedIndex } : {}),
    });
  }
  const goalIndex = facts.goal?.index ?? null;
  const focusIndex = facts.status.focusIndex ?? goalIndex;
  // One entry per (#N, text): the same #N may hold two preferences, the same text two #N.
  const prefSeen = new Map<number, string[]>();
  const preferences: LineItem[] = [];
  for (const p of facts.preferences) {
    const text = line(p.text);
    const seen = prefSeen.get(p.index);
    if (seen?.includes(text) === true) continue;
    if (seen === undefined) prefSeen.set(p.index, [text]);
    else seen.push(text);
    preferences.push({ text, index: p.index });
  }
  const corrections: VerbatimItem[] = [];
  for (const c of artifacts.corrections) if (c.index !== goalIndex) corrections.push({ text: c.text, index: c.index });
  const goal = facts.goal === null ? null : { text: facts.goal.text, index: facts.goal.index };
  const scopeChanges: LineItem[] = [];
  for (const sc of facts.scopeChanges) scopeChanges.push({ text: line(sc.text), index: sc.index });
  const said: StatementItem[] = [];
  for (const st of facts.statements) said.push({ text: statementLine(st.text), index: st.index, count: st.count });
  const statements = withoutListedStatements(said, goal, corrections, scopeChanges);
  const commits: CommitItem[] = [];
  for (const c of facts.commits) commits.push({ hash: c.hash, subject: line(`${c.subject}${c.kind === "commit" ? "" : ` [${c.kind}]`}`), index: c.index });
  const keyFiles: string[] = [];
  for (const f of facts.anchors.keyFiles) keyFiles.push(flat(f));
  const earlierTurns: LineItem[] = [];
  for (const t of facts.turns) earlierTurns.push({ text: line(t.oneLine), index: t.index });
  const next: string[] = [];
  for (const n of facts.status.nextSteps) {
    const text = line(n);
    if (text !== "") next.push(text);
  }
  return {
    goal,
    scopeChanges,
    scopeOmitted: null,
    preferences: withoutStatementEchoes(withoutCorrectionEchoes(preferences, corrections), statements),
    corrections,
    correctionsOmitted: null,
    statements,
    statementsOmitted: null,
    files,
    filesOmitted: [],
    commits,
    commitsOmitted: null,
    anchors: {
      commits: listable(facts.anchors.commits),
      errors: listable(facts.anchors.errorIds),
      files: listable(keyFiles),
    },
    previous: [],
    typeCatalog: catalog,
    typeCatalogOmitted: null,
    outstanding,
    outstandingOmitted: null,
    earlierTurns,
    earlierTurnsOmitted: null,
    status: {
      focus: facts.status.focus !== "" && focusIndex !== null ? { text: line(facts.status.focus), index: focusIndex } : null,
      lastAction: facts.status.lastModification === undefined ? null : { text: line(facts.status.lastModification.text), index: facts.status.lastModification.index },
      next,
    },
    brief,
    briefOmitted: null,
    footer,
  };
}
