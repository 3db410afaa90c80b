// Replacing a file atomically and durably: a temp file beside it (random name, created exclusively),
// every byte written and fsynced, renamed over the target, then the folder fsynced. A reader sees the old
// file whole or the new one whole; a failure at any step removes the temp file and leaves the old one.
import { dirname } from "node:path";
import { type FileSystem, nodeFileSystem } from "./file-system.js";
import { syncDirectory } from "./sync-directory.js";
import { tempPathFor } from "./temp-name.js";
import { writeAll } from "./write-all.js";

export type FileContent = string | Uint8Array | Iterable<string | Uint8Array>;

export interface ReplaceOptions {
  /** Mode of a newly created file (default 0o644). */
  readonly mode?: number;
  /** Streamed content is written in chunks of about this many bytes (default 1 MiB). */
  readonly chunkBytes?: number;
  /**
   * fsync the file and its folder (default true). False still replaces atomically (a reader sees the old
   * file or the new one whole) but leaves the bytes to the caller to make durable: one writing many files
   * that nothing names until its own commit fsyncs them all at once before it.
   */
  readonly fsync?: boolean;
  readonly fs?: FileSystem;
}

function* chunksOf(content: FileContent, chunkBytes: number): Iterable<Uint8Array> {
  if (typeof content === "string") {
    yield Buffer.from(content, "utf8");
    return;
  }
  if (content instanceof Uint8Array) {
    yield content;
    return;
  }
  // Gather small pieces so a stream of lines costs a few large writes, not one per line.
  let pending: Buffer[] = [];
  let size = 0;
  for (const piece of content) {
    const bytes = typeof piece === "string" ? Buffer.from(piece, "utf8") : Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength);
    pending.push(bytes);
    size += bytes.length;
    if (size >= chunkBytes) {
      yield Buffer.concat(pending, size);
      pending = [];
      size = 0;
    }
  }
  if (size > 0) yield Buffer.concat(pending, size);
}

/** Replaces `path` with `content`; creates the folder when missing. Returns the bytes written. Throws the file system's error, temp file removed. */
export function replaceFile(path: string, content: FileContent, options: ReplaceOptions = {}): number {
  const fs = options.fs ?? nodeFileSystem;
  const dir = dirname(path);
  fs.mkdirSync(dir, { recursive: true });
  const temp = tempPathFor(path);
  let total = 0;
  try {
    const fd = fs.openSync(temp, "wx", options.mode ?? 0o644);
    try {
      for (const chunk of chunksOf(content, options.chunkBytes ?? 1 << 20)) {
        writeAll(fd, chunk, total, temp, fs);
        total += chunk.length;
      }
      if (options.fsync !== false) fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temp, path);
  } catch (error) {
    try {
      fs.rmSync(temp, { force: true });
    } catch {
      // The original error is the one to report; a temp file that cannot be removed is named by it.
    }
    throw error;
  }
  if (options.fsync !== false) syncDirectory(dir, fs);
  return total;
}
