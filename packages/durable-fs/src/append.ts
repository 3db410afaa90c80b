// Appending durably: every byte written at the known end, fsynced, and on any failure the file cut
// back to where it was, so a record is either whole on disk (and acknowledged) or not there at all.
import { dirname } from "node:path";
import { type FileSystem, nodeFileSystem } from "./file-system.js";
import { syncDirectory } from "./sync-directory.js";
import { writeAll } from "./write-all.js";

export interface AppendAtResult {
  /** The file's size after the append. */
  readonly size: number;
}

/**
 * Writes `bytes` (one buffer, or pieces written one after the other) at `size` (the file's known good end) through `fd` (opened for writing, not O_APPEND),
 * then fsyncs when `sync`. On failure the file is truncated back to `size` and the error rethrown; if even
 * that fails, the error carries `tailDirty: true` and the caller must truncate before its next append.
 * The caller owns the file's end: one writer, or writers under `withAppendLock`.
 */
export function appendAt(fd: number, size: number, bytes: Uint8Array | readonly Uint8Array[], label: string, sync = true, fs: FileSystem = nodeFileSystem): AppendAtResult {
  const pieces = bytes instanceof Uint8Array ? [bytes] : bytes;
  let at = size;
  try {
    for (const piece of pieces) {
      writeAll(fd, piece, at, label, fs);
      at += piece.length;
    }
    if (sync) fs.fsyncSync(fd);
  } catch (error) {
    try {
      fs.ftruncateSync(fd, size);
      fs.fsyncSync(fd);
    } catch {
      if (error instanceof Error) Object.assign(error, { tailDirty: true });
    }
    throw error;
  }
  return { size: at };
}

export interface AppendFileOptions {
  /** fsync the file (and, when it was created, its folder). Default true. */
  readonly fsync?: boolean;
  readonly fs?: FileSystem;
}

/**
 * Appends `bytes` to `path` (created with its folder when missing) with `appendAt` at the file's current
 * end. Only safe against other appenders when they all hold the same `withAppendLock`.
 */
export function appendFile(path: string, bytes: Uint8Array | readonly Uint8Array[], options: AppendFileOptions = {}): AppendAtResult {
  const fs = options.fs ?? nodeFileSystem;
  const sync = options.fsync ?? true;
  fs.mkdirSync(dirname(path), { recursive: true });
  let created = false;
  let fd: number;
  try {
    fd = fs.openSync(path, "r+");
  } catch (error) {
    if ((error as { code?: unknown }).code !== "ENOENT") throw error;
    try {
      fd = fs.openSync(path, "wx+");
      created = true;
    } catch (again) {
      // Another appender created it in between.
      if ((again as { code?: unknown }).code !== "EEXIST") throw again;
      fd = fs.openSync(path, "r+");
    }
  }
  try {
    const result = appendAt(fd, fs.fstatSync(fd).size, bytes, path, sync, fs);
    if (created && sync) syncDirectory(dirname(path), fs);
    return result;
  } finally {
    fs.closeSync(fd);
  }
}
