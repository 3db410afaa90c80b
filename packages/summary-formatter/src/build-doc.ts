// Facts and artifacts (from @context-fold/extractors) to a SummaryDoc, before merging and budgeting:
// one-line fields flattened, symbol names and anchor items filtered to what the line grammar can carry.
import { memoizeText, statementKey, type DurableArtifacts, type SessionFacts } from "@context-fold/extractors";
import type { CatalogFile, FileItem, FooterDoc, LineItem, OutstandingDoc, StatementItem, SummaryDoc, VerbatimItem } from "./summary-doc.js";
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
const listable = (s: string): boolean => s !== "" && !s.includes(", ") && !s.includes("\n");

/**
 * Preferences without the sentences of a message listed as a correction: a correction is listed once,
 * verbatim, as a correction (the preference extractor also picks "don't …" sentences out of it).
 */
export function withoutCorrectionEchoes<T extends LineItem>(preferences: readonly T[], corrections: readonly VerbatimItem[]): T[] {
  if (corrections.length === 0) return [...preferences];
  const said = new Set(corrections.map((c) => c.index));
  return preferences.filter((p) => !said.has(p.index));
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
  const listed = new Set<number>([...corrections.map((c) => c.index), ...scopeChanges.map((s) => s.index)]);
  if (goal !== null) listed.add(goal.index);
  return statements.filter((s) => !listed.has(s.index));
}

/** Preferences whose sentence a statement of the same message already quotes (containment after `statementKey`). */
export function withoutStatementEchoes<T extends LineItem>(preferences: readonly T[], statements: readonly StatementItem[]): T[] {
  if (statements.length === 0) return [...preferences];
  const byIndex = new Map<number, string>();
  for (const s of statements) byIndex.set(s.index, statementKey(s.text));
  return preferences.filter((p) => {
    const said = byIndex.get(p.index);
    return said === undefined || !said.includes(statementKey(p.text));
  });
}

/** Files ordered modified, created, then read; first-touched order within each. */
export function orderFiles(files: readonly FileItem[]): FileItem[] {
  return files
    .map((f, i) => ({ f, i }))
    .sort((a, b) => STATUS_RANK[a.f.status] - STATUS_RANK[b.f.status] || a.i - b.i)
    .map((x) => x.f);
}

export function docFromFacts(facts: SessionFacts, artifacts: DurableArtifacts, brief: readonly string[], footer: FooterDoc): SummaryDoc {
  const files: FileItem[] = orderFiles(
    facts.files.map((f) => ({
      status: f.status,
      path: flat(f.path),
      symbols: f.symbols.filter((s) => SYMBOL_OK.test(s)).slice(0, SYMBOLS_PER_FILE),
      index: f.lastIndex,
    })),
  );
  const catalog: CatalogFile[] = [];
  for (const t of facts.typeCatalog) {
    const last = catalog[catalog.length - 1];
    const text = flat(t.line);
    if (last !== undefined && last.path === t.path) (last.lines as string[]).push(text);
    else catalog.push({ path: flat(t.path), status: t.status, lines: [text] });
  }
  const outstanding: OutstandingDoc[] = facts.outstanding.map((o) => ({
    tag: o.resolved ? "RESOLVED" : o.severity,
    label: flat(o.label).replaceAll("]", ")"),
    text: line(o.text),
    index: o.index,
    ...(o.resolved && o.resolvedIndex !== undefined ? { resolvedIndex: o.resolvedIndex } : {}),
  }));
  const goalIndex = facts.goal?.index ?? null;
  const focusIndex = facts.status.focusIndex ?? goalIndex;
  const prefSeen = new Set<string>();
  const preferences = facts.preferences
    .map((p) => ({ text: line(p.text), index: p.index }))
    .filter((p) => {
      const key = `${String(p.index)}\u0000${p.text}`;
      if (prefSeen.has(key)) return false;
      prefSeen.add(key);
      return true;
    });
  const corrections = artifacts.corrections.filter((c) => c.index !== goalIndex).map((c) => ({ text: c.text, index: c.index }));
  const goal = facts.goal === null ? null : { text: facts.goal.text, index: facts.goal.index };
  const scopeChanges = facts.scopeChanges.map((s) => ({ text: line(s.text), index: s.index }));
  const statements = withoutListedStatements(
    facts.statements.map((s) => ({ text: statementLine(s.text), index: s.index, count: s.count })),
    goal,
    corrections,
    scopeChanges,
  );
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
    commits: facts.commits.map((c) => ({
      hash: c.hash,
      subject: line(`${c.subject}${c.kind === "commit" ? "" : ` [${c.kind}]`}`),
      index: c.index,
    })),
    commitsOmitted: null,
    anchors: {
      commits: facts.anchors.commits.filter(listable),
      errors: facts.anchors.errorIds.filter(listable),
      files: facts.anchors.keyFiles.map(flat).filter(listable),
    },
    previous: [],
    typeCatalog: catalog,
    typeCatalogOmitted: null,
    outstanding,
    outstandingOmitted: null,
    earlierTurns: facts.turns.map((t) => ({ text: line(t.oneLine), index: t.index })),
    earlierTurnsOmitted: null,
    status: {
      focus: facts.status.focus !== "" && focusIndex !== null ? { text: line(facts.status.focus), index: focusIndex } : null,
      lastAction: facts.status.lastModification === undefined ? null : { text: line(facts.status.lastModification.text), index: facts.status.lastModification.index },
      next: facts.status.nextSteps.map(line).filter((s) => s !== ""),
    },
    brief,
    briefOmitted: null,
    footer,
  };
}
