// Needles: facts an agent may need back after compaction. From the generator's manifest when given,
// else sampled deterministically from the large tool outputs of the summarized window: an identifier,
// a hex constant or an error line, one per chosen output, spread evenly over the window.
import { lineageBlocks, type Block, type Session } from "@context-fold/ledger-reader";
import type { EvalManifest, EvalNeedleKind } from "./eval-manifest.js";
import { inWindow, lineageCut, locateInEntry } from "./ground-truth.js";

export interface EvalNeedle {
  readonly kind: EvalNeedleKind;
  readonly value: string;
  readonly source: "manifest" | "sampled";
  /** `#N` of the block holding it (null: the manifest's entry does not hold it). */
  readonly index: number | null;
  readonly anchor?: string;
  readonly onLineage: boolean;
  /** On the lineage before the cut: what the summary itself is expected to cover. */
  readonly inWindow: boolean;
}

/** A tool output this long (characters) is "large": the kind a fold or compaction hides. */
export const LARGE_OUTPUT_CHARS = 2000;
/** Most needles sampled per session. */
export const SAMPLED_NEEDLES = 24;
const ERROR_LINE_MIN = 16;
const ERROR_LINE_MAX = 200;
const IDENT_MIN = 8;
const IDENT_MAX = 64;

function isWordChar(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
}

function isHexDigit(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70);
}

/** Word runs of a text ([A-Za-z0-9_]+), in order. One pass. */
function words(text: string): string[] {
  const out: string[] = [];
  let start = -1;
  for (let i = 0; i <= text.length; i++) {
    const w = i < text.length && isWordChar(text.charCodeAt(i));
    if (w && start < 0) start = i;
    else if (!w && start >= 0) {
      out.push(text.slice(start, i));
      start = -1;
    }
  }
  return out;
}

/** camelCase or snake_case names a person would search for (not plain words, not numbers or hex). */
export function isIdentifierCandidate(word: string): boolean {
  if (word.length < IDENT_MIN || word.length > IDENT_MAX) return false;
  const first = word.charCodeAt(0);
  if (first >= 48 && first <= 57) return false;
  let lower = false;
  let innerUpper = false;
  let underscore = false;
  for (let i = 0; i < word.length; i++) {
    const c = word.charCodeAt(i);
    if (c >= 97 && c <= 122) lower = true;
    else if (c >= 65 && c <= 90 && i > 0) innerUpper = true;
    else if (c === 95 && i > 0 && i < word.length - 1) underscore = true;
  }
  return lower && (innerUpper || underscore);
}

/** `0x` + 8 or more hex digits, or a bare run of 12–64 hex digits holding both digits and letters. */
export function isHexCandidate(word: string): boolean {
  const prefixed = word.length >= 10 && (word.startsWith("0x") || word.startsWith("0X"));
  const body = prefixed ? word.slice(2) : word;
  if (!prefixed && (body.length < 12 || body.length > 64)) return false;
  let digit = false;
  let letter = false;
  for (let i = 0; i < body.length; i++) {
    const c = body.charCodeAt(i);
    if (!isHexDigit(c)) return false;
    if (c <= 57) digit = true;
    else letter = true;
  }
  return prefixed ? body.length >= 8 : digit && letter;
}

/** A line reporting an error or a failure, short enough to be quoted back. */
export function isErrorLineCandidate(line: string): boolean {
  const t = line.trim();
  if (t.length < ERROR_LINE_MIN || t.length > ERROR_LINE_MAX) return false;
  const lower = t.toLowerCase();
  return lower.includes("error") || t.includes("FAIL") || lower.includes("exception") || lower.includes("panic:");
}

function middle<T>(items: readonly T[]): T | undefined {
  return items[Math.floor(items.length / 2)];
}

/** The needle of one kind a block offers (the middle candidate, so it is not just the first line). */
export function candidateOf(block: Pick<Block, "text">, kind: "identifier" | "hex" | "error-line"): string | undefined {
  if (kind === "error-line") return middle(block.text.split("\n").filter(isErrorLineCandidate))?.trim();
  const ws = words(block.text);
  return middle(ws.filter(kind === "hex" ? isHexCandidate : isIdentifierCandidate));
}

const KINDS = ["identifier", "hex", "error-line"] as const;

/** A large tool output of the window: where it is, not its text (read when it is picked). */
export interface LargeOutput {
  readonly index: number;
  readonly anchor?: string | undefined;
}

/** Is the block a large tool output (a candidate to sample from, when in the window)? */
export function isLargeOutput(block: Block): boolean {
  return block.kind === "toolResult" && block.text.length >= LARGE_OUTPUT_CHARS;
}

/** Up to `max` needles from the window's large tool outputs, evenly spread, kinds rotating. Pure. */
export function sampleNeedles(session: Session, cutEntryId: string | null, max = SAMPLED_NEEDLES): EvalNeedle[] {
  const cut = lineageCut(session, cutEntryId);
  const large = lineageBlocks(session).filter((b) => isLargeOutput(b) && inWindow(cut, b));
  return pickNeedles(large, (b) => b.text, max);
}

/**
 * The needles of `large` (the window's large tool outputs, in lineage order): `max` of them evenly
 * spread, each read (`textOf`) only when picked, kinds rotating.
 */
export function pickNeedles<L extends LargeOutput>(large: readonly L[], textOf: (output: L) => string, max = SAMPLED_NEEDLES): EvalNeedle[] {
  const picks = Math.min(max, large.length);
  const out: EvalNeedle[] = [];
  const seen = new Set<string>();
  for (let k = 0; k < picks; k++) {
    const output = large[Math.floor((k * large.length) / picks)];
    if (output === undefined) continue;
    const block = { text: textOf(output) };
    for (let j = 0; j < KINDS.length; j++) {
      const kind = KINDS[(k + j) % KINDS.length] ?? "identifier";
      const value = candidateOf(block, kind);
      if (value === undefined || seen.has(value)) continue;
      seen.add(value);
      out.push({ kind, value, source: "sampled", index: output.index, ...(output.anchor === undefined ? {} : { anchor: output.anchor }), onLineage: true, inWindow: true });
      break;
    }
  }
  return out;
}

/** The manifest's needles, located in the ledger. */
export function manifestNeedles(session: Session, cutEntryId: string | null, manifest: EvalManifest): EvalNeedle[] {
  const cut = lineageCut(session, cutEntryId);
  return manifest.needles.map((n) => {
    const block = locateInEntry(session, n.entryId, n.value);
    return {
      kind: n.kind,
      value: n.value,
      source: "manifest",
      index: block?.index ?? null,
      ...(n.anchor === undefined ? {} : { anchor: n.anchor }),
      onLineage: n.onLineage,
      inWindow: block !== undefined && inWindow(cut, block),
    };
  });
}
