// What the user said, kept once per statement: duplicates (equal after `statementKey`, or one
// containing the other) become one entry with a count, so a message re-sent seven times costs one line.
import type { UserStatement, UserStatementFact } from "./types.js";
import { statementKey } from "./user-text.js";

/** Shortest key that may absorb or be absorbed by containment ("yes" must not swallow every "yes, …"). */
export const CONTAINMENT_MIN = 12;
/** How many of the latest distinct statements a new one is checked against for containment. */
export const CONTAINMENT_WINDOW = 256;

interface Entry {
  text: string;
  turn: number;
  index: number;
  key: string;
  count: number;
  /** The fact `snapshot` last made of this entry, handed out again while the entry says the same. */
  fact?: UserStatementFact | undefined;
}

/** `e`'s fact as `snapshot` makes it: the one made last while the entry is the same (frozen: snapshots share it). */
function factOf(e: Entry): UserStatementFact {
  const held = e.fact;
  if (held !== undefined && held.text === e.text && held.turn === e.turn && held.index === e.index && held.count === e.count) return held;
  return (e.fact = Object.freeze({ text: e.text, turn: e.turn, index: e.index, count: e.count }));
}

export class StatementLedger {
  private readonly entries: Entry[] = [];
  private readonly byKey = new Map<string, Entry>();
  private goalKey = "";

  /** The founding request: a later message repeating it (or part of it) is not listed again. */
  setGoal(text: string): void {
    this.goalKey = statementKey(text);
  }

  add(stmt: UserStatement): void {
    const key = statementKey(stmt.text);
    if (key.length === 0) return;
    if (key === this.goalKey || (key.length >= CONTAINMENT_MIN && this.goalKey.includes(key))) return;
    const same = this.byKey.get(key);
    if (same !== undefined) {
      same.count += 1;
      return;
    }
    if (key.length >= CONTAINMENT_MIN) {
      // Against the last CONTAINMENT_WINDOW entries only, so a session of many thousand messages costs
      // O(messages × window), not O(messages²); equal keys are found anywhere through `byKey`.
      const from = Math.max(0, this.entries.length - CONTAINMENT_WINDOW);
      for (let i = from; i < this.entries.length; i++) {
        const e = this.entries[i] as Entry;
        if (e.key.includes(key)) {
          e.count += 1;
          this.byKey.set(key, e);
          return;
        }
        if (e.key.length >= CONTAINMENT_MIN && key.includes(e.key)) {
          // The longer wording says more: it replaces the shorter one, which keeps its place.
          e.text = stmt.text;
          e.turn = stmt.turn;
          e.index = stmt.index;
          e.key = key;
          e.count += 1;
          this.byKey.set(key, e);
          return;
        }
      }
    }
    const entry: Entry = { text: stmt.text, turn: stmt.turn, index: stmt.index, key, count: 1 };
    this.entries.push(entry);
    this.byKey.set(key, entry);
  }

  snapshot(): UserStatementFact[] {
    // Unchanged entries keep their fact's identity: a snapshot's unchanged statements are found by it.
    const out: UserStatementFact[] = [];
    for (const e of this.entries) out.push(factOf(e));
    return out.sort((a, b) => a.index - b.index);
  }
}
