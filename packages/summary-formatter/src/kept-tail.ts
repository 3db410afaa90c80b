// What the user said, the files written and the commits made outside the blocks facts were extracted
// from, added to the facts a summary is built from: the kept tail after the cut, and the part of the
// branch a damaged line cut off Pi's view before it (extractors' `cutOffBlocks`). The tail stays in
// context after this compaction, but the summary is what outlives it: the next compaction merges it, a
// branch summary or a handoff reads it, and a reader of the summary alone should not find the user's last
// words, the last file written or the last commit missing. Statements said elsewhere keep one entry (a
// repeat adds to its count); files and commits already listed are not listed again.
import {
  createFactsAccumulator,
  type FactsBlock,
  type FileFact,
  type OutsideFacts,
  type SessionFacts,
  statementKey,
  type UserStatement,
  type UserStatementFact,
} from "@context-fold/extractors";

/** `facts` with the tail's user statements, modified files and commits appended (after everything before the cut). */
export function withKeptTail(facts: SessionFacts, tail: readonly FactsBlock[], cwd: string | undefined): SessionFacts {
  return withBlocksOutside(facts, tail, cwd, Number.NEGATIVE_INFINITY, facts.range?.last ?? -1);
}

/** `facts` with what the branch's cut-off part (before Pi's root) said, wrote and committed, placed by #N. */
export function withCutOff(facts: SessionFacts, cutOff: readonly FactsBlock[], cwd: string | undefined): SessionFacts {
  return withBlocksOutside(facts, cutOff, cwd, facts.range?.first ?? Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY);
}

/**
 * `facts` with what `blocks` said, wrote and committed at #N outside [`from`, `to`] (below `from` or above
 * `to`). Loops and bounds, not callbacks made per call: this runs in the compaction hook, and a closure
 * made per call is compiled again after every full GC.
 */
function withBlocksOutside(facts: SessionFacts, blocks: readonly FactsBlock[], cwd: string | undefined, from: number, to: number): SessionFacts {
  if (blocks.length === 0) return facts;
  const acc = createFactsAccumulator(cwd === undefined ? {} : { cwd });
  acc.add(blocks);
  return withFactsOutside(facts, acc.outsideFacts(), from, to);
}

/**
 * `withKeptTail` from the tail's own facts (a facts accumulator fed the tail's blocks, with the same cwd,
 * e.g. grown turn by turn as the tail grows): the same result without reading the tail's blocks again.
 */
export function withKeptTailFacts(facts: SessionFacts, tailFacts: OutsideFacts): SessionFacts {
  return withFactsOutside(facts, tailFacts, Number.NEGATIVE_INFINITY, facts.range?.last ?? -1);
}

/** `facts` with what `t` (the facts of other blocks) said, wrote and committed at #N outside [`from`, `to`]. */
function withFactsOutside(facts: SessionFacts, t: OutsideFacts, from: number, to: number): SessionFacts {
  // Their first substantive message is their own "goal": here it is one more statement.
  const said: UserStatementFact[] = [];
  if (t.goal !== null && (t.goal.index < from || t.goal.index > to)) said.push({ ...t.goal, count: 1 });
  for (const s of t.statements) if (s.index < from || s.index > to) said.push(s);
  const statements = mergedStatements(facts, said);
  const commits = [...facts.commits];
  for (const c of t.commits) {
    if (!(c.index < from || c.index > to) || listedCommit(commits, c.hash)) continue;
    commits.push(c);
  }
  const written: FileFact[] = [];
  for (const f of t.files) if (f.status !== "read" && (f.lastIndex < from || f.lastIndex > to)) written.push(f);
  const files = mergedFiles(facts.files, written);
  const outstanding = t.range !== null && t.range.last > to ? withoutPendingQuestion(facts.outstanding) : facts.outstanding;
  if (statements === facts.statements && commits.length === facts.commits.length && files === facts.files && outstanding === facts.outstanding) return facts;
  // Lists the blocks added nothing to keep their identity (parts made of them are reused: summary-parts.ts).
  const sortedCommits = commits.length === facts.commits.length && ascending(facts.commits) ? facts.commits : commits.sort(ascendingIndex);
  return { ...facts, statements: [...statements].sort(ascendingIndex), commits: sortedCommits, files, outstanding };
}

/**
 * The outstanding items without the question the window ends on, once blocks follow the window (the kept
 * tail): "the user asked and nothing answered", "the assistant asked and nobody replied" is not where the
 * session ends — the tail, which stays in context verbatim, holds what came next.
 */
function withoutPendingQuestion(outstanding: SessionFacts["outstanding"]): SessionFacts["outstanding"] {
  let asked = false;
  for (const o of outstanding) if (o.source === "question") asked = true;
  return asked ? outstanding.filter((o) => o.source !== "question") : outstanding;
}

/** Whether `items` are in ascending #N order (sorting a copy would give the same order). */
function ascending(items: readonly { readonly index: number }[]): boolean {
  for (let i = 1; i < items.length; i++) if ((items[i] as { index: number }).index < (items[i - 1] as { index: number }).index) return false;
  return true;
}

const ascendingIndex = (a: { readonly index: number }, b: { readonly index: number }): number => a.index - b.index;

/** Whether a commit of `commits` has `hash` as a prefix or is its prefix (the same commit, short or long). */
function listedCommit(commits: readonly { readonly hash: string }[], hash: string): boolean {
  for (const o of commits) if (o.hash.startsWith(hash) || hash.startsWith(o.hash)) return true;
  return false;
}

/** `files` with each written file of `written` added, or its entry raised from "read" to the written status. */
function mergedFiles(files: readonly FileFact[], written: readonly FileFact[]): readonly FileFact[] {
  if (written.length === 0) return files;
  const out = [...files];
  const at = new Map<string, number>();
  for (let i = 0; i < out.length; i++) at.set((out[i] as FileFact).path, i);
  let changed = false;
  for (const w of written) {
    const i = at.get(w.path);
    const old = i === undefined ? undefined : out[i];
    if (i === undefined || old === undefined) {
      at.set(w.path, out.length);
      out.push(w);
      changed = true;
    } else if (old.status === "read") {
      out[i] = { ...old, status: w.status, ...(w.lastModifiedIndex === undefined ? {} : { lastModifiedIndex: w.lastModifiedIndex }) };
      changed = true;
    }
  }
  return changed ? out : files;
}

/**
 * `facts` with statements said outside the blocks they were extracted from (extractors' `saidElsewhere`:
 * messages a damaged line cut off Pi's branch, prompts kept only by an extension's entry), merged by the
 * same rule as the tail's and placed by #N.
 */
export function withStatementsSaid(facts: SessionFacts, said: readonly UserStatement[]): SessionFacts {
  if (said.length === 0) return facts;
  const counted: UserStatementFact[] = [];
  for (const s of said) counted.push({ ...s, count: 1 });
  const statements = mergedStatements(facts, counted);
  return statements === facts.statements ? facts : { ...facts, statements: [...statements].sort(ascendingIndex) };
}

/** `facts.statements` with `said` added: one entry per statementKey (a repeat adds to its count), the goal never repeated. */
function mergedStatements(facts: SessionFacts, said: readonly UserStatementFact[]): readonly UserStatementFact[] {
  const statements = [...facts.statements];
  const byKey = new Map<string, number>();
  for (let i = 0; i < statements.length; i++) byKey.set(statementKey((statements[i] as UserStatementFact).text), i);
  const goalKey = facts.goal === null ? null : statementKey(facts.goal.text);
  let changed = false;
  for (const s of [...said].sort(ascendingIndex)) {
    const key = statementKey(s.text);
    if (key === "" || key === goalKey) continue;
    const at = byKey.get(key);
    const old = at === undefined ? undefined : statements[at];
    changed = true;
    if (at !== undefined && old !== undefined) {
      statements[at] = { ...old, count: old.count + s.count };
      continue;
    }
    byKey.set(key, statements.length);
    statements.push(s);
  }
  return changed ? statements : facts.statements;
}
