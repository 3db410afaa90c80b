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
    return this.entries.map((e) => ({ text: e.text, turn: e.turn, index: e.index, count: e.count })).sort((a, b) => a.index - b.index);
  }
}
