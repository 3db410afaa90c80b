// One user statement as one line. A message that fits is kept whole (whitespace flattened). A longer one
// keeps the user's own words: material pasted into it (fenced code, table rows, quoted lines, headings,
// then list items) goes first, each run marked "[…]", and what is still too long keeps its opening and,
// at twice that length, its closing — people state the ask around what they paste, and often last
// ("<log> … is this true for hooks as well? then we should document it").
import { memoizeText } from "@context-fold/extractors";
import { clip, flat } from "./summary-syntax.js";

/**
 * Texts a summary's line memories hold (statement lines here, build-doc.ts' turn and item lines): a long
 * session's items at every compaction. More than memoizeText's default, so the bench's 100 MB session
 * (~6k turns) does not turn a memory over at each compaction (a lookup that misses costs the lookup and
 * the line made again; two generations of 4096 missed every turn line there).
 */
export const LINE_MEMORY = 16_384;
/** Characters a statement line keeps (before its `(#N)` ref). */
export const STATEMENT_MAX = 400;
/** Characters of a message read: a 1 MB paste costs what its head and tail cost. */
const READ_HEAD = 16_000;
const READ_TAIL = 4_000;
const ELIDED = "[…]";
const GAP = " … ";

type LineKind = "fence" | "table" | "quote" | "heading" | "list" | "prose";

function kindOf(line: string, inFence: boolean): LineKind {
  const t = line.trimStart();
  if (inFence || t.startsWith("```") || t.startsWith("~~~")) return "fence";
  const c = t.charCodeAt(0);
  if (c === 124 /* | */ || c === 0x2502 /* │ */) return "table";
  if (c === 62 /* > */) return "quote";
  if (c === 35 /* # */ && /^#{1,6} /.test(t)) return "heading";
  if (/^(?:[-*+•] |\d{1,3}[.)] )/.test(t)) return "list";
  return "prose";
}

/** Lines of `text` with their kind (lines inside a fenced block are "fence"). */
function classify(text: string): { line: string; kind: LineKind }[] {
  const out: { line: string; kind: LineKind }[] = [];
  let inFence = false;
  for (const line of text.split("\n")) {
    const t = line.trimStart();
    const fenceMark = t.startsWith("```") || t.startsWith("~~~");
    out.push({ line, kind: kindOf(line, inFence) });
    if (fenceMark) inFence = !inFence;
  }
  return out;
}

interface Segment {
  readonly text: string;
  readonly dropped: boolean;
}

/** The text as runs of kept and dropped lines (each run flattened to one line). */
function segments(lines: readonly { line: string; kind: LineKind }[], dropped: ReadonlySet<LineKind>): Segment[] {
  const out: Segment[] = [];
  let run: string[] = [];
  let runDropped = false;
  const close = (): void => {
    const text = flat(run.join("\n"));
    if (text !== "") out.push({ text, dropped: runDropped });
    run = [];
  };
  for (const l of lines) {
    const d = dropped.has(l.kind);
    // A blank line belongs to the run it sits in.
    if (d !== runDropped && l.line.trim() !== "") {
      close();
      runDropped = d;
    }
    run.push(l.line);
  }
  close();
  return out;
}

/** Smallest room worth giving a dropped run back (less shows as "[…]"). */
const FILL_MIN = 24;

/**
 * The kept runs whole and, in the room left up to `max`, the dropped runs' openings in order (a
 * message that is mostly paste keeps as much of it as fits); null when the kept runs alone are too long.
 */
function withFill(segs: readonly Segment[], max: number): string | null {
  const kept = segs.filter((g) => !g.dropped).reduce((n, g) => n + g.text.length + 1, 0);
  const marks = segs.filter((g) => g.dropped).length * (ELIDED.length + 1);
  if (kept + marks - 1 > max) return null;
  let room = max - kept - marks;
  const out: string[] = [];
  for (const g of segs) {
    if (!g.dropped) out.push(g.text);
    else if (room + ELIDED.length >= FILL_MIN) {
      const part = clip(g.text, room + ELIDED.length);
      room -= part.length - ELIDED.length;
      out.push(part);
    } else out.push(ELIDED);
  }
  return out.join(" ");
}

/** The first `n` characters, cut back to a space when one is near their end (a word kept whole). */
function headOf(text: string, n: number): string {
  const head = text.slice(0, n);
  const space = head.lastIndexOf(" ");
  return space > n * 0.7 ? head.slice(0, space) : head;
}

/** The last `n` characters, cut on to a space when one is near their start. */
function tailOf(text: string, n: number): string {
  const tail = text.slice(text.length - n);
  const space = tail.indexOf(" ");
  return space >= 0 && space < n * 0.3 ? tail.slice(space + 1) : tail;
}

/** Opening third and closing two thirds of `text`, `max` characters in all with the gap mark. */
function headAndTail(text: string, max: number): string {
  if (text.length <= max) return text;
  const room = max - GAP.length;
  const h = Math.floor(room / 3);
  return `${headOf(text, h)}${GAP}${tailOf(text, room - h)}`;
}

/**
 * `text` as one statement line of at most `max` characters (see the file comment). Pure, linear; at the
 * default width remembered per text, since every compaction of a session renders the same statements.
 */
export function statementLine(text: string, max = STATEMENT_MAX): string {
  return max === STATEMENT_MAX ? defaultWidth(text) : lineOf(text, max);
}

const defaultWidth = memoizeText((text) => lineOf(text, STATEMENT_MAX), LINE_MEMORY);

function lineOf(text: string, max: number): string {
  const src = text.length > READ_HEAD + READ_TAIL ? `${text.slice(0, READ_HEAD)}\n${text.slice(text.length - READ_TAIL)}` : text;
  const whole = flat(src);
  if (whole.length <= max) return whole;
  const lines = classify(src);
  const dropped = new Set<LineKind>();
  let last: Segment[] = [{ text: whole, dropped: false }];
  for (const kind of ["fence", "table", "quote", "heading", "list"] as const) {
    if (!lines.some((l) => l.kind === kind)) continue;
    dropped.add(kind);
    last = segments(lines, dropped);
    const fitted = withFill(last, max);
    if (fitted !== null) return fitted;
  }
  const marked = last.map((g) => (g.dropped ? ELIDED : g.text)).join(" ");
  return clip(headAndTail(marked, max), max);
}
