// Writing the recall cache's files, apart from reading them (index-cache.ts): durable-fs is loaded by
// the processes that write a cache, not by a one-shot search that only reads one.
import { replaceFile } from "@context-fold/durable-fs";

/** Pieces are handed to the writer at most this large (it gathers small ones and copies what it gathers). */
const PIECE = 1 << 20;

/** `parts` cut into pieces of at most PIECE bytes (views, not copies). */
function* pieces(parts: Iterable<Uint8Array>): Iterable<Uint8Array> {
  for (const part of parts) {
    for (let at = 0; at < part.length; at += PIECE) yield part.subarray(at, Math.min(part.length, at + PIECE));
  }
}

/**
 * Replaces the cache atomically and durably (see @context-fold/durable-fs), readable by this user only.
 * `bytes` as one buffer, or as the file's parts in order (streamed: a large part is never copied whole; a
 * generator's parts are asked for one at a time, as they are written).
 */
export function writeAtomic(path: string, bytes: Buffer | Iterable<Uint8Array>): void {
  replaceFile(path, Buffer.isBuffer(bytes) ? bytes : pieces(bytes), { mode: 0o600 });
}
