// The durable-artifact digest re-injected after a compaction: initial prompts and corrections verbatim
// first, then the user statements the summary had no room for, the error ledger, working commands, hex
// constants and files; trimmed lowest priority first to a token budget (default 1,500), and closed by an
// accounting line of what stayed verbatim.
import type { DurableArtifacts, ErrorLedgerEntry, HexConstant, UserStatement, UserStatementFact, WorkingCommand } from "@context-fold/extractors";
import { SummaryError } from "./errors.js";
import { statementLine } from "./statement-line.js";
import { omissionLine, oneLine, verbatimLines } from "./summary-syntax.js";
import { estimateTokens, utf8Bytes, utf8Head } from "./tokens.js";

export const DEFAULT_DIGEST_BUDGET = 1500;

export interface DigestStats {
  readonly budget: number;
  readonly estimatedTokens: number;
  /** Items kept whole, per category. */
  readonly initialPrompts: number;
  readonly corrections: number;
  /** UTF-8 bytes of the verbatim items kept whole. */
  readonly verbatimBytes: number;
  /** Items left out per category (counted in the digest with a recall pointer). */
  readonly omitted: Readonly<Record<"initialPrompts" | "corrections" | "statements" | "errorLedger" | "workingCommands" | "hexConstants" | "files", number>>;
  /** User statements kept (those the summary left out). */
  readonly statements: number;
  /** #N of verbatim items clipped to fit. */
  readonly clipped: readonly number[];
}

export interface Digest {
  readonly text: string;
  readonly stats: DigestStats;
}

interface State {
  prompts: UserStatement[];
  corrections: UserStatement[];
  statements: UserStatementFact[];
  errors: ErrorLedgerEntry[];
  commands: WorkingCommand[];
  hex: HexConstant[];
  files: string[];
  omitted: { initialPrompts: number; corrections: number; statements: number; errorLedger: number; workingCommands: number; hexConstants: number; files: number };
  clipped: number[];
}

/** What the digest measures over and over while trimming, made once per digest: each item's rendered line and the UTF-8 sizes. */
interface Memo {
  readonly lines: Map<object, { readonly line: string; readonly bytes: number }>;
  readonly textBytes: Map<object, number>;
}

function textBytesOf(memo: Memo, item: UserStatement): number {
  let bytes = memo.textBytes.get(item);
  if (bytes === undefined) memo.textBytes.set(item, (bytes = utf8Bytes(item.text)));
  return bytes;
}

function accounting(s: State, memo: Memo): { line: string; bytes: number } {
  const whole = (items: UserStatement[]): UserStatement[] => items.filter((i) => !s.clipped.includes(i.index));
  const p = whole(s.prompts);
  const c = whole(s.corrections);
  const bytes = [...p, ...c].reduce((sum, i) => sum + textBytesOf(memo, i), 0);
  return {
    line: `preserved verbatim: ${String(p.length)} initial prompt(s), ${String(c.length)} corrections (~${String(bytes)} B)`,
    bytes,
  };
}

/**
 * The digest's lines and their UTF-8 bytes (newlines not counted): trimming needs only the size. A class,
 * not closures made per render: code made per call is compiled again after every full GC.
 */
class Rendered {
  readonly lines: string[] = [];
  bytes = 0;
  constructor(private readonly memo: Memo) {}

  push(line: string, size = utf8Bytes(line)): void {
    this.lines.push(line);
    this.bytes += size;
  }

  /** `item`'s line, made by `make` the first time this digest renders it. */
  pushOnce<T extends object>(item: T, make: (item: T) => string): void {
    let held = this.memo.lines.get(item);
    if (held === undefined) {
      const line = make(item);
      this.memo.lines.set(item, (held = { line, bytes: utf8Bytes(line) }));
    }
    this.push(held.line, held.bytes);
  }

  omit(count: number, what: string, recall: string): void {
    if (count > 0) this.push(omissionLine({ count, what, recall }));
  }
}

const verbatimLine = (p: UserStatement): string => verbatimLines("", p.text, p.index).join("\n");
const statementItemLine = (u: UserStatementFact): string => `- ${u.count > 1 ? `(${String(u.count)}×) ` : ""}${statementLine(u.text)} (#${String(u.index)})`;
const errorLine = (e: ErrorLedgerEntry): string => `- [${e.resolved ? "RESOLVED" : e.severity}] [${e.source}] ${oneLine(e.text, 300)} (#${String(e.index)})`;
const commandLine = (w: WorkingCommand): string => `- \`${oneLine(w.command, 200)}\` (failed #${String(w.failedIndex)}, worked #${String(w.succeededIndex)})`;
const hexItem = (h: HexConstant): string => `${h.value} (#${String(h.index)})`;

function render(s: State, memo: Memo): Rendered {
  const out = new Rendered(memo);
  out.push("[Durable Artifacts]");
  if (s.prompts.length > 0 || s.omitted.initialPrompts > 0) {
    out.push("Initial prompt(s), verbatim:");
    for (const p of s.prompts) out.pushOnce(p, verbatimLine);
    out.omit(s.omitted.initialPrompts, "more initial prompts", "user messages");
  }
  if (s.corrections.length > 0 || s.omitted.corrections > 0) {
    out.push("Corrections, verbatim:");
    for (const c of s.corrections) out.pushOnce(c, verbatimLine);
    out.omit(s.omitted.corrections, "more corrections", "user messages");
  }
  if (s.statements.length > 0 || s.omitted.statements > 0) {
    out.push("User statements the summary had no room for:");
    for (const u of s.statements) out.pushOnce(u, statementItemLine);
    out.omit(s.omitted.statements, "more user statements", "user messages");
  }
  if (s.errors.length > 0 || s.omitted.errorLedger > 0) {
    out.push("Error ledger:");
    for (const e of s.errors) out.pushOnce(e, errorLine);
    out.omit(s.omitted.errorLedger, "more errors", "errors");
  }
  if (s.commands.length > 0 || s.omitted.workingCommands > 0) {
    out.push("Working commands:");
    for (const w of s.commands) out.pushOnce(w, commandLine);
    out.omit(s.omitted.workingCommands, "more working commands", "commands");
  }
  if (s.hex.length > 0 || s.omitted.hexConstants > 0) {
    out.push("Hex constants:");
    if (s.hex.length > 0) out.push(`- ${s.hex.map(hexItem).join(", ")}`);
    out.omit(s.omitted.hexConstants, "more hex constants", "identifiers");
  }
  if (s.files.length > 0 || s.omitted.files > 0) {
    out.push("Files:");
    if (s.files.length > 0) out.push(`- ${s.files.join(", ")}`);
    out.omit(s.omitted.files, "more files", "files");
  }
  out.push(accounting(s, memo).line);
  return out;
}

/** The digest's text: its lines, each ended by a newline. */
function textOf(rendered: Rendered): string {
  return `${rendered.lines.join("\n")}\n`;
}

/** UTF-8 bytes of `textOf(rendered)`: the lines' bytes and one newline each. */
function sizeOf(rendered: Rendered): number {
  return rendered.bytes + rendered.lines.length;
}

const MARK = (index: number): string => `… (clipped; recall #${String(index)})`;

function clipTo(item: UserStatement, maxBytes: number): UserStatement {
  const mark = MARK(item.index);
  const head = utf8Head(item.text, maxBytes - utf8Bytes(mark) - 1);
  return { ...item, text: head === "" ? mark : `${head} ${mark}` };
}

export interface DigestOptions {
  /** Token budget (default 1,500). */
  readonly budget?: number;
  /**
   * User statements to carry (in session order): those the summary it goes with had no room for. They
   * rank below corrections and above the error ledger; the oldest go first when the budget is short.
   */
  readonly statements?: readonly UserStatementFact[];
}

/** Digest of `artifacts` within `budget` tokens (ceil(bytes / 4)). Pure. */
export function buildDigest(artifacts: DurableArtifacts, options: DigestOptions = {}): Digest {
  const budget = options.budget ?? DEFAULT_DIGEST_BUDGET;
  if (!Number.isInteger(budget) || budget < 64) throw new SummaryError("BAD_OPTION", `digest budget must be a whole number ≥ 64 tokens, got ${String(budget)}`);
  const s: State = {
    prompts: [...artifacts.initialPrompts],
    corrections: [...artifacts.corrections],
    statements: [...(options.statements ?? [])],
    // Unresolved errors first, so trimming from the end drops resolved ones first.
    errors: [...artifacts.errorLedger.filter((e) => !e.resolved), ...artifacts.errorLedger.filter((e) => e.resolved)],
    commands: [...artifacts.workingCommands],
    hex: [...artifacts.hexConstants],
    files: [...artifacts.files],
    omitted: { initialPrompts: 0, corrections: 0, statements: 0, errorLedger: 0, workingCommands: 0, hexConstants: 0, files: 0 },
    clipped: [],
  };
  const limit = budget * 4;
  const memo: Memo = { lines: new Map(), textBytes: new Map() };
  const size = (): number => sizeOf(render(s, memo));
  // Lowest priority first; each takes items off one end of its list (corrections: oldest first).
  const cost = (text: string): number => utf8Bytes(text) + 16;
  const steps: (() => boolean)[] = [
    () => (s.files.pop() !== undefined ? (s.omitted.files++, true) : false),
    () => (s.hex.pop() !== undefined ? (s.omitted.hexConstants++, true) : false),
    () => (s.commands.pop() !== undefined ? (s.omitted.workingCommands++, true) : false),
    () => (s.errors.pop() !== undefined ? (s.omitted.errorLedger++, true) : false),
    () => (s.statements.shift() !== undefined ? (s.omitted.statements++, true) : false),
    () => (s.corrections.shift() !== undefined ? (s.omitted.corrections++, true) : false),
  ];
  // How many items of each list, taken in the order its step drops them, cover `need` bytes (read
  // lazily: a long error ledger is costed only as far as the excess reaches).
  const fromEnd =
    <T>(list: readonly T[], of: (item: T) => number) =>
    (need: number): number => {
      let batch = 0;
      for (let k = list.length - 1; k >= 0 && need > 0; k--, batch++) need -= of(list[k] as T);
      return batch;
    };
  const fromStart =
    <T>(list: readonly T[], of: (item: T) => number) =>
    (need: number): number => {
      let batch = 0;
      for (let k = 0; k < list.length && need > 0; k++, batch++) need -= of(list[k] as T);
      return batch;
    };
  const batches: ((need: number) => number)[] = [
    fromEnd(s.files, cost),
    fromEnd(s.hex, (h) => cost(h.value)),
    fromEnd(s.commands, (w) => cost(w.command)),
    fromEnd(s.errors, (e) => cost(e.text)),
    fromStart(s.statements, (u) => cost(statementLine(u.text))),
    fromStart(s.corrections, (c) => cost(c.text)),
  ];
  let current = size();
  steps.forEach((step, i) => {
    while (current > limit) {
      // Drop about as many items as cover the excess, then re-measure.
      const batch = batches[i]?.(current - limit) ?? 0;
      let dropped = false;
      for (let k = 0; k < Math.max(1, batch); k++) if (step()) dropped = true;
      if (!dropped) break;
      current = size();
    }
  });
  // Still over: clip the initial prompts (last first) down to what fits, keeping a recall pointer.
  for (let i = s.prompts.length - 1; i >= 0 && current > limit; i--) {
    const p = s.prompts[i];
    if (p === undefined) continue;
    const keep = Math.max(0, utf8Bytes(p.text) - (current - limit) - 8);
    s.prompts[i] = clipTo(p, keep);
    s.clipped.push(p.index);
    current = size();
  }
  const text = textOf(render(s, memo));
  const acc = accounting(s, memo);
  return {
    text,
    stats: {
      budget,
      estimatedTokens: estimateTokens(text),
      initialPrompts: s.prompts.length - s.prompts.filter((p) => s.clipped.includes(p.index)).length,
      corrections: s.corrections.length,
      statements: s.statements.length,
      verbatimBytes: acc.bytes,
      omitted: { ...s.omitted },
      clipped: [...s.clipped],
    },
  };
}
