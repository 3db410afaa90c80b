// Writing a handoff seed beside the seed index, atomically (temp file in the same folder, fsync, rename,
// then fsync of the folder): a reader sees the old file whole or the new one whole, never a mix.
import { randomBytes } from "node:crypto";
import { mkdir, open, rename, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { handoffPath } from "@context-fold/seed-index-format";
import { HandoffError } from "./errors.js";

export interface WriteHandoffOptions {
  /** Write here instead of `handoffPath(sessionFile, sessionId)`. */
  readonly out?: string;
}

export interface WrittenHandoff {
  readonly path: string;
  readonly bytes: number;
}

/** Replace `path` with `text` atomically; the folder is created when missing. */
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
    throw new HandoffError("HANDOFF_WRITE", path, `cannot write the handoff ${path}: ${(error as Error).message}`, { cause: error });
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

/** Write `markdown` as `handoff-<sessionId>.md` beside the session's seed index (or at `out`). */
export async function writeHandoff(sessionFile: string, sessionId: string, markdown: string, options: WriteHandoffOptions = {}): Promise<WrittenHandoff> {
  const path = options.out ?? handoffPath(sessionFile, sessionId);
  const bytes = await writeFileAtomically(path, markdown);
  return { path, bytes };
}
