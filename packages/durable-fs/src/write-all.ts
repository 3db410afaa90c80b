// A write(2) may take fewer bytes than asked (a full disk, a signal): loop until every byte is written,
// and fail loudly when the file system stops taking any, so no caller acknowledges a partial write.
import { ShortWriteError } from "./errors.js";
import { type FileSystem, nodeFileSystem } from "./file-system.js";

/**
 * Writes all of `bytes` to `fd`, at `position` (then onwards) or at the descriptor's position when null.
 * Throws the file system's error (e.g. ENOSPC) or ShortWriteError; how much reached the file is then
 * unknown to the caller, who must cut it back (see `appendAt`) or discard the file (see `replaceFile`).
 */
export function writeAll(fd: number, bytes: Uint8Array, position: number | null, label: string, fs: FileSystem = nodeFileSystem): void {
  let written = 0;
  while (written < bytes.length) {
    const n = fs.writeSync(fd, bytes, written, bytes.length - written, position === null ? null : position + written);
    if (n <= 0) throw new ShortWriteError(label, written, bytes.length);
    written += n;
  }
}
