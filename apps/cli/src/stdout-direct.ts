// Output written straight to file descriptor 1 (`fs.writeSync`) by the binary's quick paths (`--version`,
// the one-shot search), so process.stdout is never made: setting that stream up costs a start 3–6 ms.
// Node ignores SIGPIPE, so a reader that went away is an EPIPE thrown by the write itself.

/**
 * Writes `text` to descriptor 1; each write completes before it returns. Returns the bytes not written
 * when the descriptor would block (EAGAIN: a non-blocking pipe that is full), for the caller to write
 * through process.stdout, which waits; empty when all were written. Throws the write's other errors
 * (EPIPE: the reader went away).
 */
export function writeToDescriptor(text: string): Buffer {
  const { writeSync } = process.getBuiltinModule("node:fs");
  let bytes = Buffer.from(text, "utf8");
  while (bytes.length > 0) {
    try {
      bytes = bytes.subarray(writeSync(1, bytes));
    } catch (error) {
      if ((error as { code?: unknown }).code !== "EAGAIN") throw error;
      return bytes;
    }
  }
  return bytes;
}
