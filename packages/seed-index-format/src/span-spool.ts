// The spans of a record being written, kept as their JSON text rather than as objects: in memory up to
// `holdBytes`, past that in a temp file beside the seed index (a whole-session record of a 1 GB session
// has a million spans, 213 MB of JSON). Each span is checked as it is added, so the record's spans are
// valid once spooled; `appendRecordStreamed` then copies them into the record's line under the lock.
import { closeSync, mkdirSync, openSync, readSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import { tempPathFor, writeAll } from "@context-fold/durable-fs";
import { InvalidRecordError } from "./errors.js";
import { type Span, validateSpan } from "./records.js";

export interface SpanSpoolOptions {
  /** The seed index the spans are for: errors name it, and a temp file goes beside it (removed by `dispose`). */
  readonly target: string;
  /** Span JSON kept in memory up to this many bytes (default 16 MiB); the rest goes to the temp file. */
  readonly holdBytes?: number;
}

const FLUSH_CHARS = 1024 * 1024;
const READ_CHUNK = 4 * 1024 * 1024;
const NEWLINE = 0x0a;
const COMMA = 0x2c;

/** Spans to append as one record's `spans`: add them in order, append, then `dispose`. */
export class SpanSpool {
  readonly #target: string;
  readonly #hold: number;
  #pending: string[] = [];
  #pendingChars = 0;
  /** Span JSON lines ("\n" after each) held in memory, while the total stays under `hold`. */
  #held: Buffer[] = [];
  #heldBytes = 0;
  #fd: number | undefined;
  #file: string | undefined;
  #fileBytes = 0;
  #count = 0;

  constructor(options: SpanSpoolOptions) {
    this.#target = options.target;
    this.#hold = options.holdBytes ?? 16 * 1024 * 1024;
  }

  /** Spans added so far. */
  get count(): number {
    return this.#count;
  }

  /** Adds the next span. Throws InvalidRecordError (naming the span's path in the record) when it is no valid span. */
  add(span: Span): void {
    const checked = validateSpan(span, this.#count);
    if (!checked.ok) throw new InvalidRecordError(this.#target, checked.errors);
    const text = JSON.stringify(span);
    this.#pending.push(text);
    this.#pendingChars += text.length + 1;
    this.#count += 1;
    if (this.#pendingChars >= FLUSH_CHARS) this.#flush();
  }

  #flush(): void {
    if (this.#pending.length === 0) return;
    this.#pending.push("");
    const bytes = Buffer.from(this.#pending.join("\n"), "utf8");
    this.#pending = [];
    this.#pendingChars = 0;
    if (this.#fd === undefined && this.#heldBytes + bytes.length <= this.#hold) {
      this.#held.push(bytes);
      this.#heldBytes += bytes.length;
      return;
    }
    if (this.#fd === undefined) {
      const file = tempPathFor(this.#target);
      mkdirSync(dirname(file), { recursive: true });
      this.#fd = openSync(file, "wx+", 0o600);
      this.#file = file;
      for (const held of this.#held) this.#write(held);
      this.#held = [];
      this.#heldBytes = 0;
    }
    this.#write(bytes);
  }

  #write(bytes: Buffer): void {
    writeAll(this.#fd as number, bytes, this.#fileBytes, this.#file as string);
    this.#fileBytes += bytes.length;
  }

  /** The spooled lines, in pieces (each a fresh or held buffer of whole lines). */
  #lines(take: (bytes: Buffer) => void): void {
    this.#flush();
    if (this.#fd === undefined) {
      for (const held of this.#held) take(held);
      return;
    }
    let carry: Buffer | undefined;
    for (let at = 0; at < this.#fileBytes; ) {
      const chunk = Buffer.allocUnsafe(Math.min(READ_CHUNK, this.#fileBytes - at));
      let got = 0;
      while (got < chunk.length) {
        const n = readSync(this.#fd, chunk, got, chunk.length - got, at + got);
        if (n === 0) throw new Error(`${this.#file ?? ""} ended at byte ${String(at + got)} of ${String(this.#fileBytes)} written`);
        got += n;
      }
      at += got;
      const data = carry === undefined ? chunk : Buffer.concat([carry, chunk]);
      const end = data.lastIndexOf(NEWLINE) + 1;
      if (end > 0) take(data.subarray(0, end));
      carry = end < data.length ? data.subarray(end) : undefined;
    }
  }

  /** The spans' JSON joined by "," (the inside of the record's `spans` array), in pieces, in order. */
  eachPiece(take: (bytes: Buffer) => void): void {
    let first = true;
    this.#lines((lines) => {
      // One line per span, each ending in "\n": the newlines become the commas between spans, and the
      // last is dropped (a span's JSON holds no raw newline, so every one is a separator).
      const piece = Buffer.allocUnsafe(lines.length + (first ? 0 : 1));
      let out = 0;
      if (!first) piece[out++] = COMMA;
      first = false;
      lines.copy(piece, out);
      for (let i = piece.indexOf(NEWLINE, out); i !== -1; i = piece.indexOf(NEWLINE, i + 1)) piece[i] = COMMA;
      take(piece.subarray(0, piece.length - 1));
    });
  }

  /** Each span again (parsed back from its JSON), in order. */
  forEach(onSpan: (span: Span, index: number) => void): void {
    let index = 0;
    this.#lines((lines) => {
      let from = 0;
      for (let at = lines.indexOf(NEWLINE, from); at !== -1; at = lines.indexOf(NEWLINE, from)) {
        onSpan(JSON.parse(lines.toString("utf8", from, at)) as Span, index++);
        from = at + 1;
      }
    });
  }

  /** Closes and removes the temp file, if one was made. Idempotent. */
  dispose(): void {
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
    if (this.#file !== undefined) rmSync(this.#file, { force: true });
    this.#file = undefined;
    this.#held = [];
    this.#pending = [];
  }
}
