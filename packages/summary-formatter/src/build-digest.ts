// The durable-artifact digest re-injected after a compaction: initial prompts and corrections verbatim
// first, then the user statements the summary had no room for, the error ledger, working commands, hex
// constants and files; trimmed lowest priority first to a token budget (default 1,500), and closed by an
// accounting line of what stayed verbatim.
import type { DurableArtifacts, ErrorLedgerEntry, HexConstant, UserStatement, UserStatementFact, WorkingCommand } from "@context-fold/extractors";
import { SummaryError } from "./errors.js";
import { statementLine } from "./statement-line.js";
import { omissionLine, oneLine, verbatimLines } from "./summary-syntax.js";
import { estimateTokens, utf8Bytes, utf8Head } from "./tokens.js";
import { type ItemLine, keepLine, preparedLine } from "./summary-parts.js";

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

export interface State {
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
export interface Memo {
  readonly lines: Map<object, ItemLine>;
  readonly textBytes: Map<object, number>;
}

function textBytesOf(memo: Memo, item: UserStatement): number {
  let bytes = memo.textBytes.get(item);
  if (bytes === undefined) memo.textBytes.set(item, (bytes = utf8Bytes(item.text)));
  return bytes;
}

function accounting(s: State, memo: Memo): { line: string; bytes: number } {
  // Loops, not callbacks made per call: the digest is measured many times in the compaction hook, and a
  // closure made per call is compiled again after every full GC.
  let prompts = 0;
  let corrections = 0;
  let bytes = 0;
  for (const p of s.prompts) {
    if (s.clipped.includes(p.index)) continue;
    prompts++;
    bytes += textBytesOf(memo, p);
  }
  for (const c of s.corrections) {
    if (s.clipped.includes(c.index)) continue;
    corrections++;
    bytes += textBytesOf(memo, c);
  }
  return {
    line: `preserved verbatim: ${String(prompts)} initial prompt(s), ${String(corrections)} corrections (~${String(bytes)} B)`,
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
    const held = heldLine(this.memo, item, make);
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

/** `item`'s rendered line and its UTF-8 bytes, made by `make` the first time this digest needs it. */
function heldLine<T extends object>(memo: Memo, item: T, make: (item: T) => string): ItemLine {
  // Prepared at a turn's end (summary-parts.ts): the artifacts' and statements' items keep their identity.
  // Read there each time, not copied into this digest's memo (an entry per item, the hook's allocation).
  const prepared = preparedLine(item);
  if (prepared !== undefined) return prepared;
  let held = memo.lines.get(item);
  if (held === undefined) {
    const line = make(item);
    held = keepLine(item, { line, bytes: utf8Bytes(line) });
    memo.lines.set(item, held);
  }
  return held;
}

/**
 * At a turn's end: the digest lines of the artifacts' items and of the facts' statements, kept as parts
 * (only items not met before are rendered), so the hook's digest renders only what the turn brought.
 */
export function prepareDigestLines(artifacts: DurableArtifacts, statements: readonly UserStatementFact[]): void {
  const memo: Memo = { lines: new Map(), textBytes: new Map() };
  for (const p of artifacts.initialPrompts) heldLine(memo, p, verbatimLine);
  for (const c of artifacts.corrections) heldLine(memo, c, verbatimLine);
  for (const e of artifacts.errorLedger) heldLine(memo, e, errorLine);
  for (const w of artifacts.workingCommands) heldLine(memo, w, commandLine);
  for (const u of statements) heldLine(memo, u, statementItemLine);
}

/**
 * Bytes of the lines of a list that trimming shortens only at its ends, as first given: the bytes of
 * any run of it are two lookups (each item's line made and sized once per digest).
 */
class RunBytes {
  readonly #prefix: number[];
  /** `prefix`: 0, then the sizes of the list's items summed one by one (`prefixOf`). */
  constructor(prefix: number[]) {
    this.#prefix = prefix;
  }
  /** Bytes of the `length` items from `start`. */
  of(start: number, length: number): number {
    return (this.#prefix[start + length] ?? 0) - (this.#prefix[start] ?? 0);
  }
}

/** Per list the line sizes `measure` adds up: corrections and statements lose their first items, the rest their last. */
export interface Sizes {
  readonly corrections: RunBytes;
  readonly statements: RunBytes;
  readonly errors: RunBytes;
  readonly commands: RunBytes;
  /** Items of the one hex line and of the one files line. */
  readonly hex: RunBytes;
  readonly files: RunBytes;
}

export function sizesOf(s: State, memo: Memo): Sizes {
  // Each list's running sums made in one pass (no array of sizes first).
  let sum = 0;
  const hex = [0];
  for (const h of s.hex) hex.push((sum += utf8Bytes(hexItem(h))));
  sum = 0;
  const files = [0];
  for (const f of s.files) files.push((sum += utf8Bytes(f)));
  return {
    corrections: new RunBytes(lineSizes(memo, s.corrections, verbatimLine)),
    statements: new RunBytes(lineSizes(memo, s.statements, statementItemLine)),
    errors: new RunBytes(lineSizes(memo, s.errors, errorLine)),
    commands: new RunBytes(lineSizes(memo, s.commands, commandLine)),
    hex: new RunBytes(hex),
    files: new RunBytes(files),
  };
}

/** 0, then the bytes of each item's line summed in order (lines made and held by `heldLine`): `RunBytes`' prefix. */
function lineSizes<T extends object>(memo: Memo, items: readonly T[], make: (item: T) => string): number[] {
  const out = [0];
  let sum = 0;
  for (const item of items) out.push((sum += heldLine(memo, item, make).bytes));
  return out;
}

const HEADINGS = {
  top: utf8Bytes("[Durable Artifacts]"),
  prompts: utf8Bytes("Initial prompt(s), verbatim:"),
  corrections: utf8Bytes("Corrections, verbatim:"),
  statements: utf8Bytes("User statements the summary had no room for:"),
  errors: utf8Bytes("Error ledger:"),
  commands: utf8Bytes("Working commands:"),
  hex: utf8Bytes("Hex constants:"),
  files: utf8Bytes("Files:"),
} as const;

/** Bytes of an omission line and its newline (none when nothing was omitted). */
function omitBytes(count: number, what: string, recall: string): number {
  return count > 0 ? utf8Bytes(omissionLine({ count, what, recall })) + 1 : 0;
}

/** Bytes of a section: its heading, `lines` lines of `bytes` bytes and its omission line, each with its newline. */
function sectionBytes(shown: boolean, heading: number, lines: number, bytes: number, omitted: number): number {
  return shown ? heading + 1 + bytes + lines + omitted : 0;
}

/**
 * `sizeOf(render(s, memo))` without rendering: trimming measures the digest after every batch it drops,
 * and a long error ledger or statement list would otherwise be rendered again each time. The section
 * order and lines are `render`'s; test/digest-measure.test.ts checks the two agree in every state trimming reaches.
 */
export function measure(s: State, memo: Memo, sizes: Sizes): number {
  const o = s.omitted;
  let prompts = 0;
  for (const p of s.prompts) prompts += heldLine(memo, p, verbatimLine).bytes;
  const hexLine = s.hex.length > 0 ? 2 + sizes.hex.of(0, s.hex.length) + 2 * (s.hex.length - 1) : -1;
  const filesLine = s.files.length > 0 ? 2 + sizes.files.of(0, s.files.length) + 2 * (s.files.length - 1) : -1;
  return (
    HEADINGS.top +
    1 +
    sectionBytes(s.prompts.length > 0 || o.initialPrompts > 0, HEADINGS.prompts, s.prompts.length, prompts, omitBytes(o.initialPrompts, "more initial prompts", "user messages")) +
    sectionBytes(s.corrections.length > 0 || o.corrections > 0, HEADINGS.corrections, s.corrections.length, sizes.corrections.of(o.corrections, s.corrections.length), omitBytes(o.corrections, "more corrections", "user messages")) +
    sectionBytes(s.statements.length > 0 || o.statements > 0, HEADINGS.statements, s.statements.length, sizes.statements.of(o.statements, s.statements.length), omitBytes(o.statements, "more user statements", "user messages")) +
    sectionBytes(s.errors.length > 0 || o.errorLedger > 0, HEADINGS.errors, s.errors.length, sizes.errors.of(0, s.errors.length), omitBytes(o.errorLedger, "more errors", "errors")) +
    sectionBytes(s.commands.length > 0 || o.workingCommands > 0, HEADINGS.commands, s.commands.length, sizes.commands.of(0, s.commands.length), omitBytes(o.workingCommands, "more working commands", "commands")) +
    sectionBytes(s.hex.length > 0 || o.hexConstants > 0, HEADINGS.hex, 0, hexLine + 1, omitBytes(o.hexConstants, "more hex constants", "identifiers")) +
    sectionBytes(s.files.length > 0 || o.files > 0, HEADINGS.files, 0, filesLine + 1, omitBytes(o.files, "more files", "files")) +
    utf8Bytes(accounting(s, memo).line) +
    1
  );
}

/** The digest's text: its lines, each ended by a newline. */
function textOf(rendered: Rendered): string {
  return `${rendered.lines.join("\n")}\n`;
}

/** UTF-8 bytes of the digest `s` renders to, rendered (what `measure` must agree with). */
export function renderedBytes(s: State, memo: Memo): number {
  const rendered = render(s, memo);
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

/** The error ledger, its unresolved entries first (each part in ledger order), in one array. */
function unresolvedFirst(errors: readonly ErrorLedgerEntry[]): ErrorLedgerEntry[] {
  const out: ErrorLedgerEntry[] = [];
  for (const e of errors) if (!e.resolved) out.push(e);
  for (const e of errors) if (e.resolved) out.push(e);
  return out;
}

/** The digest of everything, before trimming: unresolved errors first, so trimming from the end drops resolved ones first. */
export function digestState(artifacts: DurableArtifacts, statements: readonly UserStatementFact[]): State {
  return {
    prompts: [...artifacts.initialPrompts],
    corrections: [...artifacts.corrections],
    statements: [...statements],
    errors: unresolvedFirst(artifacts.errorLedger),
    commands: [...artifacts.workingCommands],
    hex: [...artifacts.hexConstants],
    files: [...artifacts.files],
    omitted: { initialPrompts: 0, corrections: 0, statements: 0, errorLedger: 0, workingCommands: 0, hexConstants: 0, files: 0 },
    clipped: [],
  };
}

/**
 * The trimming steps, lowest priority first: files, hex constants, working commands, errors (each from
 * its end), then statements and corrections (oldest first). A switch over module-level code, not closures
 * made per digest: the digest is built in the compaction hook, and a closure made per call is compiled
 * again after every full GC.
 */
const STEPS = 6;

/** Drops one item by `step`; false when its list is empty. */
function dropOne(s: State, step: number): boolean {
  const o = s.omitted;
  switch (step) {
    case 0:
      return s.files.pop() !== undefined ? (o.files++, true) : false;
    case 1:
      return s.hex.pop() !== undefined ? (o.hexConstants++, true) : false;
    case 2:
      return s.commands.pop() !== undefined ? (o.workingCommands++, true) : false;
    case 3:
      return s.errors.pop() !== undefined ? (o.errorLedger++, true) : false;
    case 4:
      return s.statements.shift() !== undefined ? (o.statements++, true) : false;
    default:
      return s.corrections.shift() !== undefined ? (o.corrections++, true) : false;
  }
}

const itemCost = (text: string): number => utf8Bytes(text) + 16;

/**
 * How many items of `step`'s list, taken in the order it drops them, cover `need` bytes (read lazily: a
 * long error ledger is costed only as far as the excess reaches).
 */
function batchFor(s: State, step: number, need: number): number {
  let batch = 0;
  switch (step) {
    case 0:
      for (let k = s.files.length - 1; k >= 0 && need > 0; k--, batch++) need -= itemCost(s.files[k] as string);
      break;
    case 1:
      for (let k = s.hex.length - 1; k >= 0 && need > 0; k--, batch++) need -= itemCost((s.hex[k] as HexConstant).value);
      break;
    case 2:
      for (let k = s.commands.length - 1; k >= 0 && need > 0; k--, batch++) need -= itemCost((s.commands[k] as WorkingCommand).command);
      break;
    case 3:
      for (let k = s.errors.length - 1; k >= 0 && need > 0; k--, batch++) need -= itemCost((s.errors[k] as ErrorLedgerEntry).text);
      break;
    case 4:
      for (let k = 0; k < s.statements.length && need > 0; k++, batch++) need -= itemCost(statementLine((s.statements[k] as UserStatementFact).text));
      break;
    default:
      for (let k = 0; k < s.corrections.length && need > 0; k++, batch++) need -= itemCost((s.corrections[k] as UserStatement).text);
  }
  return batch;
}

/** Initial prompts clipped (a loop: no callback made per digest). */
function clippedCount(s: State): number {
  let n = 0;
  for (const p of s.prompts) if (s.clipped.includes(p.index)) n++;
  return n;
}

/** Digest of `artifacts` within `budget` tokens (ceil(bytes / 4)). Pure. */
export function buildDigest(artifacts: DurableArtifacts, options: DigestOptions = {}): Digest {
  const budget = options.budget ?? DEFAULT_DIGEST_BUDGET;
  if (!Number.isInteger(budget) || budget < 64) throw new SummaryError("BAD_OPTION", `digest budget must be a whole number ≥ 64 tokens, got ${String(budget)}`);
  const s = digestState(artifacts, options.statements ?? []);
  const limit = budget * 4;
  const memo: Memo = { lines: new Map(), textBytes: new Map() };
  const sizes = sizesOf(s, memo);
  // `measure` called as is, not through a closure made per digest (compiled again after every full GC).
  let current = measure(s, memo, sizes);
  for (let step = 0; step < STEPS; step++) {
    while (current > limit) {
      // Drop about as many items as cover the excess, then re-measure.
      const batch = batchFor(s, step, current - limit);
      let dropped = false;
      for (let k = 0; k < Math.max(1, batch); k++) if (dropOne(s, step)) dropped = true;
      if (!dropped) break;
      current = measure(s, memo, sizes);
    }
  }
  // Still over: clip the initial prompts (last first) down to what fits, keeping a recall pointer.
  for (let i = s.prompts.length - 1; i >= 0 && current > limit; i--) {
    const p = s.prompts[i];
    if (p === undefined) continue;
    const keep = Math.max(0, utf8Bytes(p.text) - (current - limit) - 8);
    s.prompts[i] = clipTo(p, keep);
    s.clipped.push(p.index);
    current = measure(s, memo, sizes);
  }
  const text = textOf(render(s, memo));
  const acc = accounting(s, memo);
  return {
    text,
    stats: {
      budget,
      estimatedTokens: estimateTokens(text),
      initialPrompts: s.prompts.length - clippedCount(s),
      corrections: s.corrections.length,
      statements: s.statements.length,
      verbatimBytes: acc.bytes,
      omitted: { ...s.omitted },
      clipped: [...s.clipped],
    },
  };
}
