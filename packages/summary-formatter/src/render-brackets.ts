// Renders a SummaryDoc in context-fold's bracketed layout: stable sections first (prompt-cache prefix),
// volatile ones after, then the brief transcript and the footer. Empty sections are left out.
import type { FooterDoc, Omission, SummaryDoc } from "./summary-doc.js";
import {
  CONTINUATION,
  FOOTER_RULE,
  RECALL_HINT,
  SECTION,
  STATUS_LABEL,
  SUMMARY_MARKER,
  TAG_CORRECTION,
  TAG_FOUNDING,
  TAG_PREFERENCE,
  TAG_SCOPE,
  omissionLine,
  statementTag,
  pushAll,
  refText,
  verbatimLines,
} from "./summary-syntax.js";

function withOmissions(lines: string[], ...omissions: (Omission | null)[]): string[] {
  for (const o of omissions) if (o !== null) lines.push(omissionLine(o));
  return lines;
}

/** The section bodies in render order, keyed by section title (empty bodies included). */
export function bracketSections(doc: SummaryDoc): [string, string[]][] {
  const goal: string[] = [];
  if (doc.goal !== null) pushAll(goal, verbatimLines(TAG_FOUNDING, doc.goal.text, doc.goal.index));
  for (const s of doc.scopeChanges) goal.push(`- ${TAG_SCOPE}${s.text} ${refText(s.index)}`);
  withOmissions(goal, doc.scopeOmitted);

  const prefs: string[] = [];
  for (const p of doc.preferences) prefs.push(`- ${TAG_PREFERENCE}${p.text} ${refText(p.index)}`);
  for (const c of doc.corrections) pushAll(prefs, verbatimLines(TAG_CORRECTION, c.text, c.index));
  withOmissions(prefs, doc.correctionsOmitted);

  const statements = withOmissions(
    doc.statements.map((s) => `- ${statementTag(s.count)}${s.text} ${refText(s.index)}`),
    doc.statementsOmitted,
  );

  const files = doc.files.map((f) => {
    const symbols = f.symbols.length > 0 ? ` (${f.symbols.join(", ")})` : f.path.endsWith(")") ? " ()" : "";
    return `- ${STATUS_LABEL[f.status]}: ${f.path}${symbols} ${refText(f.index)}`;
  });
  withOmissions(files, ...doc.filesOmitted);

  const commits = withOmissions(
    doc.commits.map((c) => `- ${c.hash}: ${c.subject} ${refText(c.index)}`),
    doc.commitsOmitted,
  );

  const anchors: string[] = [];
  if (doc.anchors.commits.length > 0) anchors.push(`- commits: ${doc.anchors.commits.join(", ")}`);
  if (doc.anchors.errors.length > 0) anchors.push(`- errors: ${doc.anchors.errors.join(", ")}`);
  if (doc.anchors.files.length > 0) anchors.push(`- files: ${doc.anchors.files.join(", ")}`);

  const previous: string[] = [];
  for (const p of doc.previous) {
    previous.push(p.index === null ? `- from ${p.label}:` : `- from ${p.label} ${refText(p.index)}:`);
    for (const line of p.lines) previous.push(`${CONTINUATION}${line}`);
  }

  const catalog: string[] = [];
  for (const c of doc.typeCatalog) {
    catalog.push(`- ${c.path} [${c.status}]:`);
    for (const line of c.lines) catalog.push(`${CONTINUATION}${line}`);
  }
  withOmissions(catalog, doc.typeCatalogOmitted);

  const outstanding = withOmissions(
    doc.outstanding.map((o) => {
      const ref = o.resolvedIndex !== undefined ? `(#${String(o.index)} → #${String(o.resolvedIndex)})` : refText(o.index);
      return `- [${o.tag}] [${o.label}] ${o.text} ${ref}`;
    }),
    doc.outstandingOmitted,
  );

  const turns = withOmissions(
    doc.earlierTurns.map((t) => `- ${t.text} ${refText(t.index)}`),
    doc.earlierTurnsOmitted,
  );

  const status: string[] = [];
  if (doc.status.focus !== null) status.push(`- Working on: ${doc.status.focus.text} ${refText(doc.status.focus.index)}`);
  if (doc.status.lastAction !== null) status.push(`- Last action: ${doc.status.lastAction.text} ${refText(doc.status.lastAction.index)}`);
  for (const n of doc.status.next) status.push(`- Next: ${n}`);

  const brief: string[] = [];
  if (doc.briefOmitted !== null) brief.push(omissionLine(doc.briefOmitted));
  pushAll(brief, doc.brief);

  return [
    [SECTION.goal, goal],
    [SECTION.preferences, prefs],
    [SECTION.statements, statements],
    [SECTION.files, files],
    [SECTION.commits, commits],
    [SECTION.anchors, anchors],
    [SECTION.previous, previous],
    [SECTION.typeCatalog, catalog],
    [SECTION.outstanding, outstanding],
    [SECTION.earlierTurns, turns],
    [SECTION.status, status],
    [SECTION.brief, brief],
  ];
}

export function ratioText(windowTokens: number, summaryTokens: number): string {
  return summaryTokens > 0 ? (windowTokens / summaryTokens).toFixed(1) : "0.0";
}

export function footerLine(f: FooterDoc): string {
  const range = f.range === null ? "none" : `#${String(f.range.from)}–#${String(f.range.to)}`;
  return (
    `Compacted at ${f.at} | ${String(f.messages)} messages ~${String(f.windowTokens)} tok → summary ~${String(f.summaryTokens)} tok ` +
    `(${ratioText(f.windowTokens, f.summaryTokens)}x) | tail: ${String(f.tailMessages)} messages ~${String(f.tailTokens)} tok | range: ${range}`
  );
}

/** The body (marker + sections), without the footer. */
export function renderBracketsBody(doc: SummaryDoc): string {
  const parts: string[] = [SUMMARY_MARKER];
  for (const [title, lines] of bracketSections(doc)) {
    if (lines.length === 0) continue;
    parts.push(`[${title}]\n${lines.join("\n")}`);
  }
  return parts.join("\n\n");
}

export function renderFooter(footer: FooterDoc): string {
  return `${FOOTER_RULE}\n${footerLine(footer)}\n\n${RECALL_HINT}`;
}

/** The full summary text in the bracketed layout. */
export function renderBrackets(doc: SummaryDoc): string {
  return `${renderBracketsBody(doc)}\n\n${renderFooter(doc.footer)}\n`;
}
