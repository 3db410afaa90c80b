// Replacing one of our files atomically: temp file in the same folder, fsync, rename, then fsync of the
// folder. A reader sees the old file whole or the new one whole, never a mix; a crash leaves one of them.
import { randomBytes } from "node:crypto";
import { mkdir, open, rename, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/**
 * Replace `path` with `text` atomically; the folder is created when missing. Throws the file system's
 * error (the temp file removed); callers name what they were writing.
 */
export async function writeFileAtomically(path: string, text: string): Promise<number> {
  const dir = dirname(path);
  const bytes = Buffer.from(text, "utf8");
  const temp = join(dir, `.${basename(path)}.${String(process.pid)}.${randomBytes(6).toString("hex")}.tmp`);
  try {
    await mkdir(dir, { recursive: true });
    const handle = await open(temp, "wx", 0o644);
    try {
      await handle.writeFile(bytes);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  try {
    const folder = await open(dir, "r");
    try {
      await folder.sync();
    } finally {
      await folder.close();
    }
  } catch {
    // Some filesystems refuse a directory fsync; the rename itself is already atomic.
  }
  return bytes.length;
}
