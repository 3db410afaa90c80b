// A rename or a new file survives power loss only once its folder's entry is on disk: fsync the folder.
import { type FileSystem, nodeFileSystem } from "./file-system.js";

/** fsync a directory. Platforms that cannot open a directory for fsync (EISDIR, EPERM, EINVAL) are skipped: the rename is still atomic there. */
export function syncDirectory(dir: string, fs: FileSystem = nodeFileSystem): void {
  let fd: number;
  try {
    fd = fs.openSync(dir, "r");
  } catch (error) {
    if (unsupported(error)) return;
    throw error;
  }
  try {
    fs.fsyncSync(fd);
  } catch (error) {
    if (!unsupported(error)) throw error;
  } finally {
    fs.closeSync(fd);
  }
}

function unsupported(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return code === "EISDIR" || code === "EPERM" || code === "EINVAL" || code === "ENOTSUP" || code === "EBADF";
}
