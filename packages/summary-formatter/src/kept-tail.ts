// What the user said and the commits made in the kept tail, added to the facts a summary is built from.
// The tail stays in context after this compaction, but the summary is what outlives it: the next
// compaction merges it, a branch summary or a handoff reads it, and a reader of the summary alone should
// not find the user's last words or the last commit missing. Statements said earlier keep one entry
// (the tail's repeat adds to its count); commits already listed are not listed again.
import { createFactsAccumulator, type FactsBlock, type SessionFacts, statementKey, type UserStatement, type UserStatementFact } from "@context-fold/extractors";

/** `facts` with the tail's user statements and commits appended (after everything before the cut). */
export function withKeptTail(facts: SessionFacts, tail: readonly FactsBlock[], cwd: string | undefined): SessionFacts {
  if (tail.length === 0) return facts;
  const acc = createFactsAccumulator(cwd === undefined ? {} : { cwd });
  acc.add(tail);
  const t = acc.facts();
  const after = facts.range?.last ?? -1;
  // The tail's first substantive message is its own "goal": here it is one more statement.
  const said: UserStatementFact[] = [...(t.goal === null ? [] : [{ ...t.goal, count: 1 }]), ...t.statements].filter((s) => s.index > after);
  const statements = mergedStatements(facts, said);
  const commits = [...facts.commits];
  for (const c of t.commits) {
    if (c.index <= after || commits.some((o) => o.hash.startsWith(c.hash) || c.hash.startsWith(o.hash))) continue;
    commits.push(c);
  }
  return statements === facts.statements && commits.length === facts.commits.length ? facts : { ...facts, statements, commits };
}

/**
 * `facts` with statements said outside the blocks they were extracted from (extractors' `saidElsewhere`:
 * messages a damaged line cut off Pi's branch, prompts kept only by an extension's entry), merged by the
 * same rule as the tail's and placed by #N.
 */
export function withStatementsSaid(facts: SessionFacts, said: readonly UserStatement[]): SessionFacts {
  if (said.length === 0) return facts;
  const statements = mergedStatements(facts, said.map((s) => ({ ...s, count: 1 })));
  return statements === facts.statements ? facts : { ...facts, statements: [...statements].sort((a, b) => a.index - b.index) };
}

/** `facts.statements` with `said` added: one entry per statementKey (a repeat adds to its count), the goal never repeated. */
function mergedStatements(facts: SessionFacts, said: readonly UserStatementFact[]): readonly UserStatementFact[] {
  const statements = [...facts.statements];
  const byKey = new Map<string, number>();
  statements.forEach((s, i) => byKey.set(statementKey(s.text), i));
  const goalKey = facts.goal === null ? null : statementKey(facts.goal.text);
  let changed = false;
  for (const s of [...said].sort((a, b) => a.index - b.index)) {
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
