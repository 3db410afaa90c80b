// Turn lines: one line per user turn, the ask followed by what the turn read, edited, wrote and ran.
// A line is rebuilt only when its turn changed since it was last asked for.
import type { TurnLine } from "./types.js";
import { basename } from "./outstanding-ledger.js";
import { withoutLeadingCd } from "./shell-command.js";

interface TurnState {
  turn: number;
  index: number;
  ask: string;
  reads: string[];
  edits: string[];
  writes: string[];
  runs: string[];
  cached: string | undefined;
  /** The line `lines` last made, handed out again until the turn changes (cleared with `cached`). */
  line: TurnLine | undefined;
}

export type TurnAction = "reads" | "edits" | "writes" | "runs";

export class TurnLedger {
  private readonly turns: TurnState[] = [];

  start(turn: number, index: number, ask: string): void {
    this.turns.push({ turn, index, ask, reads: [], edits: [], writes: [], runs: [], cached: undefined, line: undefined });
  }

  /** Notes an action of the current turn (none before the first user message). */
  note(action: TurnAction, what: string): void {
    const t = this.turns[this.turns.length - 1];
    if (t === undefined) return;
    t[action].push(what);
    t.cached = undefined;
    t.line = undefined;
  }

  lines(): TurnLine[] {
    // A turn's line keeps its identity until the turn changes: a snapshot's unchanged turns are found by it.
    const out: TurnLine[] = [];
    for (const t of this.turns) out.push((t.line ??= Object.freeze({ turn: t.turn, index: t.index, oneLine: turnLine(t) })));
    return out;
  }
}

function uniq(list: readonly string[]): string[] {
  return [...new Set(list)];
}

function listed(verb: string, paths: readonly string[], max: number): string {
  const u = uniq(paths);
  const shown = u.slice(0, max).join(", ");
  return u.length > max ? `${verb} ${shown} +${u.length - max}` : `${verb} ${shown}`;
}

function turnLine(t: TurnState): string {
  if (t.cached !== undefined) return t.cached;
  const parts: string[] = [];
  if (t.reads.length > 0) parts.push(listed("read", t.reads.map(basename), 3));
  if (t.edits.length > 0) parts.push(listed("edited", t.edits.map(basename), 3));
  if (t.writes.length > 0) parts.push(listed("wrote", t.writes.map(basename), 3));
  if (t.runs.length > 0) parts.push(listed("ran", t.runs.map((r) => firstWords(r)), 3));
  t.cached = parts.length > 0 ? `${t.ask} → ${parts.join("; ")}` : t.ask;
  return t.cached;
}

function firstWords(command: string): string {
  const key = withoutLeadingCd(command);
  const words = key.split(" ").slice(0, 2).join(" ");
  return words.length > 30 ? words.slice(0, 29) + "…" : words;
}
