// Keeps a summary within its token budget (estimator: ceil(UTF-8 bytes / 4), see tokens.ts).
// Fixed caps first (brief 120 lines, earlier turns 60, scope changes 12, preferences 20, outstanding 40),
// then verbatim items (founding request whole, corrections newest first) are fitted into half the budget
// as rendered — the rest clipped or counted with #N pointers, so no number of corrections can push a
// summary over its budget — then whole items are dropped lowest priority first until the rendered text
// fits — see TRIM_ORDER — first with each section held at its floor (SECTION_FLOORS), so a section of low
// rank keeps its most important items rather than being emptied, then, only when that cannot fit, without.
// Everything dropped is counted with a recall pointer; nothing is dropped silently.
import { briefRef } from "./brief.js";
import type { CatalogFile, FileItem, LineItem, Omission, OutstandingDoc, PreviousSummaryDoc, StatementItem, SummaryDoc, VerbatimItem } from "./summary-doc.js";
import { buildCache, currentBuild, keep, reuse, SLOT } from "./summary-parts.js";
import { TAG_CORRECTION, TAG_FOUNDING, verbatimLines } from "./summary-syntax.js";
import { utf8Bytes, utf8Head } from "./tokens.js";

export const BRIEF_MAX_LINES = 120;
export const EARLIER_TURNS_MAX = 60;
export const SCOPE_CHANGES_MAX = 12;
export const PREFERENCES_MAX = 20;
export const OUTSTANDING_MAX = 40;
export const STATEMENTS_MAX = 60;
/** Bytes held back for footer numbers that grow after measuring. */
const FOOTER_SLACK = 48;

/** What is trimmed, in order, when a summary is over budget (first = lowest priority). */
export const TRIM_ORDER = [
  "brief transcript down to 20 lines (oldest first)",
  "type catalog (last files first)",
  "earlier turns down to 8 (oldest first)",
  "previous foreign summaries (oldest first, last lines first, down to 3 lines, clipped with a recall pointer; beyond the newest 3, the older ones folded into one line with their #N range)",
  "outstanding context (resolved, then INFO, WARN, ERROR; last first)",
  "read files (last first)",
  "anchors, current status details",
  "preferences, scope changes (oldest first)",
  "rest of the brief transcript, rest of the earlier turns",
  "created and modified files (last first)",
  "commits (oldest first)",
  "user statements (oldest first)",
  "corrections (oldest first)",
] as const;

export interface FitReport {
  /** Verbatim items clipped to stay within half the budget, by #N (ascending). */
  readonly clippedVerbatim: readonly number[];
  /** true when even the fully trimmed summary is over budget (only for budgets too small for the footer). */
  readonly overBudget: boolean;
}

type Render = (doc: SummaryDoc) => string;

function addOmission(list: readonly Omission[], count: number, what: string, recall: string): Omission[] {
  if (count === 0) return [...list];
  const out = [...list];
  const at = out.findIndex((o) => o.what === what);
  const old = at < 0 ? undefined : out[at];
  if (old !== undefined) out[at] = { ...old, count: old.count + count };
  else out.push({ count, what, recall });
  return out;
}

function plus(o: Omission | null, count: number, what: string, recall: string): Omission | null {
  if (count === 0) return o;
  return o === null ? { count, what, recall } : { ...o, count: o.count + count, recall };
}

function briefRecall(doc: SummaryDoc, kept: readonly string[]): string {
  const from = doc.footer.range?.from ?? 0;
  const to = kept.length > 0 ? briefRef(kept[0] ?? "") - 1 : (doc.footer.range?.to ?? from);
  return `#${String(from)}–#${String(Math.max(from, to))}`;
}

function dropBrief(doc: SummaryDoc, n: number): SummaryDoc {
  if (n <= 0) return doc;
  const kept = doc.brief.slice(n);
  return { ...doc, brief: kept, briefOmitted: plus(doc.briefOmitted, Math.min(n, doc.brief.length), "earlier brief lines", briefRecall(doc, kept)) };
}

/** A list capped and its omission count: a part (summary-parts.ts) made of the list and its earlier count. */
interface Capped<T, O = Omission | null> {
  readonly list: readonly T[];
  readonly omitted: O;
}

/** Applies the fixed caps (independent of budget). */
export function applyCaps(doc: SummaryDoc): SummaryDoc {
  let d = dropBrief(doc, doc.brief.length - BRIEF_MAX_LINES);
  const turnsOver = d.earlierTurns.length - EARLIER_TURNS_MAX;
  if (turnsOver > 0) {
    const c =
      (reuse(SLOT.cappedTurns, d.earlierTurns, d.earlierTurnsOmitted) as Capped<LineItem> | undefined) ??
      keep(SLOT.cappedTurns, { list: d.earlierTurns.slice(turnsOver), omitted: plus(d.earlierTurnsOmitted, turnsOver, "earlier turns", "turns") }, d.earlierTurns, d.earlierTurnsOmitted);
    d = { ...d, earlierTurns: c.list, earlierTurnsOmitted: c.omitted };
  }
  const scopeOver = d.scopeChanges.length - SCOPE_CHANGES_MAX;
  if (scopeOver > 0) {
    const c =
      (reuse(SLOT.cappedScope, d.scopeChanges, d.scopeOmitted) as Capped<LineItem> | undefined) ??
      keep(SLOT.cappedScope, { list: d.scopeChanges.slice(scopeOver), omitted: plus(d.scopeOmitted, scopeOver, "earlier scope changes", "user messages") }, d.scopeChanges, d.scopeOmitted);
    d = { ...d, scopeChanges: c.list, scopeOmitted: c.omitted };
  }
  const prefOver = d.preferences.length - PREFERENCES_MAX;
  if (prefOver > 0) {
    const c =
      (reuse(SLOT.cappedPreferences, d.preferences, d.correctionsOmitted) as Capped<LineItem> | undefined) ??
      keep(
        SLOT.cappedPreferences,
        { list: d.preferences.slice(prefOver), omitted: plus(d.correctionsOmitted, prefOver, "earlier preferences or corrections", "user messages") },
        d.preferences,
        d.correctionsOmitted,
      );
    d = { ...d, preferences: c.list, correctionsOmitted: c.omitted };
  }
  if (d.outstanding.length > OUTSTANDING_MAX) {
    const c =
      (reuse(SLOT.cappedOutstanding, d.outstanding, d.outstandingOmitted) as Capped<OutstandingDoc> | undefined) ??
      keep(SLOT.cappedOutstanding, outstandingCapped(d, d.outstanding.length - OUTSTANDING_MAX), d.outstanding, d.outstandingOmitted);
    d = { ...d, outstanding: c.list, outstandingOmitted: c.omitted };
  }
  if (d.statements.length > STATEMENTS_MAX) {
    const c =
      (reuse(SLOT.cappedStatements, d.statements, d.statementsOmitted) as Capped<StatementItem> | undefined) ??
      keep(SLOT.cappedStatements, statementsCapped(d, d.statements.length - STATEMENTS_MAX), d.statements, d.statementsOmitted);
    d = { ...d, statements: c.list, statementsOmitted: c.omitted };
  }
  return d;
}

function outstandingCapped(d: SummaryDoc, n: number): Capped<OutstandingDoc> {
  const dropped = dropOutstanding(d, n);
  return { list: dropped.outstanding, omitted: dropped.outstandingOmitted };
}

function statementsCapped(d: SummaryDoc, n: number): Capped<StatementItem> {
  const dropped = dropStatements(d, n);
  return { list: dropped.statements, omitted: dropped.statementsOmitted };
}

const STATEMENTS_OMITTED = "more user statements";

function dropStatements(doc: SummaryDoc, n: number): SummaryDoc {
  const k = Math.min(n, doc.statements.length);
  return { ...doc, statements: doc.statements.slice(k), statementsOmitted: plus(doc.statementsOmitted, k, STATEMENTS_OMITTED, "user messages") };
}

const RANK: Record<OutstandingDoc["tag"], number> = { RESOLVED: 0, INFO: 1, WARN: 2, ERROR: 3 };

function dropOutstanding(doc: SummaryDoc, n: number): SummaryDoc {
  // Victims: lowest rank first, later items first within a rank; the kept ones keep their order.
  const order = doc.outstanding.map((o, i) => ({ o, i })).sort((a, b) => RANK[a.o.tag] - RANK[b.o.tag] || b.i - a.i);
  const victims = new Set(order.slice(0, n).map((x) => x.i));
  return {
    ...doc,
    outstanding: doc.outstanding.filter((_, i) => !victims.has(i)),
    outstandingOmitted: plus(doc.outstandingOmitted, victims.size, "more outstanding items", "errors"),
  };
}

function dropFiles(doc: SummaryDoc, n: number, statuses: readonly FileItem["status"][], what: string): SummaryDoc {
  const idx: number[] = [];
  for (let i = doc.files.length - 1; i >= 0 && idx.length < n; i--) if (statuses.includes(doc.files[i]?.status ?? "read")) idx.push(i);
  if (idx.length === 0) return doc;
  const drop = new Set(idx);
  return { ...doc, files: doc.files.filter((_, i) => !drop.has(i)), filesOmitted: addOmission(doc.filesOmitted, idx.length, what, "files") };
}

const CLIP_MARK = (index: number | null): string => (index === null ? "… (clipped)" : `… (clipped; recall #${String(index)})`);

/** Clip a verbatim text to at most `maxBytes` UTF-8 bytes including the clip marker. */
function clipVerbatim(item: VerbatimItem, maxBytes: number): VerbatimItem {
  const mark = CLIP_MARK(item.index);
  if (utf8Bytes(item.text) <= maxBytes) return item;
  const head = utf8Head(item.text, maxBytes - utf8Bytes(mark) - 1);
  return { text: head === "" ? mark : `${head}${head.endsWith("\n") ? "" : " "}${mark}`, index: item.index };
}

/** Bytes an item costs as rendered: its lines (tag, continuation indents, ref) and the newline after it. */
function verbatimCost(tag: string, item: VerbatimItem): number {
  return utf8Bytes(verbatimLines(tag, item.text, item.index).join("\n")) + 1;
}

/** Bytes of rendering around a verbatim text (tag, ref, newline) that clipping the text cannot remove. */
function overhead(tag: string, item: VerbatimItem): number {
  return verbatimCost(tag, { text: "", index: item.index });
}

/** `item` clipped so that, as rendered, it costs at most `room` bytes (continuation indents included). */
function clipToCost(tag: string, item: VerbatimItem, room: number): VerbatimItem {
  let max = Math.max(0, room - overhead(tag, item));
  let c = clipVerbatim(item, max);
  // Each continuation line adds its indent: shrink by what is still over (a few rounds at most).
  for (let excess = verbatimCost(tag, c) - room; excess > 0 && max > 0; excess = verbatimCost(tag, c) - room) {
    max = Math.max(0, max - excess);
    c = clipVerbatim(item, max);
  }
  return c;
}

/** A correction too long for the room left is clipped (rather than left out) only with this much room. */
const MIN_CLIPPED_CORRECTION = 160;

/** What the verbatim share left out: counted, pointed to by #N (the newest first), merged with earlier counts. */
function omittedCorrections(doc: SummaryDoc, left: readonly VerbatimItem[]): Omission | null {
  if (left.length === 0) return doc.correctionsOmitted;
  const newest = [...left].sort((a, b) => b.index - a.index).map((c) => `#${String(c.index)}`);
  const pointer = newest.length > 3 ? `${newest.slice(0, 3).join(", ")} …` : newest.join(", ");
  const old = doc.correctionsOmitted;
  // A count that already points elsewhere (preferences a cap dropped) keeps its pointer: "user messages" covers both.
  const recall = old === null ? pointer : old.recall;
  return { count: (old?.count ?? 0) + left.length, what: CORRECTIONS_OMITTED, recall };
}

const CORRECTIONS_OMITTED = "earlier preferences or corrections";

/**
 * The verbatim share (half the budget, contract-decisions.md "Compaction budgets"), measured as
 * rendered: the founding request whole when it fits (else clipped to the share with a recall pointer),
 * then corrections newest first — a later correction overrides an earlier one, so it is the one that
 * must be read — each whole while it fits. The newest correction that does not fit whole is clipped to
 * the room left; an older one that does not fit is left out (a shorter, older one may still fit). What
 * is left out is counted with #N pointers; kept items keep their order. So the verbatim items never take
 * more than their share, however many corrections a session has.
 */
function clipVerbatimItems(doc: SummaryDoc, shareBytes: number): { doc: SummaryDoc; clipped: readonly number[] } {
  const v =
    (reuse(SLOT.verbatim, doc.goal, doc.corrections, doc.correctionsOmitted, shareBytes) as Verbatim | undefined) ??
    keep(SLOT.verbatim, clippedVerbatim(doc, shareBytes), doc.goal, doc.corrections, doc.correctionsOmitted, shareBytes);
  return { doc: { ...doc, goal: v.goal, corrections: v.corrections, correctionsOmitted: v.correctionsOmitted }, clipped: v.clipped };
}

/** The verbatim items as fitted to their share (a part: see summary-parts.ts). */
interface Verbatim {
  readonly goal: VerbatimItem | null;
  readonly corrections: readonly VerbatimItem[];
  readonly correctionsOmitted: Omission | null;
  readonly clipped: readonly number[];
}

function clippedVerbatim(doc: SummaryDoc, shareBytes: number): Verbatim {
  let room = shareBytes;
  const clipped: number[] = [];
  let goal = doc.goal;
  if (goal !== null) {
    const cost = verbatimCost(TAG_FOUNDING, goal);
    if (cost > room) {
      goal = clipToCost(TAG_FOUNDING, goal, room);
      clipped.push(goal.index);
    }
    room = Math.max(0, room - verbatimCost(TAG_FOUNDING, goal));
  }
  const kept = new Map<number, VerbatimItem>();
  const left: VerbatimItem[] = [];
  let clippedOne = false;
  for (let i = doc.corrections.length - 1; i >= 0; i--) {
    const item = doc.corrections[i];
    if (item === undefined) continue;
    const cost = verbatimCost(TAG_CORRECTION, item);
    if (cost <= room) {
      kept.set(i, item);
      room -= cost;
    } else if (!clippedOne && kept.size === 0 && room >= MIN_CLIPPED_CORRECTION) {
      const c = clipToCost(TAG_CORRECTION, item, room);
      clippedOne = true;
      kept.set(i, c);
      clipped.push(item.index);
      room = Math.max(0, room - verbatimCost(TAG_CORRECTION, c));
    } else left.push(item);
  }
  const corrections = doc.corrections.flatMap((_, i) => kept.get(i) ?? []);
  clipped.sort((a, b) => a - b);
  return { goal, corrections, correctionsOmitted: omittedCorrections(doc, left), clipped };
}

/** Bytes the verbatim items may take: half the budget. */
const verbatimShare = (budgetTokens: number): number => Math.floor((budgetTokens * 4) / 2);

/** `doc` capped and its verbatim items fitted to their share: the first steps of `fitToBudget`, which depend on nothing else. */
export function fittedVerbatim(doc: SummaryDoc, budgetTokens: number): SummaryDoc {
  return clipVerbatimItems(applyCaps(doc), verbatimShare(budgetTokens)).doc;
}

/** Lines every previous summary keeps (its opening), whatever the budget. */
export const PREVIOUS_MIN_LINES = 3;

function clipPrevious(doc: SummaryDoc, excessBytes: number): SummaryDoc | null {
  // The oldest summary is clipped first: a later one (Pi's update prompt, our merge) usually restates it.
  const at = doc.previous.findIndex((p) => {
    const body = p.lines[p.lines.length - 1] === CLIP_MARK(p.index) ? p.lines.length - 1 : p.lines.length;
    return body > PREVIOUS_MIN_LINES;
  });
  const p = doc.previous[at];
  if (p === undefined) return null;
  const mark = CLIP_MARK(p.index);
  const body = p.lines[p.lines.length - 1] === mark ? p.lines.slice(0, -1) : [...p.lines];
  let freed = 0;
  while (body.length > PREVIOUS_MIN_LINES && freed < excessBytes) freed += utf8Bytes(body.pop() ?? "") + 3;
  const previous = [...doc.previous];
  previous[at] = { ...p, lines: [...body, mark] };
  return { ...doc, previous };
}

/** Previous summaries kept apart (each down to its opening lines) before the older ones are folded into one line. */
export const PREVIOUS_KEPT = 3;

const FOLDED = /^… \(([0-9]+) summaries clipped; recall #([0-9]+)–#([0-9]+)\)$/;

/** How many summaries an entry stands for and the #N range of their compaction blocks. */
function foldedSpan(p: PreviousSummaryDoc): { count: number; from: number | null; to: number | null } {
  const m = p.lines.length === 1 ? FOLDED.exec(p.lines[0] ?? "") : null;
  if (m !== null) return { count: Number(m[1]), from: Number(m[2]), to: Number(m[3]) };
  return { count: 1, from: p.index, to: p.index };
}

/**
 * A session compacted many times carries one previous summary per compaction: even at their opening
 * lines, thousands of them overrun any budget. The oldest beyond PREVIOUS_KEPT are folded into one
 * entry naming the compactions it stands for and the #N range recall expands them from.
 */
function foldPrevious(doc: SummaryDoc): SummaryDoc | null {
  const n = doc.previous.length - PREVIOUS_KEPT;
  if (n < 2) return null;
  const folded = doc.previous.slice(0, n);
  let count = 0;
  let from: number | null = null;
  let to: number | null = null;
  for (const p of folded) {
    const span = foldedSpan(p);
    count += span.count;
    if (span.from !== null) from = from === null ? span.from : Math.min(from, span.from);
    if (span.to !== null) to = to === null ? span.to : Math.max(to, span.to);
  }
  const first = folded[0];
  const last = folded[folded.length - 1];
  if (first === undefined || last === undefined) return null;
  const label = `${first.label.split(" to ")[0] ?? first.label} to ${last.label.split(" to ").pop() ?? last.label}`;
  const lines = from === null || to === null ? [`… (${String(count)} summaries clipped)`] : [`… (${String(count)} summaries clipped; recall #${String(from)}–#${String(to)})`];
  return { ...doc, previous: [{ label, index: to, lines }, ...doc.previous.slice(n)] };
}

interface Step {
  /** Drops about `excess` bytes worth of items; null when this step has nothing left. */
  (doc: SummaryDoc, excess: number): SummaryDoc | null;
}

/** How many items from the front (or back) of `costs` cover `excess` bytes (at least 1). */
function countFor(costs: readonly number[], excess: number): number {
  let sum = 0;
  let n = 0;
  for (const c of costs) {
    if (sum >= excess) break;
    sum += c;
    n++;
  }
  return Math.max(1, n);
}

const lineCost = (s: string): number => utf8Bytes(s) + 12;

// Costs by module-level functions and loops, not callbacks made per call: fitting runs in the compaction
// hook, and a closure made per call is compiled again after every full GC.
const textCost = (item: { readonly text: string }): number => lineCost(item.text);
const pathCost = (item: { readonly path: string }): number => lineCost(item.path);
const subjectCost = (item: { readonly subject: string }): number => lineCost(item.subject);
const previousCost = (p: PreviousSummaryDoc): number => {
  const held = previousCosts.get(p);
  if (held !== undefined) return held;
  const n = sum(p.lines);
  previousCosts.set(p, n);
  return n;
};
const catalogCost = (c: CatalogFile): number => sum(c.lines) + lineCost(c.path);

/**
 * Each previous summary's summed line costs, by summary, within the build running (summary-parts.ts'
 * `buildCache`): trimming the previous summaries to their share measures the list again after every
 * step, and a step replaces one summary (clipped) and keeps the others, so only that one is summed again
 * (not every line of every summary per step: a session compacted hundreds of times has hundreds).
 */
const previousCosts = buildCache<number>();

/** `cost` of each item, in order. */
function costs<T>(items: readonly T[], cost: (item: T) => number): number[] {
  const out: number[] = [];
  for (const item of items) out.push(cost(item));
  return out;
}

/** The read files (`read`) or the written ones, last first. */
function filesLastFirst(files: readonly FileItem[], read: boolean): FileItem[] {
  const out: FileItem[] = [];
  for (let i = files.length - 1; i >= 0; i--) {
    const f = files[i] as FileItem;
    if ((f.status === "read") === read) out.push(f);
  }
  return out;
}

/** Lines the brief and earlier turns keep until everything else of lower rank is gone. */
export const BRIEF_FLOOR = 20;
export const EARLIER_TURNS_FLOOR = 8;

const briefStep =
  (floor: number): Step =>
  (d, x) =>
    d.brief.length <= floor ? null : dropBrief(d, Math.min(d.brief.length - floor, countFor(costs(d.brief, lineCost), x)));

const turnsStep =
  (floor: number): Step =>
  (d, x) => {
    if (d.earlierTurns.length <= floor) return null;
    const n = Math.min(d.earlierTurns.length - floor, countFor(costs(d.earlierTurns, textCost), x));
    return { ...d, earlierTurns: d.earlierTurns.slice(n), earlierTurnsOmitted: plus(d.earlierTurnsOmitted, n, "earlier turns", "turns") };
  };

const STEPS: Step[] = [
  briefStep(BRIEF_FLOOR),
  (d, x) => {
    if (d.typeCatalog.length === 0) return null;
    const n = countFor(costs([...d.typeCatalog].reverse(), catalogCost), x);
    return { ...d, typeCatalog: d.typeCatalog.slice(0, -n), typeCatalogOmitted: plus(d.typeCatalogOmitted, n, "more type-catalog files", "files") };
  },
  turnsStep(EARLIER_TURNS_FLOOR),
  (d, x) => clipPrevious(d, x) ?? foldPrevious(d),
  (d, x) => (d.outstanding.length === 0 ? null : dropOutstanding(d, countFor(costs(d.outstanding, textCost), x))),
  (d, x) => {
    const reads = filesLastFirst(d.files, true);
    return reads.length === 0 ? null : dropFiles(d, countFor(costs(reads, pathCost), x), ["read"], "more read files");
  },
  (d) => {
    const a = d.anchors;
    if (a.files.length > 0) return { ...d, anchors: { ...a, files: [] } };
    if (a.errors.length > 0) return { ...d, anchors: { ...a, errors: [] } };
    if (a.commits.length > 0) return { ...d, anchors: { ...a, commits: [] } };
    if (d.status.next.length > 0) return { ...d, status: { ...d.status, next: d.status.next.slice(0, -1) } };
    if (d.status.lastAction !== null) return { ...d, status: { ...d.status, lastAction: null } };
    return null;
  },
  (d, x) => {
    if (d.preferences.length > 0) {
      const n = countFor(costs(d.preferences, textCost), x);
      return { ...d, preferences: d.preferences.slice(n), correctionsOmitted: plus(d.correctionsOmitted, n, "earlier preferences or corrections", "user messages") };
    }
    if (d.scopeChanges.length > 0) {
      const n = countFor(costs(d.scopeChanges, textCost), x);
      return { ...d, scopeChanges: d.scopeChanges.slice(n), scopeOmitted: plus(d.scopeOmitted, n, "earlier scope changes", "user messages") };
    }
    return null;
  },
  briefStep(0),
  turnsStep(0),
  (d, x) => {
    const mods = filesLastFirst(d.files, false);
    return mods.length === 0 ? null : dropFiles(d, countFor(costs(mods, pathCost), x), ["modified", "created"], "more modified files");
  },
  (d, x) => {
    if (d.commits.length === 0) return null;
    const n = countFor(costs(d.commits, subjectCost), x);
    return { ...d, commits: d.commits.slice(n), commitsOmitted: plus(d.commitsOmitted, n, "more commits", "commits") };
  },
  (d, x) => (d.statements.length === 0 ? null : dropStatements(d, countFor(costs(d.statements, textCost), x))),
  (d, x) => {
    // The oldest go first: a later correction overrides an earlier one.
    if (d.corrections.length === 0) return null;
    const n = countFor(costs(d.corrections, textCost), x);
    return { ...d, corrections: d.corrections.slice(n), correctionsOmitted: omittedCorrections(d, d.corrections.slice(0, n)) };
  },
];

function sum(xs: readonly string[]): number {
  let n = 0;
  for (const x of xs) n += lineCost(x);
  return n;
}

/**
 * Shares of the budget the bulky sections may hold before the strict order starts (applied only when
 * the summary is over budget), so one long section cannot crowd out all the others.
 */
export const SECTION_SHARES = { brief: 0.25, previous: 0.25, outstanding: 0.15, earlierTurns: 0.1, typeCatalog: 0.08, statements: 0.3 } as const;

/** Sums of line costs by the list they were taken of: a step keeps the lists it does not trim. */
const sums = buildCache<{ readonly n: number; readonly build: number }>();

/** The summed line costs of `items`, remembered for the build running (summary-parts.ts' `buildCache`). */
function sumOf<T>(items: readonly T[], text: (item: T) => number): number {
  const build = currentBuild();
  const held = sums.get(items);
  if (held !== undefined && held.build === build) return held.n;
  let n = 0;
  for (const item of items) n += text(item);
  sums.set(items, { n, build });
  return n;
}

const SHARED: [number, (d: SummaryDoc) => number, number][] = [
  [SECTION_SHARES.brief, (d) => sumOf(d.brief, lineCost), 8],
  [SECTION_SHARES.previous, (d) => sumOf(d.previous, previousCost), 3],
  [SECTION_SHARES.outstanding, (d) => sumOf(d.outstanding, textCost), 4],
  [SECTION_SHARES.earlierTurns, (d) => sumOf(d.earlierTurns, textCost), 9],
  [SECTION_SHARES.typeCatalog, (d) => sumOf(d.typeCatalog, catalogCost), 1],
  [SECTION_SHARES.statements, (d) => sumOf(d.statements, textCost), 12],
];
// Each SHARED entry keeps its part in slot SLOT.shared + its position; the slots after them belong to
// other parts (SLOT.brief first): a seventh entry would overwrite the brief's part without a word.
if (SLOT.shared + SHARED.length > SLOT.brief) throw new Error(`fit-budget: ${String(SHARED.length)} shared sections need more slots than summary-parts.ts gives them (${String(SLOT.brief - SLOT.shared)})`);

/**
 * Floors, as parts of the budget: TRIM_ORDER takes a section below its floor only when the summary
 * cannot fit otherwise, so no section is emptied to keep one of higher priority whole. A shared
 * section's floor is a quarter of its share; the commits, which have no share and no other home, keep
 * 5 %. The outstanding floor holds open items only (ERROR, WARN): resolved ones and notes go first as
 * always. The brief and the earlier turns keep their line floors (BRIEF_FLOOR, EARLIER_TURNS_FLOOR) until
 * the step that takes their rest, the type catalog none: they restate the transcript, which recall
 * returns by #N. The written files have none either: the digest lists every one of them. Together at
 * most 22 % of the budget, reached only by sections that hold that much; what a floor leaves out is
 * counted with a recall pointer, like any other cut.
 */
export const SECTION_FLOORS = {
  previous: SECTION_SHARES.previous / 4,
  outstanding: SECTION_SHARES.outstanding / 4,
  statements: SECTION_SHARES.statements / 4,
  commits: 0.05,
} as const;

/** The outstanding items' bytes above their floor: all but the open items (ERROR, WARN) the floor holds. */
function outstandingAbove(d: SummaryDoc, floorBytes: number): number {
  let open = 0;
  for (const o of d.outstanding) if (o.tag === "ERROR" || o.tag === "WARN") open += textCost(o);
  return sumOf(d.outstanding, textCost) - Math.min(floorBytes, open);
}

/** A floor: how many bytes of its section are above it (`floorBytes` given). */
type Above = (d: SummaryDoc, floorBytes: number) => number;

const aboveOf =
  (measure: (d: SummaryDoc) => number): Above =>
  (d, floorBytes) =>
    measure(d) - floorBytes;

/** Per step of STEPS: the floor of the section it trims (a part of the budget) and its bytes above it, or null (no floor). */
const STEP_FLOORS: readonly (readonly [number, Above] | null)[] = [
  null,
  null,
  null,
  [SECTION_FLOORS.previous, aboveOf((d) => sumOf(d.previous, previousCost))],
  [SECTION_FLOORS.outstanding, outstandingAbove],
  null,
  null,
  null,
  null,
  null,
  null,
  [SECTION_FLOORS.commits, aboveOf((d) => sumOf(d.commits, subjectCost))],
  [SECTION_FLOORS.statements, aboveOf((d) => sumOf(d.statements, textCost))],
  null,
];

/** The two fields of the section each SHARED entry trims (a step of it reads and writes nothing else). */
const SHARED_FIELDS: readonly (readonly [keyof SummaryDoc, keyof SummaryDoc | null])[] = [
  ["brief", "briefOmitted"],
  ["previous", null],
  ["outstanding", "outstandingOmitted"],
  ["earlierTurns", "earlierTurnsOmitted"],
  ["typeCatalog", "typeCatalogOmitted"],
  ["statements", "statementsOmitted"],
];

/** A section trimmed to its share: its two fields (a part, see summary-parts.ts). */
interface Shared {
  readonly list: unknown;
  readonly omitted: unknown;
}

/** The section of SHARED entry `at` trimmed to its share of `limit` (steps drop about the excess, then re-measure). */
function trimToShare(doc: SummaryDoc, at: number, limit: number): SummaryDoc {
  const entry = SHARED[at];
  const step = entry === undefined ? undefined : STEPS[entry[2]];
  if (entry === undefined || step === undefined) return doc;
  const [share, measure] = entry;
  const cap = share * limit;
  let d = doc;
  for (let bytes = measure(d); bytes > cap; bytes = measure(d)) {
    const next = step(d, bytes - cap);
    if (next === null) break;
    d = next;
  }
  return d;
}

/**
 * `trimToShare`, a part made of the section's fields for every section but the brief (which reads the
 * footer's range, and is the hook's own). Each section's share depends on nothing else.
 */
function withinShare(doc: SummaryDoc, at: number, limit: number): SummaryDoc {
  const fields = SHARED_FIELDS[at];
  if (at === 0 || fields === undefined) return trimToShare(doc, at, limit);
  const [listField, omittedField] = fields;
  const list = doc[listField];
  const omitted = omittedField === null ? null : doc[omittedField];
  let held = reuse(SLOT.shared + at, list, omitted, limit) as Shared | undefined;
  if (held === undefined) {
    const d = trimToShare(doc, at, limit);
    held = keep(SLOT.shared + at, { list: d[listField], omitted: omittedField === null ? null : d[omittedField] }, list, omitted, limit);
  }
  if (held.list === list && held.omitted === omitted) return doc;
  return omittedField === null ? { ...doc, [listField]: held.list } : { ...doc, [listField]: held.list, [omittedField]: held.omitted };
}

/**
 * At a turn's end: each section (but the brief) trimmed to its share of the budget, as `fitToBudget`
 * would when the summary is over budget, kept as parts; returns `doc` with them.
 */
export function sharesPrepared(doc: SummaryDoc, budgetTokens: number): SummaryDoc {
  const limit = budgetTokens * 4 - FOOTER_SLACK;
  let d = doc;
  for (let at = 1; at < SHARED.length; at++) d = withinShare(d, at, limit);
  return d;
}

/**
 * Trims `doc` until `render(doc)` is at most `budgetTokens` (ceil(bytes / 4)). The footer's token
 * figures are filled in by the caller afterwards; FOOTER_SLACK covers their digits. `measure` is
 * `render`'s UTF-8 size (a renderer that can size a doc without rendering it whole passes its own).
 */
export function fitToBudget(
  doc: SummaryDoc,
  render: Render,
  budgetTokens: number,
  measure: (doc: SummaryDoc) => number = (d) => utf8Bytes(render(d)),
): { doc: SummaryDoc; report: FitReport } {
  const limit = budgetTokens * 4 - FOOTER_SLACK;
  const verbatim = clipVerbatimItems(applyCaps(doc), verbatimShare(budgetTokens));
  let d = verbatim.doc;
  let size = measure(d);
  if (size > limit) {
    for (let at = 0; at < SHARED.length; at++) d = withinShare(d, at, limit);
    size = measure(d);
  }
  // First in TRIM_ORDER with every section held at its floor, so that no section is emptied to keep
  // one of higher priority whole; only when that cannot fit, again without floors.
  for (const floored of [true, false]) {
    for (let s = 0; s < STEPS.length && size > limit; s++) {
      const step = STEPS[s] as Step;
      const floor = floored ? STEP_FLOORS[s] : null;
      while (size > limit) {
        let excess = size - limit;
        if (floor != null) {
          const above = floor[1](d, floor[0] * limit);
          if (above <= 0) break;
          excess = Math.min(excess, above);
        }
        const next = step(d, excess);
        if (next === null) break;
        d = next;
        size = measure(d);
      }
    }
    if (size <= limit) break;
  }
  return { doc: d, report: { clippedVerbatim: verbatim.clipped, overBudget: size > limit } };
}
