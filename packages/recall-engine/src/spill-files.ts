// Byte sinks a build writes its sections into, in memory or spilled to a file of its own (read back in
// pieces when the result is written), and a file read back in order a window at a time: what a streamed
// build of a large session's recall files holds instead of the sections themselves (streamed-build.ts).
import { closeSync, mkdirSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";

/** Bytes a file sink gathers before each write, and a piece read back at most. */
const SINK_BYTES = 64 * 1024;
const PIECE_BYTES = 1 << 20;

/** Whether this machine stores typed arrays little-endian (the sinks' numbers are written through them). */
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/**
 * Bytes appended in order, numbers little-endian. In memory (`MemorySink`) the buffer grows; spilled
 * (`FileSink`) it is written out whenever it fills. `pieces` gives what was written, in order. A sink
 * written with numbers of one width only (a column) stores them through a typed view of its buffer: a
 * build writes a few values per block, and a store costs less than a call into Buffer's writers.
 */
export abstract class ByteSink {
  protected buf: Buffer;
  private i32s: Int32Array;
  private f64s: Float64Array;
  protected at = 0;
  /** Bytes written so far. */
  size = 0;

  constructor(initial: number) {
    if (!LITTLE_ENDIAN) throw new Error("spilled sections are written little-endian only");
    this.buf = Buffer.allocUnsafeSlow(Math.max(16, initial + (8 - (initial % 8))));
    this.i32s = new Int32Array(this.buf.buffer, 0, this.buf.length >>> 2);
    this.f64s = new Float64Array(this.buf.buffer, 0, this.buf.length >>> 3);
  }

  /** Makes room for `n` more bytes in `buf` (from `at`). */
  protected abstract room(n: number): void;
  /** What was written, in order (a sink is not written to after). */
  abstract pieces(): Iterable<Uint8Array>;

  /** `buf` replaced by `next` (its own memory, 8-aligned), the typed views with it. */
  protected use(next: Buffer): void {
    this.buf = next;
    this.i32s = new Int32Array(next.buffer, next.byteOffset, next.length >>> 2);
    this.f64s = new Float64Array(next.buffer, next.byteOffset, next.length >>> 3);
  }

  u8(v: number): void {
    if (this.at + 1 > this.buf.length) this.room(1);
    this.buf[this.at++] = v;
    this.size += 1;
  }
  i32(v: number): void {
    if (this.at + 4 > this.buf.length) this.room(4);
    if ((this.at & 3) === 0) this.i32s[this.at >>> 2] = v;
    else this.buf.writeInt32LE(v, this.at);
    this.at += 4;
    this.size += 4;
  }
  u32(v: number): void {
    this.i32(v | 0);
  }
  f64(v: number): void {
    if (this.at + 8 > this.buf.length) this.room(8);
    if ((this.at & 7) === 0) this.f64s[this.at >>> 3] = v;
    else this.buf.writeDoubleLE(v, this.at);
    this.at += 8;
    this.size += 8;
  }
  /** `digits` (hex) as bytes, `length` of them at most; the bytes written. */
  hex(digits: string, length: number): number {
    if (this.at + length > this.buf.length) this.room(length);
    const n = this.buf.write(digits, this.at, length, "hex");
    this.at += n;
    this.size += n;
    return n;
  }
  /** `text` as UTF-16LE code units, exactly (lone surrogates too). */
  utf16(text: string): void {
    const n = 2 * text.length;
    if (this.at + n > this.buf.length) this.room(n);
    this.at += this.buf.write(text, this.at, "utf16le");
    this.size += n;
  }
  bytes(bytes: Uint8Array): void {
    let from = 0;
    while (from < bytes.length) {
      if (this.at === this.buf.length) this.room(Math.min(bytes.length - from, this.buf.length));
      const take = Math.min(bytes.length - from, this.buf.length - this.at);
      this.buf.set(bytes.subarray(from, from + take), this.at);
      this.at += take;
      from += take;
      this.size += take;
    }
  }
}

/** A sink that keeps its bytes in one growing buffer. */
export class MemorySink extends ByteSink {
  constructor(initial = 1024) {
    super(initial);
  }
  protected room(n: number): void {
    const grown = Buffer.allocUnsafeSlow(Math.max(this.buf.length * 2, this.at + n + 8));
    this.buf.copy(grown, 0, 0, this.at);
    this.use(grown);
  }
  pieces(): Iterable<Uint8Array> {
    return [this.buf.subarray(0, this.at)];
  }
}

/** A sink spilled to `path` (created, or truncated), read back from there in pieces. */
export class FileSink extends ByteSink {
  readonly path: string;
  private fd: number | null;

  constructor(path: string) {
    super(SINK_BYTES);
    this.path = path;
    this.fd = openSync(path, "w", 0o600);
  }
  private flush(): void {
    if (this.fd === null) throw new RangeError(`${this.path} was already read back`);
    let off = 0;
    while (off < this.at) off += writeSync(this.fd, this.buf, off, this.at - off);
    this.at = 0;
  }
  protected room(n: number): void {
    this.flush();
    if (n > this.buf.length) this.use(Buffer.allocUnsafeSlow(n + (8 - (n % 8))));
  }
  /** Closes the file (written out first). */
  close(): void {
    if (this.fd === null) return;
    this.flush();
    closeSync(this.fd);
    this.fd = null;
  }
  pieces(): Iterable<Uint8Array> {
    this.close();
    return readPieces(this.path);
  }
}

const LATIN1 = /^[\0-\xff]*$/;

/**
 * Strings appended in order, given back as one text: latin1 (a byte each) when every character fits a
 * byte, else UTF-16LE, so any string comes back exactly. In memory (`MemoryText`: the strings joined
 * once at the end) or spilled (`FileText`: written as UTF-16LE, made latin1 as it is read back).
 */
export interface TextSink {
  add(text: string): void;
  /** UTF-16 units added. */
  readonly units: number;
  /** Whether every character added fits a byte. */
  latin1(): boolean;
  /** The text in order, latin1 when `latin1()`, else UTF-16LE. */
  pieces(): Iterable<Uint8Array>;
}

export class MemoryText implements TextSink {
  private readonly parts: string[] = [];
  private joined: string | undefined;
  units = 0;
  add(text: string): void {
    this.parts.push(text);
    this.units += text.length;
  }
  private text(): string {
    this.joined ??= this.parts.join("");
    return this.joined;
  }
  private fits: boolean | undefined;
  latin1(): boolean {
    this.fits ??= LATIN1.test(this.text());
    return this.fits;
  }
  pieces(): Iterable<Uint8Array> {
    return [Buffer.from(this.text(), this.latin1() ? "latin1" : "utf16le")];
  }
}

export class FileText implements TextSink {
  private readonly sink: FileSink;
  private fits = true;
  units = 0;
  constructor(path: string) {
    this.sink = new FileSink(path);
  }
  add(text: string): void {
    this.sink.utf16(text);
    this.units += text.length;
    if (this.fits && !LATIN1.test(text)) this.fits = false;
  }
  latin1(): boolean {
    return this.fits;
  }
  pieces(): Iterable<Uint8Array> {
    const pieces = this.sink.pieces();
    return this.fits ? latin1Of(pieces) : pieces;
  }
}

/** UTF-16LE pieces (each of an even length) as latin1: the low byte of each unit (every unit fits one). */
function* latin1Of(pieces: Iterable<Uint8Array>): Iterable<Uint8Array> {
  for (const piece of pieces) {
    const out = Buffer.allocUnsafe(piece.length >>> 1);
    for (let k = 0; k < out.length; k++) out[k] = piece[2 * k] as number;
    yield out;
  }
}

/** The bytes of `path` in order, a fresh buffer per piece (a writer may keep a piece it was handed). */
export function* readPieces(path: string, pieceBytes = PIECE_BYTES): Generator<Uint8Array, void, undefined> {
  const fd = openSync(path, "r");
  try {
    for (let at = 0; ; ) {
      const piece = Buffer.allocUnsafe(pieceBytes);
      let got = 0;
      while (got < piece.length) {
        const n = readSync(fd, piece, got, piece.length - got, at + got);
        if (n === 0) break;
        got += n;
      }
      if (got === 0) return;
      at += got;
      yield piece.subarray(0, got);
      if (got < piece.length) return;
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * A file read in order through a window of bytes (a run of a streamed build, or of the history's
 * dictionary, read back while merged). Opened here from a path (and closed by `close`), or read from a
 * descriptor its caller owns. `buf[start, end)` holds the bytes not yet consumed.
 */
export class FileWindow {
  buf: Buffer;
  start = 0;
  end = 0;
  private fileAt = 0;
  private eof = false;
  private fd: number | null;
  private readonly owned: boolean;

  constructor(source: string | number, windowBytes: number) {
    this.owned = typeof source === "string";
    this.fd = typeof source === "string" ? openSync(source, "r") : source;
    this.buf = Buffer.allocUnsafe(Math.max(16, windowBytes - (windowBytes % 4)));
  }

  /** At least `n` bytes from `start` in the window (grown when `n` exceeds it); false when the file ends first. */
  have(n: number): boolean {
    if (this.end - this.start >= n) return true;
    if (this.eof || this.fd === null) return false;
    if (n > this.buf.length) {
      const grown = Buffer.allocUnsafe(Math.max(n, this.buf.length * 2));
      this.buf.copy(grown, 0, this.start, this.end);
      this.buf = grown;
    } else this.buf.copy(this.buf, 0, this.start, this.end);
    this.end -= this.start;
    this.start = 0;
    while (this.end < this.buf.length) {
      const got = readSync(this.fd, this.buf, this.end, this.buf.length - this.end, this.fileAt);
      if (got === 0) {
        this.eof = true;
        break;
      }
      this.end += got;
      this.fileAt += got;
    }
    return this.end - this.start >= n;
  }

  /** The next u32, or -1 at the end of the file. */
  u32(): number {
    if (!this.have(4)) return -1;
    const v = this.buf.readUInt32LE(this.start);
    this.start += 4;
    return v;
  }

  /** Hands the next `n` bytes to `sink` a window at a time; throws when the file ends first. */
  copy(n: number, sink: (bytes: Buffer) => void): void {
    let left = n;
    while (left > 0) {
      if (!this.have(Math.min(left, this.buf.length))) throw new RangeError("a spilled run ends early");
      const take = Math.min(left, this.end - this.start);
      sink(this.buf.subarray(this.start, this.start + take));
      this.start += take;
      left -= take;
    }
  }

  /** Closes the file if it was opened here (a caller's descriptor stays open); the window reads no more. */
  close(): void {
    if (this.fd === null) return;
    if (this.owned) closeSync(this.fd);
    this.fd = null;
  }
}

/**
 * A folder of its own beside `path` for a build's spilled files (`<name>.build-XXXXXX`), made now; the
 * caller removes it (`dropSpillFolder`) however the build ends.
 */
export function makeSpillFolder(path: string): string {
  mkdirSync(dirname(path), { recursive: true });
  return mkdtempSync(join(dirname(path), `${basename(path)}.build-`));
}

export function dropSpillFolder(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}
