// Renders a SummaryDoc in Pi's default compaction layout (## Goal … ## Critical Context, then
// <read-files>/<modified-files>), for users who want Pi's shape. Same content and refs as the
// bracketed layout; empty sections are left out. Not parsed back: merge from the bracketed layout.
import { renderFooter } from "./render-brackets.js";
import type { Omission, SummaryDoc } from "./summary-doc.js";
import { omissionLine, refText } from "./summary-syntax.js";

const om = (o: Omission | null): string[] => (o === null ? [] : [omissionLine(o)]);
const indent = (text: string): string => text.split("\n").join("\n  ");

/** The body in Pi's layout, without the footer. */
export function renderPiBody(doc: SummaryDoc): string {
  const parts: string[] = [];
  const section = (title: string, lines: string[]): void => {
    if (lines.length > 0) parts.push(`## ${title}\n${lines.join("\n")}`);
  };

  const goal: string[] = [];
  if (doc.goal !== null) goal.push(`${doc.goal.text} ${refText(doc.goal.index)}`);
  for (const s of doc.scopeChanges) goal.push(`- Scope change: ${s.text} ${refText(s.index)}`);
  goal.push(...om(doc.scopeOmitted));
  section("Goal", goal);

  const prefs = doc.preferences.map((p) => `- ${p.text} ${refText(p.index)}`);
  for (const c of doc.corrections) prefs.push(`- Correction: ${indent(c.text)} ${refText(c.index)}`);
  prefs.push(...om(doc.correctionsOmitted));
  for (const s of doc.statements) prefs.push(`- User said${s.count > 1 ? ` (${String(s.count)}×)` : ""}: ${s.text} ${refText(s.index)}`);
  prefs.push(...om(doc.statementsOmitted));
  section("Constraints & Preferences", prefs);

  const progress: string[] = [];
  const done = [
    ...doc.commits.map((c) => `- [x] Commit ${c.hash}: ${c.subject} ${refText(c.index)}`),
    ...om(doc.commitsOmitted),
    ...doc.earlierTurns.map((t) => `- [x] ${t.text} ${refText(t.index)}`),
    ...om(doc.earlierTurnsOmitted),
  ];
  if (done.length > 0) progress.push("### Done", ...done);
  const doing: string[] = [];
  if (doc.status.focus !== null) doing.push(`- [ ] ${doc.status.focus.text} ${refText(doc.status.focus.index)}`);
  if (doc.status.lastAction !== null) doing.push(`- [ ] Last action: ${doc.status.lastAction.text} ${refText(doc.status.lastAction.index)}`);
  if (doing.length > 0) progress.push(`${progress.length > 0 ? "\n" : ""}### In Progress`, ...doing);
  const blocked = doc.outstanding.filter((o) => o.tag !== "RESOLVED").map((o) => `- [${o.tag}] [${o.label}] ${o.text} ${refText(o.index)}`);
  blocked.push(...om(doc.outstandingOmitted));
  if (blocked.length > 0) progress.push(`${progress.length > 0 ? "\n" : ""}### Blocked`, ...blocked);
  section("Progress", progress);

  section(
    "Key Decisions",
    doc.outstanding
      .filter((o) => o.tag === "RESOLVED")
      .map((o) => `- **Fixed**: [${o.label}] ${o.text} (#${String(o.index)}${o.resolvedIndex !== undefined ? ` → #${String(o.resolvedIndex)}` : ""})`),
  );

  section(
    "Next Steps",
    doc.status.next.map((n, i) => `${String(i + 1)}. ${n}`),
  );

  const critical: string[] = [];
  if (doc.anchors.commits.length > 0) critical.push(`- Commits: ${doc.anchors.commits.join(", ")}`);
  if (doc.anchors.errors.length > 0) critical.push(`- Error ids: ${doc.anchors.errors.join(", ")}`);
  if (doc.anchors.files.length > 0) critical.push(`- Key files: ${doc.anchors.files.join(", ")}`);
  for (const c of doc.typeCatalog) {
    critical.push(`- ${c.path} [${c.status}]:`);
    for (const l of c.lines) critical.push(`  ${l}`);
  }
  critical.push(...om(doc.typeCatalogOmitted));
  for (const o of doc.filesOmitted) critical.push(omissionLine(o));
  for (const p of doc.previous) {
    critical.push(`- Previous summary (from ${p.label}${p.index === null ? "" : ` ${refText(p.index)}`}):`);
    for (const l of p.lines) critical.push(`  ${l}`);
  }
  if (doc.brief.length > 0 || doc.briefOmitted !== null) {
    critical.push("- Recent transcript:");
    if (doc.briefOmitted !== null) critical.push(`  ${omissionLine(doc.briefOmitted).slice(2)}`);
    for (const l of doc.brief) critical.push(`  ${l}`);
  }
  section("Critical Context", critical);

  const read = doc.files.filter((f) => f.status === "read").map((f) => f.path);
  const modified = doc.files.filter((f) => f.status !== "read").map((f) => f.path);
  if (read.length > 0) parts.push(`<read-files>\n${read.join("\n")}\n</read-files>`);
  if (modified.length > 0) parts.push(`<modified-files>\n${modified.join("\n")}\n</modified-files>`);
  return parts.join("\n\n");
}

/** The full summary text in Pi's layout. */
export function renderPiLayout(doc: SummaryDoc): string {
  const body = renderPiBody(doc);
  return `${body === "" ? "" : `${body}\n\n`}${renderFooter(doc.footer)}\n`;
}
