// Replacing one of our files atomically goes through @context-fold/durable-fs (temp file with a random
// name, every byte written, fsync, rename, folder fsync, temp removed on error): one home for that rule.
import { replaceFile } from "@context-fold/durable-fs";

/**
 * Replace `path` with `text` atomically; the folder is created when missing. Throws the file system's
 * error (the temp file removed); callers name what they were writing.
 */
export async function writeFileAtomically(path: string, text: string): Promise<number> {
  return replaceFile(path, text);
}
