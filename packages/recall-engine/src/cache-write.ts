// Writing the recall cache's files, apart from reading them (index-cache.ts): durable-fs is loaded by
// the processes that write a cache, not by a one-shot search that only reads one.
import { replaceFile } from "@context-fold/durable-fs";

/** Replaces the cache atomically and durably (see @context-fold/durable-fs), readable by this user only. */
export function writeAtomic(path: string, bytes: Buffer): void {
  replaceFile(path, bytes, { mode: 0o600 });
}
