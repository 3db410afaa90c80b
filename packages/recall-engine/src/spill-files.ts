// Byte sinks a build writes its sections into, in memory or spilled to a file of its own (read back in
// pieces when the result is written), and a file read back in order a window at a time: what a streamed
// build of a large session's recall files holds instead of the sections themselves (streamed-build.ts).
import { closeSync, mkdirSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";

/** Bytes a file sink gathers before each write, and a piece read back at most. */
const SINK_BYTES = 64 * 1024;
const PIECE_BYTES = 1 << 20;

/**
 * Bytes appended in order, numbers little-endian. In memory (`MemorySink`) the buffer grows; spilled
 * (`FileSink`) it is written out whenever it fills. `pieces` gives what was written, in order.
 */
export abstract class ByteSink {
  protected buf: Buffer;
  protected at = 0;
  /** Bytes written so far. */
  size = 0;

  constructor(initial: number) {
    this.buf = Buffer.allocUnsafe(Math.max(16, initial));
  }

  /** Makes room for `n` more bytes in `buf` (from `at`). */
  protected abstract room(n: number): void;
  /** What was written, in order (a sink is not written to after). */
  abstract pieces(): Iterable<Uint8Array>;

  u8(v: number): void {
    if (this.at + 1 > this.buf.length) this.room(1);
    this.buf[this.at++] = v;
    this.size += 1;
  }
  i32(v: number): void {
    if (this.at + 4 > this.buf.length) this.room(4);
    this.buf.writeInt32LE(v, this.at);
    this.at += 4;
    this.size += 4;
  }
  u32(v: number): void {
    if (this.at + 4 > this.buf.length) this.room(4);
    this.buf.writeUInt32LE(v, this.at);
    this.at += 4;
    this.size += 4;
  }
  f64(v: number): void {
    if (this.at + 8 > this.buf.length) this.room(8);
    this.buf.writeDoubleLE(v, this.at);
    this.at += 8;
    this.size += 8;
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
    const grown = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.at + n));
    this.buf.copy(grown, 0, 0, this.at);
    this.buf = grown;
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
    if (n > this.buf.length) this.buf = Buffer.allocUnsafe(n);
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

/** A file read in order through a window of bytes (a run of a streamed build, read back while merged). */
export class FileWindow {
  private buf: Buffer;
  private start = 0;
  private end = 0;
  private fileAt = 0;
  private eof = false;
  private fd: number | null;

  constructor(path: string, windowBytes: number) {
    this.fd = openSync(path, "r");
    this.buf = Buffer.allocUnsafe(Math.max(16, windowBytes - (windowBytes % 4)));
  }

  /** At least `n` (≤ the window) bytes from `start` in the window; false when the file ends first. */
  private have(n: number): boolean {
    if (this.end - this.start >= n) return true;
    if (this.eof || this.fd === null) return false;
    this.buf.copy(this.buf, 0, this.start, this.end);
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

  close(): void {
    if (this.fd === null) return;
    closeSync(this.fd);
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
