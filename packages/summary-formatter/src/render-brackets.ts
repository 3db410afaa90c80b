// Renders a SummaryDoc in context-fold's bracketed layout: stable sections first (prompt-cache prefix),
// volatile ones after, then the brief transcript and the footer. Empty sections are left out.
import type { CommitItem, FileItem, FooterDoc, LineItem, Omission, OutstandingDoc, StatementItem, SummaryDoc } from "./summary-doc.js";
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
import { type BuildCache, buildCache, currentBuild, heldAt, itemLine, keep, LINE, reuse, SECTION_BANK, SLOT } from "./summary-parts.js";
import { utf8Bytes } from "./tokens.js";

function withOmissions(lines: string[], ...omissions: (Omission | null)[]): string[] {
  for (const o of omissions) if (o !== null) lines.push(omissionLine(o));
  return lines;
}

type SectionBuild = (doc: SummaryDoc) => string[];

/**
 * One section of the layout: its title, what its lines are made of (`deps`: the doc's fields it reads,
 * compared by identity) and how they are made: by `build`, or one line per item of `items` (each kept
 * by item: summary-parts' `itemLine`, of kind `kind`) then the omission lines of `omitted`.
 */
type SectionPart =
  | { readonly title: string; readonly deps: (doc: SummaryDoc) => readonly unknown[]; readonly build: SectionBuild }
  | ItemSectionPart;

interface ItemSectionPart {
  readonly title: string;
  readonly deps: (doc: SummaryDoc) => readonly unknown[];
  readonly kind: number;
  readonly items: (doc: SummaryDoc) => readonly object[];
  readonly line: (item: never) => string;
  /** Pushes the section's omission lines after its items' lines. */
  readonly omitted: (lines: string[], doc: SummaryDoc) => void;
}

function goalLines(doc: SummaryDoc): string[] {
  const goal: string[] = [];
  if (doc.goal !== null) pushAll(goal, verbatimLines(TAG_FOUNDING, doc.goal.text, doc.goal.index));
  for (const s of doc.scopeChanges) goal.push(`- ${TAG_SCOPE}${s.text} ${refText(s.index)}`);
  return withOmissions(goal, doc.scopeOmitted);
}

function preferenceLines(doc: SummaryDoc): string[] {
  const prefs: string[] = [];
  for (const p of doc.preferences) prefs.push(`- ${TAG_PREFERENCE}${p.text} ${refText(p.index)}`);
  for (const c of doc.corrections) pushAll(prefs, verbatimLines(TAG_CORRECTION, c.text, c.index));
  return withOmissions(prefs, doc.correctionsOmitted);
}

// Each section's lines by a loop, not a callback made per call: sections are rendered in the compaction
// hook, and a closure made per call is compiled again after every full GC.

function fileLine(f: FileItem): string {
  const symbols = f.symbols.length > 0 ? ` (${f.symbols.join(", ")})` : f.path.endsWith(")") ? " ()" : "";
  return `- ${STATUS_LABEL[f.status]}: ${f.path}${symbols} ${refText(f.index)}`;
}

function statementItemLine(s: StatementItem): string {
  return `- ${statementTag(s.count)}${s.text} ${refText(s.index)}`;
}

function commitLine(c: CommitItem): string {
  return `- ${c.hash}: ${c.subject} ${refText(c.index)}`;
}

function turnLine(t: LineItem): string {
  return `- ${t.text} ${refText(t.index)}`;
}

function anchorLines(doc: SummaryDoc): string[] {
  const anchors: string[] = [];
  if (doc.anchors.commits.length > 0) anchors.push(`- commits: ${doc.anchors.commits.join(", ")}`);
  if (doc.anchors.errors.length > 0) anchors.push(`- errors: ${doc.anchors.errors.join(", ")}`);
  if (doc.anchors.files.length > 0) anchors.push(`- files: ${doc.anchors.files.join(", ")}`);
  return anchors;
}

function previousLines(doc: SummaryDoc): string[] {
  const previous: string[] = [];
  for (const p of doc.previous) {
    previous.push(p.index === null ? `- from ${p.label}:` : `- from ${p.label} ${refText(p.index)}:`);
    for (const line of p.lines) previous.push(`${CONTINUATION}${line}`);
  }
  return previous;
}

function catalogLines(doc: SummaryDoc): string[] {
  const catalog: string[] = [];
  for (const c of doc.typeCatalog) {
    catalog.push(`- ${c.path} [${c.status}]:`);
    for (const line of c.lines) catalog.push(`${CONTINUATION}${line}`);
  }
  return withOmissions(catalog, doc.typeCatalogOmitted);
}

function outstandingLine(o: OutstandingDoc): string {
  const ref = o.resolvedIndex !== undefined ? `(#${String(o.index)} → #${String(o.resolvedIndex)})` : refText(o.index);
  return `- [${o.tag}] [${o.label}] ${o.text} ${ref}`;
}

function statusLines(doc: SummaryDoc): string[] {
  const status: string[] = [];
  if (doc.status.focus !== null) status.push(`- Working on: ${doc.status.focus.text} ${refText(doc.status.focus.index)}`);
  if (doc.status.lastAction !== null) status.push(`- Last action: ${doc.status.lastAction.text} ${refText(doc.status.lastAction.index)}`);
  for (const n of doc.status.next) status.push(`- Next: ${n}`);
  return status;
}

function briefSectionLines(doc: SummaryDoc): string[] {
  const brief: string[] = [];
  if (doc.briefOmitted !== null) brief.push(omissionLine(doc.briefOmitted));
  pushAll(brief, doc.brief);
  return brief;
}

/** The layout's sections in render order. */
const SECTIONS: readonly SectionPart[] = [
  { title: SECTION.goal, deps: (d) => [d.goal, d.scopeChanges, d.scopeOmitted], build: goalLines },
  { title: SECTION.preferences, deps: (d) => [d.preferences, d.corrections, d.correctionsOmitted], build: preferenceLines },
  { title: SECTION.statements, deps: (d) => [d.statements, d.statementsOmitted], kind: LINE.statement, items: (d) => d.statements, line: statementItemLine, omitted: (l, d) => withOmissions(l, d.statementsOmitted) },
  { title: SECTION.files, deps: (d) => [d.files, d.filesOmitted], kind: LINE.file, items: (d) => d.files, line: fileLine, omitted: (l, d) => withOmissions(l, ...d.filesOmitted) },
  { title: SECTION.commits, deps: (d) => [d.commits, d.commitsOmitted], kind: LINE.commit, items: (d) => d.commits, line: commitLine, omitted: (l, d) => withOmissions(l, d.commitsOmitted) },
  { title: SECTION.anchors, deps: (d) => [d.anchors], build: anchorLines },
  { title: SECTION.previous, deps: (d) => [d.previous], build: previousLines },
  { title: SECTION.typeCatalog, deps: (d) => [d.typeCatalog, d.typeCatalogOmitted], build: catalogLines },
  { title: SECTION.outstanding, deps: (d) => [d.outstanding, d.outstandingOmitted], kind: LINE.outstanding, items: (d) => d.outstanding, line: outstandingLine, omitted: (l, d) => withOmissions(l, d.outstandingOmitted) },
  { title: SECTION.earlierTurns, deps: (d) => [d.earlierTurns, d.earlierTurnsOmitted], kind: LINE.turn, items: (d) => d.earlierTurns, line: turnLine, omitted: (l, d) => withOmissions(l, d.earlierTurnsOmitted) },
  { title: SECTION.status, deps: (d) => [d.status], build: statusLines },
  { title: SECTION.brief, deps: (d) => [d.brief, d.briefOmitted], build: briefSectionLines },
];

/** A section's lines and rendered size, remembered with the fields it was made of. */
interface SectionSize {
  readonly deps: readonly unknown[];
  readonly lines: readonly string[];
  /** UTF-8 bytes of `\n\n[title]\n` and the lines joined; 0 for an empty section (left out). */
  readonly bytes: number;
  /** The build it was made in (summary-parts.ts' `currentBuild`): a build never finds another's work. */
  readonly build: number;
  /** A section of one line per item: its items, and each one's line's UTF-8 bytes (`lines` holds the lines, omissions after). */
  readonly items?: readonly object[] | undefined;
  readonly itemBytes?: readonly number[] | undefined;
}

/** The last item section made per section in the build running: the base the next one is made from. */
const lastMade: readonly BuildCache<SectionSize>[] = SECTIONS.map(() => buildCache<SectionSize>());

/**
 * Per section, sizes keyed by the first field it reads. Trimming a summary to its budget renders it
 * after every step, and a step replaces one or two fields (a new array) and keeps the others: only the
 * sections whose fields changed are made again. Docs are never mutated once built (every step copies).
 * Kept within a build only (`buildCache`): across builds a section is found only among the parts
 * prepared at a turn's end.
 */
const sectionSizes: readonly BuildCache<SectionSize>[] = SECTIONS.map(() => buildCache<SectionSize>());

function sameDeps(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function firstObject(deps: readonly unknown[]): object | undefined {
  for (const d of deps) if (typeof d === "object" && d !== null) return d;
  return undefined;
}

const NO_LINES: readonly string[] = Object.freeze([]);
/** UTF-8 bytes of each section's `\n\n[title]\n`, counted once (not a string made per measure). */
const TITLE_BYTES: readonly number[] = SECTIONS.map((part) => utf8Bytes(`\n\n[${part.title}]\n`));
/** UTF-8 bytes of `\n\n${renderFooter(footer)}\n` by footer: a fit measures the same footer at every step. */
const footerBytes = new WeakMap<FooterDoc, number>();
const NO_SECTION: SectionSize = { deps: [], lines: NO_LINES, bytes: 0, build: -1 };

function sectionPart(at: number, doc: SummaryDoc): SectionSize {
  const part = SECTIONS[at];
  const cache = sectionSizes[at];
  if (part === undefined || cache === undefined) return NO_SECTION;
  const deps = part.deps(doc);
  const prepared = (reuse(SLOT.section + at, deps[0], deps[1], deps[2]) ?? reuse(SLOT.section + SECTION_BANK + at, deps[0], deps[1], deps[2])) as SectionSize | undefined;
  if (prepared !== undefined) return prepared;
  const key = firstObject(deps);
  const build = currentBuild();
  const held = key === undefined ? undefined : cache.get(key);
  if (held !== undefined && held.build === build && sameDeps(held.deps, deps)) return held;
  // The bytes of `\n\n[title]\n` and the lines joined by newlines, summed without making the text.
  let lines: string[];
  let bytes = 0;
  let from = 0;
  let items: readonly object[] | undefined;
  let itemBytes: number[] | undefined;
  if ("build" in part) lines = part.build(doc);
  else {
    items = part.items(doc);
    itemBytes = [];
    lines = itemSectionLines(at, part, items, itemBytes);
    for (const b of itemBytes) bytes += b;
    from = lines.length;
    part.omitted(lines, doc);
  }
  if (lines.length > 0) {
    bytes += (TITLE_BYTES[at] ?? 0) + lines.length - 1;
    for (let i = from; i < lines.length; i++) bytes += utf8Bytes(lines[i] as string);
  }
  const made: SectionSize = { deps, lines, bytes, build, items, itemBytes };
  if (items !== undefined) lastMade[at]?.set(part, made);
  if (key !== undefined) cache.set(key, made);
  return keep(SLOT.section + bank * SECTION_BANK + at, made, deps[0], deps[1], deps[2]);
}

/**
 * The lines of an item section's `items` (their bytes pushed on `itemBytes`): each item's line taken from
 * a section of the same kind made before (the last one of this build, else the one prepared in this
 * bank) where it holds the same item (by identity) at the place met walking both lists, else as kept by
 * item (`itemLine`: the same item renders the same line). A turn's list mostly holds the last one's
 * items with a few added or dropped: a walk of two arrays, not a lookup per item.
 */
function itemSectionLines(at: number, part: ItemSectionPart, items: readonly object[], itemBytes: number[]): string[] {
  const base = lastMade[at]?.get(part) ?? (heldAt(SLOT.section + bank * SECTION_BANK + at) as SectionSize | undefined) ?? (heldAt(SLOT.section + at) as SectionSize | undefined);
  const baseItems = base?.items;
  const baseBytes = base?.itemBytes;
  const lines: string[] = [];
  const line = part.line as (item: object) => string;
  let p = baseItems === undefined || items.length === 0 ? -1 : baseItems.indexOf(items[0] as object);
  for (const item of items) {
    // The same item here, or after one the base held and this list dropped.
    if (p >= 0 && baseItems !== undefined && baseItems[p] !== item && baseItems[p + 1] === item) p += 1;
    if (p >= 0 && baseItems !== undefined && baseBytes !== undefined && baseItems[p] === item) {
      lines.push((base as SectionSize).lines[p] as string);
      itemBytes.push(baseBytes[p] as number);
      p += 1;
      continue;
    }
    const made = itemLine(part.kind, item, line);
    lines.push(made.line);
    itemBytes.push(made.bytes);
  }
  return lines;
}

/** The bank sections made while preparing are kept in (see `bracketsBytesKept`). */
let bank = 0;

/**
 * `bracketsBytes`, keeping the sections made while preparing in bank 0 (the summary before its sections
 * are fitted to their shares) or 1 (after): the hook measures both states.
 */
export function bracketsBytesKept(doc: SummaryDoc, into: 0 | 1): number {
  bank = into;
  try {
    return bracketsBytes(doc);
  } finally {
    bank = 0;
  }
}

function sectionBytes(at: number, doc: SummaryDoc): number {
  return sectionPart(at, doc).bytes;
}

/** `utf8Bytes(renderBracketsBody(doc))`, made again only for the sections that changed since last asked. */
export function bracketsBodyBytes(doc: SummaryDoc): number {
  let bytes = utf8Bytes(SUMMARY_MARKER);
  for (let at = 0; at < SECTIONS.length; at++) bytes += sectionBytes(at, doc);
  return bytes;
}

/** `utf8Bytes(renderBrackets(doc))`, see `bracketsBodyBytes`. */
export function bracketsBytes(doc: SummaryDoc): number {
  let footer = footerBytes.get(doc.footer);
  if (footer === undefined) footerBytes.set(doc.footer, (footer = utf8Bytes(`\n\n${renderFooter(doc.footer)}\n`)));
  return bracketsBodyBytes(doc) + footer;
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
  // The sections' lines as the fit last made them (or as prepared), not built again; appended to one
  // string (flattened once, when first read) rather than joined per section and then again as a whole.
  let body = SUMMARY_MARKER;
  for (let at = 0; at < SECTIONS.length; at++) {
    const lines = sectionPart(at, doc).lines;
    if (lines.length === 0) continue;
    body += `\n\n[${(SECTIONS[at] as SectionPart).title}]`;
    for (const line of lines) body += `\n${line}`;
  }
  return body;
}

export function renderFooter(footer: FooterDoc): string {
  return `${FOOTER_RULE}\n${footerLine(footer)}\n\n${RECALL_HINT}`;
}

/** The full summary text in the bracketed layout. */
export function renderBrackets(doc: SummaryDoc): string {
  return `${renderBracketsBody(doc)}\n\n${renderFooter(doc.footer)}\n`;
}
