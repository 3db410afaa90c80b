// Incremental extraction of summary facts and durable artifacts: blocks go in turn by turn, state is
// updated in O(new text), and snapshots are built from the state (never by re-reading old blocks).
// This file reads user and assistant messages and assembles snapshots; each kind of fact has its own
// ledger (files, outstanding items, commits, turn lines, hex constants), tool calls and shell outcomes
// their own readers.

import { CommitLedger } from "./commit-ledger.js";
import { FileLedger } from "./file-ledger.js";
import { HexLedger } from "./hex-ledger.js";
import type { Ledgers } from "./ledgers.js";
import { OutstandingLedger, toOutstanding, type Item } from "./outstanding-ledger.js";
import { ShellOutcomes } from "./shell-outcomes.js";
import { StatementLedger } from "./statement-ledger.js";
import { stringArg, ToolCalls } from "./tool-calls.js";
import { TurnLedger } from "./turn-lines.js";
import type {
  DurableArtifacts,
  ErrorLedgerEntry,
  ExtractOptions,
  FactsAccumulator,
  FactsBlock,
  OutsideFacts,
  OutstandingItem,
  SessionFacts,
  UserStatement,
} from "./types.js";
import {
  blockerLine,
  firstSentence,
  isBareMessage,
  isCorrection,
  isScopeChange,
  isSubstantive,
  nextSteps,
  preferenceSentences,
  trimmedFirstLine,
  withoutEnvelope,
} from "./user-text.js";

export { TYPE_CATALOG_FILES, TYPE_CATALOG_PER_FILE } from "./file-ledger.js";

const MAX_PREFERENCES = 40;

class Accumulator implements FactsAccumulator {
  private last = -1;
  private count = 0;

  private goal: UserStatement | null = null;
  private readonly initialPrompts: UserStatement[] = [];
  private initialDone = false;
  private readonly scopeChanges: UserStatement[] = [];
  private readonly preferences: UserStatement[] = [];
  private readonly preferenceSeen = new Set<string>();
  private readonly corrections: UserStatement[] = [];
  private readonly statements = new StatementLedger();
  /** Replaced (never changed in place) when one is added: facts hold it by identity. */
  private branchSummaries: readonly UserStatement[] = [];
  private readonly openUserBlockers = new Set<Item>();

  private readonly l: Ledgers;
  private readonly shell: ShellOutcomes;
  private readonly tools: ToolCalls;

  private focus: { text: string; index: number } | null = null;
  private lastAssistantText: { text: string; index: number; afterFocus: boolean } | null = null;
  /** The last user message and the last tool call: what a question left at the end waits on. */
  private lastUser: { text: string; index: number; turn: number } | null = null;
  private lastCallIndex = -1;
  private first = -1;

  constructor(options: ExtractOptions) {
    const outstanding = new OutstandingLedger();
    this.l = {
      cwd: options.cwd,
      outstanding,
      files: new FileLedger(outstanding),
      commits: new CommitLedger(),
      turns: new TurnLedger(),
      hex: new HexLedger(),
    };
    this.shell = new ShellOutcomes(this.l);
    this.tools = new ToolCalls(this.l, this.shell);
  }

  get blockCount(): number {
    return this.count;
  }

  get lastIndex(): number {
    return this.last;
  }

  add(blocks: Iterable<FactsBlock>): void {
    for (const b of blocks) {
      if (b.index <= this.last) continue;
      this.last = b.index;
      if (this.first < 0) this.first = b.index;
      this.count++;
      this.addBlock(b);
    }
  }

  private addBlock(b: FactsBlock): void {
    switch (b.kind) {
      case "user":
        this.addUser(b);
        return;
      case "text":
        this.lastAssistantText = { text: b.text, index: b.index, afterFocus: true };
        this.l.hex.addText(b.text, b.index);
        return;
      case "toolCall":
        this.lastCallIndex = b.index;
        this.tools.call(b);
        return;
      case "toolResult":
        this.tools.result(b);
        return;
      case "bash":
        this.shell.add(b, stringArg(b.args, "command") ?? "", b.exitCode ?? (b.isError === true ? 1 : 0), b.text, "!cmd");
        return;
      case "branchSummary":
        // What an abandoned branch did, summarised when the user left it: context the continuation keeps.
        if (b.text.trim() !== "") this.branchSummaries = [...this.branchSummaries, { text: b.text, turn: b.turn, index: b.index }];
        return;
      default:
        return;
    }
  }

  private addUser(b: FactsBlock): void {
    const text = b.text;
    // What the user typed, without a harness's leading markup (a timestamp element) around it: the
    // message is kept whole, but what it opens with (a correction, a scope change) is read from this.
    const typed = withoutEnvelope(text);
    const stmt: UserStatement = { text, turn: b.turn, index: b.index };
    const substantive = isSubstantive(text);
    const files = this.l.files;
    // A new user turn: blockers reported earlier count as handled when files changed since.
    for (const item of this.openUserBlockers) {
      if (item.turn < b.turn && files.modificationCount > 0) {
        item.resolved = true;
        item.resolvedIndex = b.index;
        this.openUserBlockers.delete(item);
      }
    }
    files.modificationCount = 0;
    if (!this.initialDone) {
      this.initialPrompts.push(stmt);
      if (substantive || this.initialPrompts.length >= 3) {
        this.initialDone = true;
        if (substantive) this.goal = stmt;
      }
    } else if (substantive) {
      if (isCorrection(typed)) this.corrections.push(stmt);
      else if (isScopeChange(typed)) this.scopeChanges.push(stmt);
    }
    if (this.goal === null && substantive) this.goal = stmt;
    if (this.goal === stmt) this.statements.setGoal(text);
    else if (!isBareMessage(text)) this.statements.add(stmt);
    if (this.preferences.length < MAX_PREFERENCES) {
      for (const s of preferenceSentences(text)) {
        const k = s.toLowerCase();
        if (this.preferenceSeen.has(k) || this.preferences.length >= MAX_PREFERENCES) continue;
        this.preferenceSeen.add(k);
        this.preferences.push({ text: s, turn: b.turn, index: b.index });
      }
    }
    const blocker = blockerLine(typed);
    if (blocker !== null) {
      const item = this.l.outstanding.upsert({
        key: `user|${blocker.toLowerCase()}`,
        severity: "WARN",
        source: "user",
        label: "user",
        text: blocker,
        file: undefined,
        command: undefined,
        errorId: undefined,
        turn: b.turn,
        index: b.index,
      });
      this.openUserBlockers.add(item);
    }
    if (substantive) this.focus = { text: firstSentence(typed, 200), index: b.index };
    this.lastAssistantText = null;
    this.lastUser = { text, index: b.index, turn: b.turn };
    this.l.turns.start(b.turn, b.index, firstSentence(typed, 100));
    this.l.hex.addText(text, b.index);
  }

  // ---- snapshots -----------------------------------------------------------------------------

  facts(): SessionFacts {
    const outstanding: OutstandingItem[] = withRepeatsMerged(this.l.outstanding.sorted().map(toOutstanding));
    const pending = this.pendingQuestion();
    if (pending !== null) outstanding.push(pending);
    const errorIds: string[] = [];
    for (const o of outstanding) {
      if (!o.resolved && o.errorId !== undefined && !errorIds.includes(o.errorId)) errorIds.push(o.errorId);
    }
    const steps = this.lastAssistantText !== null ? nextSteps(this.lastAssistantText.text) : [];
    const focus = this.focus ?? (this.goal !== null ? { text: trimmedFirstLine(withoutEnvelope(this.goal.text), 200), index: this.goal.index } : null);
    const lastModification = this.l.files.lastModification;
    return {
      goal: this.goal,
      scopeChanges: [...this.scopeChanges],
      preferences: [...this.preferences],
      statements: this.statements.snapshot(),
      branchSummaries: this.branchSummaries,
      files: this.l.files.facts(),
      typeCatalog: this.l.files.typeCatalog(),
      commits: this.l.commits.list(),
      outstanding,
      turns: this.l.turns.lines(),
      status: {
        focus: focus?.text ?? "",
        focusIndex: focus?.index ?? null,
        ...(lastModification !== undefined ? { lastModification: { ...lastModification } } : {}),
        nextSteps: steps,
      },
      anchors: { commits: this.l.commits.hashes(), errorIds, keyFiles: this.l.files.keyFiles() },
      range: this.range(),
    };
  }

  private range(): SessionFacts["range"] {
    return this.first >= 0 ? { first: this.first, last: this.last } : null;
  }

  outsideFacts(): OutsideFacts {
    // The same fields as `facts()`, made by the same calls.
    return {
      goal: this.goal,
      statements: this.statements.snapshot(),
      files: this.l.files.facts(),
      commits: this.l.commits.list(),
      range: this.range(),
    };
  }

  /**
   * A question the window ends on with no answer after it: the assistant's last text asking the user
   * (its last line ends with "?", no tool ran after it), or the user's last message asking with no
   * reply yet.
   */
  private pendingQuestion(): OutstandingItem | null {
    const said = this.lastAssistantText;
    const user = this.lastUser;
    let text: string | null = null;
    let index = -1;
    if (said !== null && said.index > this.lastCallIndex) {
      const line = lastLine(said.text);
      if (line.endsWith("?")) {
        text = line;
        index = said.index;
      }
    } else if (said === null && user !== null && user.index > this.lastCallIndex && lastLine(user.text).endsWith("?")) {
      text = `user asked: ${trimmedFirstLine(withoutEnvelope(user.text), 240)}`;
      index = user.index;
    }
    if (text === null) return null;
    return { severity: "INFO", resolved: false, text: text.length > 240 ? `${text.slice(0, 239)}…` : text, source: "question", label: "unanswered", turn: user?.turn ?? 0, index };
  }

  artifacts(): DurableArtifacts {
    const errorLedger: ErrorLedgerEntry[] = [];
    for (const item of this.l.outstanding.sorted()) {
      if (item.source === "user" || item.source === "no-matches") continue;
      errorLedger.push({
        text: item.text,
        source: item.source,
        severity: item.severity,
        resolved: item.resolved,
        ...(item.file !== undefined ? { file: item.file } : {}),
        ...(item.command !== undefined ? { command: item.command } : {}),
        ...(item.errorId !== undefined ? { errorId: item.errorId } : {}),
        index: item.index,
      });
    }
    return {
      initialPrompts: [...this.initialPrompts],
      corrections: [...this.corrections],
      errorLedger,
      workingCommands: this.shell.workingCommands(),
      hexConstants: this.l.hex.constants(this.l.commits.hashes()),
      files: this.l.files.modifiedPaths(),
    };
  }
}

/** Shortest outcome text that marks several failures as one (shorter ones, "exit 1", say too little). */
const REPEAT_GIST_MIN = 24;

/**
 * Open failures that gave the same outcome (the text after " → ": one guard refusing every mutation,
 * one service down for every call) listed once: the latest, at its place, led by how many runs gave it
 * and where the first was (`×18 since #173: …`, ahead of the text so no clip cuts it off). Resolved items
 * and the other sources stay as they are.
 */
function withRepeatsMerged(items: OutstandingItem[]): OutstandingItem[] {
  const groups = new Map<string, { n: number; first: number; last: OutstandingItem }>();
  const keyOf = (o: OutstandingItem): string | null => {
    if (o.resolved || (o.source !== "bash-exit" && o.source !== "tool")) return null;
    const arrow = o.text.indexOf(" → ");
    const gist = arrow < 0 ? "" : o.text.slice(arrow + 3);
    return gist.length < REPEAT_GIST_MIN ? null : `${o.severity}|${gist}`;
  };
  let repeated = false;
  for (const o of items) {
    const k = keyOf(o);
    if (k === null) continue;
    const g = groups.get(k);
    if (g === undefined) groups.set(k, { n: 1, first: o.index, last: o });
    else {
      repeated = true;
      g.n += 1;
      if (o.index < g.first) g.first = o.index;
      if (o.index >= g.last.index) g.last = o;
    }
  }
  if (!repeated) return items;
  const out: OutstandingItem[] = [];
  for (const o of items) {
    const k = keyOf(o);
    const g = k === null ? undefined : groups.get(k);
    if (g === undefined || g.n === 1) out.push(o);
    else if (g.last === o) out.push({ ...o, text: `×${String(g.n)} since #${String(g.first)}: ${o.text}` });
  }
  return out;
}

/** Last non-empty line of a text, trimmed (reads back from the end only). */
function lastLine(text: string): string {
  let end = text.length;
  while (end > 0) {
    const start = text.lastIndexOf("\n", end - 1) + 1;
    const line = text.slice(start, end).trim();
    if (line.length > 0) return line.length > 400 ? line.slice(-400) : line;
    end = start - 1;
  }
  return "";
}

/** A fresh accumulator: `.add(blocks)` as the session grows, `.facts()` / `.artifacts()` any time. */
export function createFactsAccumulator(options: ExtractOptions = {}): FactsAccumulator {
  return new Accumulator(options);
}

/** Facts of a whole block list in one go (same result as one accumulator fed all blocks). */
export function extractFacts(blocks: Iterable<FactsBlock>, options: ExtractOptions = {}): SessionFacts {
  const acc = new Accumulator(options);
  acc.add(blocks);
  return acc.facts();
}

/** Durable artifacts of a whole block list in one go. */
export function extractArtifacts(blocks: Iterable<FactsBlock>, options: ExtractOptions = {}): DurableArtifacts {
  const acc = new Accumulator(options);
  acc.add(blocks);
  return acc.artifacts();
}
