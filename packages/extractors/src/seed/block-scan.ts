// The per-block half of seed extraction: what one block holds for a record (identifier tokens, path
// candidates, error lines, paths said to be missing), read from the block alone, never from an
// accumulator's state or the session cwd. An accumulator applies a scan to its running fields
// (accumulator.ts); two accumulators fed the same block object can share one scan (scan-cache.ts).
import type { Block } from "@context-fold/ledger-reader";
import { errorLines } from "../lexicon/errors.js";
import { scanOutputTokens, scanUnitRanges } from "../lexicon/output-tokens.js";
import { isPathToken } from "../lexicon/paths.js";
import { TextUnits } from "../lexicon/text-units.js";
import { grown } from "./range-interner.js";

/**
 * One block's scan. Ranges index `source` and come as [start, end, hash] triples (hash: FNV-1a of the
 * range's UTF-16 units, as `hashRange`), each distinct text once, in order of first appearance: a
 * record counts a token once per block, and takes files in the order they first appear.
 */
export interface BlockScan {
  /** The text scanned: the block's text, or a tool call's argument values joined by "\n". */
  readonly source: string;
  readonly tokens: Int32Array;
  /** Ints of `tokens` in use (three per token). */
  readonly tokenInts: number;
  /** Path candidate triples; undefined when the scan was asked for none (file content, a failed lookup). */
  readonly paths: Int32Array | undefined;
  readonly pathInts: number;
  /** Error lines (`errorLines`) of a tool output, in order. */
  readonly errors: readonly string[];
  /** Path tokens of the lines saying a path does not exist (strerror(ENOENT) and its code), uncleaned. */
  readonly missing: readonly string[];
}

/** What an output says of a path that does not exist: strerror(ENOENT) and its code. */
const MISSING_MARKERS = ["No such file or directory", "ENOENT"];
const MISSING_LINE_MAX = 2000;
const NONE: readonly string[] = [];

function stringValues(value: unknown, out: string[], depth: number): void {
  if (typeof value === "string") out.push(value);
  else if (depth < 4 && Array.isArray(value)) for (const v of value) stringValues(v, out, depth + 1);
  else if (depth < 4 && typeof value === "object" && value !== null) for (const v of Object.values(value)) stringValues(v, out, depth + 1);
}

/** The path tokens of every line holding a MISSING_MARKER, bounded per line. */
function missingPaths(text: string): readonly string[] {
  let out: string[] | undefined;
  const note = (candidate: string): void => {
    if (isPathToken(candidate)) (out ??= []).push(candidate);
  };
  for (const marker of MISSING_MARKERS) {
    for (let at = text.indexOf(marker); at >= 0; at = text.indexOf(marker, at + marker.length)) {
      const start = text.lastIndexOf("\n", at) + 1;
      let end = text.indexOf("\n", at);
      if (end < 0) end = text.length;
      // One line, bounded: a pathological line costs at most its first MISSING_LINE_MAX characters.
      scanOutputTokens(text.slice(start, Math.min(end, start + MISSING_LINE_MAX)), true, note, () => undefined);
      at = Math.max(at, end - marker.length);
    }
  }
  return out ?? NONE;
}

/**
 * Distinct ranges of one text, as [start, end, hash] triples in order of first appearance: a repeat is
 * found by its hash and units in a small table reused block after block (a generation stamp empties it).
 */
class DistinctRanges {
  out = new Int32Array(768);
  ints = 0;
  private slots = new Int32Array(1024);
  private stamps = new Int32Array(1024);
  private generation = 0;

  reset(): void {
    this.ints = 0;
    this.generation += 1;
  }

  note(units: Uint16Array, start: number, end: number): void {
    let h = 0x811c9dc5;
    for (let i = start; i < end; i++) h = Math.imul(h ^ (units[i] as number), 0x01000193);
    h |= 0;
    const length = end - start;
    const out = this.out;
    const mask = this.slots.length - 1;
    let slot = h & mask;
    while (this.stamps[slot] === this.generation) {
      const at = this.slots[slot] as number;
      if (out[at + 2] === h) {
        const from = out[at] as number;
        if ((out[at + 1] as number) - from === length) {
          let i = 0;
          while (i < length && units[from + i] === units[start + i]) i++;
          if (i === length) return;
        }
      }
      slot = (slot + 1) & mask;
    }
    if (this.ints + 3 > out.length) this.out = grown(out, out.length * 2);
    const at = this.ints;
    this.out[at] = start;
    this.out[at + 1] = end;
    this.out[at + 2] = h;
    this.ints = at + 3;
    this.slots[slot] = at;
    this.stamps[slot] = this.generation;
    // Keep the load under a half.
    if (this.ints * 2 > this.slots.length * 3) this.rehash();
  }

  private rehash(): void {
    const size = this.slots.length * 2;
    const slots = new Int32Array(size);
    const stamps = new Int32Array(size);
    const mask = size - 1;
    for (let at = 0; at < this.ints; at += 3) {
      let slot = (this.out[at + 2] as number) & mask;
      while (stamps[slot] === this.generation) slot = (slot + 1) & mask;
      slots[slot] = at;
      stamps[slot] = this.generation;
    }
    this.slots = slots;
    this.stamps = stamps;
  }
}

/**
 * Scans blocks one after another, reusing its buffers. A scan it returns with `keep` unset shares those
 * buffers and is valid until the next `scan`; with `keep`, it owns copies (for a cache).
 */
export class BlockScanner {
  private readonly units = new TextUnits();
  private readonly tokenRanges = new DistinctRanges();
  private readonly pathRanges = new DistinctRanges();
  private readonly markerAt: number[] = [];
  /** How many blocks this scanner has scanned (what a cache's `scans` counts). */
  scans = 0;

  private readonly noteToken = (start: number, end: number): void => {
    this.tokenRanges.note(this.current, start, end);
  };
  private readonly notePath = (start: number, end: number): void => {
    this.pathRanges.note(this.current, start, end);
  };
  private readonly noteMarker = (at: number): void => {
    this.markerAt.push(at);
  };
  private current: Uint16Array = new Uint16Array(0);

  /**
   * The scan of `block`: a tool output's (`toolResult`, `bash`) tokens, error lines, missing paths and,
   * with `paths`, path candidates; the tokens of a message's text (`user`, `text`, `thinking`) or of a
   * tool call's argument values (not its JSON text: escapes such as "\n" would glue words together).
   * Other kinds (derived text) hold nothing.
   */
  scan(block: Block, paths: boolean, keep: boolean): BlockScan {
    this.scans += 1;
    this.tokenRanges.reset();
    this.pathRanges.reset();
    let source = "";
    let errors = NONE;
    let missing = NONE;
    let scannedPaths = false;
    switch (block.kind) {
      case "toolResult":
      case "bash": {
        source = block.text;
        if (source.length === 0) break;
        missing = missingPaths(source);
        this.markerAt.length = 0;
        this.current = this.units.load(source);
        scanUnitRanges(source, this.current, paths, this.notePath, this.noteToken, this.noteMarker);
        scannedPaths = paths;
        // File contents count too: a read log or a test fixture holds the error lines summaries lose. The
        // walk above gave the positions of marker words: only their lines are searched.
        const lines = errorLines(source, this.markerAt);
        if (lines.length > 0) errors = lines;
        break;
      }
      case "toolCall": {
        const values: string[] = [];
        stringValues(block.args, values, 0);
        // "\n" is outside every token and path run: joined, the values give the tokens each gives alone.
        source = values.length === 1 ? (values[0] as string) : values.join("\n");
        this.scanTokens(source);
        break;
      }
      case "user":
      case "text":
      case "thinking":
        source = block.text;
        this.scanTokens(source);
        break;
      default:
        // custom messages, compaction and branch summaries are derived text, not session ground truth
        break;
    }
    const t = this.tokenRanges;
    const p = this.pathRanges;
    if (!keep) return { source, tokens: t.out, tokenInts: t.ints, paths: scannedPaths ? p.out : undefined, pathInts: scannedPaths ? p.ints : 0, errors, missing };
    return {
      source,
      tokens: t.out.slice(0, t.ints),
      tokenInts: t.ints,
      paths: scannedPaths ? p.out.slice(0, p.ints) : undefined,
      pathInts: scannedPaths ? p.ints : 0,
      errors,
      missing,
    };
  }

  private scanTokens(text: string): void {
    if (text.length === 0) return;
    this.current = this.units.load(text);
    scanUnitRanges(text, this.current, false, this.notePath, this.noteToken);
  }
}
