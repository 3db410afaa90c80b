// What the user said, kept once per statement: duplicates (equal after `statementKey`, or one
// containing the other) become one entry with a count, so a message re-sent seven times costs one line.
import type { UserStatement, UserStatementFact } from "./types.js";
import { statementKey } from "./user-text.js";

/** Shortest key that may absorb or be absorbed by containment ("yes" must not swallow every "yes, …"). */
export const CONTAINMENT_MIN = 12;

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
      // Linear in the statements so far (user messages are few); keys are bounded by statementKey.
      for (const e of this.entries) {
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
