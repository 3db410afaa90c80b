// An earlier summary we did not write (Pi's LLM summary with `## Goal`, `## Progress`, … headings and
// appended `<read-files>`/`<modified-files>` lists; pi-vcc's `[Session Goal]`, `[Files And Changes]`,
// `[Commits]` bracket sections) split at its headings, so it merges section by section: its goal is a
// goal, its files and commits join ours (unioned and counted), every other section stays under the
// previous-summary part with its heading and item count. One pass over the lines: linear time.
import { filePathsOfList } from "@context-fold/extractors";
import { orderFiles } from "./build-doc.js";
import { keep, reuse, SLOT } from "./summary-parts.js";
import { SECTION } from "./summary-syntax.js";
import { emptyDoc, type CommitItem, type FileItem, type FileStatus, type FooterDoc, type LineItem, type PreviousSummaryDoc, type SummaryDoc } from "./summary-doc.js";

/** A section of a foreign summary other than its goal, files and commits, kept as written. */
export interface ForeignSection {
  /** The heading line as written ("## Progress", "[Outstanding Context]"); "" for text before the first heading. */
  readonly heading: string;
  /** Its non-blank lines, in order. */
  readonly lines: readonly string[];
  /** List items at the section's top level (`-`, `*`, `+`, `1.`); its non-blank lines when it has none. */
  readonly items: number;
}

/** A file an earlier summary listed: the raw list text (for the one path normaliser) and its status. */
export interface ForeignFile {
  readonly status: FileStatus;
  readonly text: string;
  readonly symbols: readonly string[];
}

export interface ForeignSummary {
  /** The goal section's text (a one-item list loses its "- "), or null when there is none. */
  readonly goal: string | null;
  /** Headings the goal came from (more than one when the summary repeats it). */
  readonly goalHeadings: readonly string[];
  /** pi-vcc's `[Scope change]` items under its goal. */
  readonly scopeChanges: readonly string[];
  readonly files: readonly ForeignFile[];
  readonly commits: readonly { readonly hash: string; readonly subject: string }[];
  /** Headings files and commits were lifted from, with how many each gave. */
  readonly lifted: readonly { readonly heading: string; readonly items: number }[];
  readonly sections: readonly ForeignSection[];
}

// `# X` / `## X` (deeper levels are sub-headings: Pi's "### Done" stays inside "## Progress").
const MARKDOWN_HEADING = /^#{1,2} \S/;
// pi-vcc's `[Session Goal]`: a capitalised title alone on its line (`[user]` lines of a transcript are not).
const BRACKET_HEADING = /^\[[A-Z][A-Za-z &/-]{0,60}\]$/;
const FILE_TAG = /(<\/?(?:read|modified)-files>)/;
const LIST_ITEM = /^(?:[-*+] |\d{1,4}[.)] )/;
// `- a1b2c3d: subject` (pi-vcc's and our commit line; a trailing `(#N)` of ours is dropped).
const COMMIT_LINE = /^- ([0-9a-f]{7,40}):? (.*)$/;
const REF_SUFFIX = / \(#\d{1,9}\)$/;
const FILE_LINE = /^- (Modified|Created|Read): (.*)$/;
const SCOPE_MARK = "- [Scope change]";
// A model-written file list: a list item opening with a path in backticks ("- `src/a.ts` (885 lines)").
const CODE_ITEM = /^\s{0,8}[-*+] `([^`\n]{1,400})`/;

/**
 * What a label or heading says of the files under it: created ("new", "created"), modified ("modified",
 * "changed", "edited", "updated", "written"), else null (read, or a plain "key files" list).
 */
export function fileListStatus(label: string): FileStatus | null {
  const l = label.toLowerCase();
  if (l.includes("new") || l.includes("creat") || l.includes("added")) return "created";
  if (l.includes("modif") || l.includes("chang") || l.includes("edit") || l.includes("updat") || l.includes("writ")) return "modified";
  return null;
}
const STATUS: Record<string, FileStatus> = { Modified: "modified", Created: "created", Read: "read" };

/** "## Key Decisions" / "[Key Decisions]" → "key decisions". */
function headingKey(heading: string): string {
  const t = heading.startsWith("[") ? heading.slice(1, -1) : heading.replace(/^#{1,2} /, "");
  return t.trim().toLowerCase();
}

const isHeading = (line: string): boolean => MARKDOWN_HEADING.test(line) || BRACKET_HEADING.test(line);

function countItems(lines: readonly string[]): number {
  const listed = lines.filter((l) => LIST_ITEM.test(l)).length;
  return listed > 0 ? listed : lines.length;
}

/** A pi-vcc file line's path and symbols: `src/a.ts (foo, Bar)`. */
function fileOf(status: FileStatus, rest: string): ForeignFile {
  const open = rest.indexOf(" (");
  if (open < 0 || !rest.endsWith(")")) return { status, text: rest, symbols: [] };
  const symbols = rest
    .slice(open + 2, -1)
    .split(", ")
    .filter((s) => s.length > 0 && !/[\s,()]/.test(s));
  return { status, text: rest.slice(0, open), symbols };
}

/**
 * Splits a foreign summary at its headings (both layouts). With `lift` false (nothing to point to),
 * goal, files and commits stay plain sections; with `liftGoal` false only the goal does. Pure, one pass.
 */
export function splitForeignSummary(text: string, lift = true, liftGoal = lift): ForeignSummary {
  const raw: { heading: string; lines: string[] }[] = [{ heading: "", lines: [] }];
  const files: ForeignFile[] = [];
  let listStatus: FileStatus | null = null;
  let listCount = 0;
  const lifted: { heading: string; items: number }[] = [];
  for (const line of text.split("\n")) {
    const current = raw[raw.length - 1] ?? { heading: "", lines: [] };
    // Pi's file lists: tags may share a line ("</read-files><modified-files>"); they sit inside the last section.
    if (lift && (listStatus !== null || FILE_TAG.test(line))) {
      for (const piece of line.split(FILE_TAG)) {
        const t = piece.trim();
        if (t === "<read-files>" || t === "<modified-files>") {
          listStatus = t === "<read-files>" ? "read" : "modified";
          listCount = 0;
        } else if (t === "</read-files>" || t === "</modified-files>") {
          if (listStatus !== null) lifted.push({ heading: listStatus === "read" ? "<read-files>" : "<modified-files>", items: listCount });
          listStatus = null;
        } else if (listStatus !== null && t !== "" && !t.includes(", ")) {
          files.push({ status: listStatus, text: t, symbols: [] });
          listCount++;
        } else if (t !== "") current.lines.push(t);
      }
      continue;
    }
    if (isHeading(line)) raw.push({ heading: line.trim(), lines: [] });
    else if (line.trim() === "---") raw.push({ heading: "---", lines: [] });
    else if (line.trim() !== "") current.lines.push(line.trimEnd());
  }
  // A list never closed (a clipped summary) still says where its files went.
  if (listStatus !== null) lifted.push({ heading: listStatus === "read" ? "<read-files>" : "<modified-files>", items: listCount });
  let goal: string | null = null;
  const goalHeadings: string[] = [];
  const scopeChanges: string[] = [];
  const commits: { hash: string; subject: string }[] = [];
  const sections: ForeignSection[] = [];
  for (const s of raw) {
    const key = headingKey(s.heading);
    if (liftGoal && s.heading !== "" && s.heading !== "---" && (key === "goal" || key === "session goal") && s.lines.length > 0) {
      const own: string[] = [];
      let inScope = false;
      for (const l of s.lines) {
        if (l.startsWith(SCOPE_MARK)) {
          inScope = true;
          const rest = l.slice(SCOPE_MARK.length).trim();
          if (rest !== "") scopeChanges.push(rest);
        } else if (inScope) scopeChanges.push(l.startsWith("- ") ? l.slice(2) : l);
        else own.push(l);
      }
      const body = own.length === 1 && (own[0] ?? "").startsWith("- ") ? (own[0] ?? "").slice(2) : own.join("\n");
      goal = goal === null ? body : `${goal}\n${body}`;
      goalHeadings.push(s.heading);
      continue;
    }
    const rest: string[] = [];
    let taken = 0;
    if (lift && key !== "files and changes" && key.includes("files")) {
      // Pi's model-written "## Files Created/Modified", "## Key Files": paths in backticks under labels.
      let status: FileStatus = fileListStatus(key) ?? "read";
      for (const l of s.lines) {
        const item = CODE_ITEM.exec(l);
        if (item === null) {
          // A label over part of the list ("**New files:**", "Modified:") sets the status of what follows.
          const t = l.trim();
          if (t.length <= 80 && (t.endsWith(":") || t.endsWith(":**"))) status = fileListStatus(t) ?? "read";
          rest.push(l);
          continue;
        }
        files.push({ status, text: item[1] ?? "", symbols: [] });
        taken++;
      }
      if (taken > 0) lifted.push({ heading: s.heading, items: taken });
    } else if (lift && (key === "files and changes" || key === "commits")) {
      for (const l of s.lines) {
        const f = key === "commits" ? null : FILE_LINE.exec(l);
        const c = key === "commits" ? COMMIT_LINE.exec(l.replace(REF_SUFFIX, "")) : null;
        if (f !== null) files.push(fileOf(STATUS[f[1] ?? ""] ?? "read", (f[2] ?? "").replace(REF_SUFFIX, "")));
        else if (c !== null) commits.push({ hash: c[1] ?? "", subject: c[2] ?? "" });
        else {
          rest.push(l);
          continue;
        }
        taken++;
      }
      if (taken > 0) lifted.push({ heading: s.heading, items: taken });
    } else rest.push(...s.lines);
    // A heading with nothing under it (a title such as "# Context Checkpoint") is kept too: nothing is lost.
    const bare = rest.length === 0 && taken === 0 && s.heading !== "" && s.heading !== "---";
    if (rest.length > 0 || bare) sections.push({ heading: s.heading, lines: rest, items: countItems(rest) });
  }
  return { goal: goal === "" ? null : goal, goalHeadings, scopeChanges, files, commits, lifted, sections };
}

/**
 * The previous-summary lines of a split foreign summary: first an index line naming every heading
 * (where the goal, files and commits went; each other section with its item count) so that even a
 * summary clipped to its opening lines points to all of it, then each kept section under its heading,
 * shortest first: a budget clips a previous summary from its end, and so cuts into its longest section
 * (typically a log of work done, which our own sections restate) rather than dropping every short one
 * after it (constraints, critical context, next steps).
 */
export function foreignSectionLines(s: ForeignSummary): string[] {
  const parts: string[] = [];
  for (const h of s.goalHeadings) parts.push(`${h} → ${SECTION.goal}`);
  for (const l of s.lifted) parts.push(`${l.heading} ${String(l.items)} → ${headingKey(l.heading) === "commits" ? SECTION.commits : SECTION.files}`);
  for (const sec of s.sections) parts.push(`${sec.heading === "" ? "(untitled)" : sec.heading} (${String(sec.items)})`);
  const out = [`Sections: ${parts.join("; ")}`];
  const size = (sec: ForeignSection): number => sec.lines.reduce((n, l) => n + l.length + 1, sec.heading.length);
  const shortestFirst = s.sections.map((sec, i) => ({ sec, i, n: size(sec) })).sort((a, b) => a.n - b.n || a.i - b.i);
  for (const { sec } of shortestFirst) {
    out.push(`${sec.heading === "" ? "(untitled)" : sec.heading} (${String(sec.items)} ${sec.items === 1 ? "item" : "items"})`);
    out.push(...sec.lines);
  }
  return out;
}

/**
 * Files listed by foreign summaries (Pi's `<read-files>`/`<modified-files>`, pi-vcc's `[Files And
 * Changes]`), through the one path normaliser, added after `files`; the ref is the compaction block
 * listing them (summaries with no block to point to give none).
 */
export function withForeignFiles(files: readonly FileItem[], foreign: readonly PreviousSummaryDoc[], cwd?: string): FileItem[] {
  const known = new Set(files.map((f) => f.path));
  const extra: FileItem[] = [];
  const at = new Map<string, number>();
  const strength = { created: 2, modified: 1, read: 0 } as const;
  for (const p of foreign) {
    if (p.index === null) continue;
    for (const f of splitForeignSummary(p.lines.join("\n")).files) {
      for (const path of filePathsOfList(f.text, cwd)) {
        if (known.has(path)) continue;
        const old = at.get(path);
        const item: FileItem = { status: f.status, path, symbols: f.symbols, index: p.index };
        if (old === undefined) {
          at.set(path, extra.length);
          extra.push(item);
        } else if (strength[f.status] > strength[extra[old]?.status ?? "read"]) extra[old] = item;
      }
    }
  }
  return orderFiles([...files, ...extra]);
}

/**
 * A foreign summary held by compaction block `index` as a SummaryDoc, so it merges like ours: its goal
 * (and pi-vcc's scope changes) at `index`, its files and commits, its other sections as a
 * previous-summary part. With `liftGoal` false (the founding request itself is known, re-derived from
 * the file) its goal section stays a section: it restates that request. A summary with no block to
 * point to (`index` null) has nothing to lift: it is kept section by section only.
 */
export function foreignDoc(text: string, label: string, index: number | null, footer: FooterDoc, cwd?: string, liftGoal = true): SummaryDoc {
  const base = emptyDoc(footer);
  if (index === null) return { ...base, previous: [{ label, index, lines: foreignSectionLines(splitForeignSummary(text, false)) }] };
  const split = splitForeignSummary(text, true, liftGoal);
  const files = withForeignFiles([], [{ label, index, lines: text.split("\n") }], cwd);
  const commits: CommitItem[] = [];
  for (const c of split.commits) if (!commits.some((o) => o.hash.startsWith(c.hash) || c.hash.startsWith(o.hash))) commits.push({ ...c, index });
  const scopeChanges: LineItem[] = split.scopeChanges.map((t) => ({ text: t, index }));
  return {
    ...base,
    goal: split.goal === null ? null : { text: split.goal, index },
    scopeChanges,
    files,
    commits,
    previous: [{ label, index, lines: foreignSectionLines(split) }],
  };
}

/** The label a branch summary is kept under in [Previous Summary]. */
export const BRANCH_SUMMARY_LABEL = "branch summary";

/**
 * `doc` with the summaries of abandoned branches its facts met (Pi's `branch_summary` entries) kept as
 * previous summaries: split at their headings like any foreign summary (an index line naming every
 * section, then the sections shortest first), each pointing to its block, so the budget clips them with
 * a recall pointer. Their files and commits stay in their sections: they are the other branch's.
 */
export function withBranchSummaries(doc: SummaryDoc, summaries: readonly { readonly text: string; readonly index: number }[] | undefined): SummaryDoc {
  if (summaries === undefined || summaries.length === 0) return doc;
  // A part made of the doc's previous list and the summaries (a list the facts keep while no branch
  // summary is added): the merged previous list and its section are then kept too.
  const held = reuse(SLOT.branchPrevious, doc.previous, summaries) as PreviousSummaryDoc[] | undefined;
  return { ...doc, previous: held ?? keep(SLOT.branchPrevious, branchPrevious(doc.previous, summaries), doc.previous, summaries) };
}

function branchPrevious(list: readonly PreviousSummaryDoc[], summaries: readonly { readonly text: string; readonly index: number }[]): PreviousSummaryDoc[] {
  const previous: PreviousSummaryDoc[] = [...list];
  for (const b of summaries) previous.push({ label: BRANCH_SUMMARY_LABEL, index: b.index, lines: foreignSectionLines(splitForeignSummary(b.text, false)) });
  return previous;
}
