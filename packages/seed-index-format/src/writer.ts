// The append-only writer: validate, then append one whole line in a single O_APPEND write, so concurrent
// appenders never interleave; a torn last line (an interrupted append) is left in place and we start fresh.
import { type FileHandle, mkdir, open } from "node:fs/promises";
import { setTimeout as delay } from "node:timers/promises";
import { dirname } from "node:path";
import { InvalidRecordError } from "./errors.js";
import { type FoldIndexRecord, type FoldRetractRecord, validateRecord } from "./records.js";

/**
 * Does the file end in a line without its newline? Another process's append can be visible half-done
 * (the kernel grows the size page by page), so a non-newline tail counts as torn only once the size has
 * stopped moving; a crashed writer's tail stays put.
 */
async function endsInTornLine(handle: FileHandle): Promise<boolean> {
  const last = Buffer.alloc(1);
  let previous = -1;
  for (let attempt = 0; attempt < 6; attempt += 1) {
    const { size } = await handle.stat();
    if (size === 0) return false;
    await handle.read(last, 0, 1, size - 1);
    if (last[0] === 0x0a) return false;
    if (size === previous) return true;
    previous = size;
    await delay(2 * (attempt + 1));
  }
  return true;
}

export interface AppendOptions {
  /** fsync the file after the write (durable against power loss; slower). */
  fsync?: boolean;
}

/**
 * Append one record as one line. Throws InvalidRecordError (file untouched) when the record does not match
 * the contract. If the file's last byte is not a newline (a torn tail), the line is preceded by one, so the
 * torn bytes stay on their own line, where the reader reports them.
 */
export async function appendRecord(path: string, record: FoldIndexRecord | FoldRetractRecord, options: AppendOptions = {}): Promise<void> {
  const checked = validateRecord(record);
  if (!checked.ok) throw new InvalidRecordError(path, checked.errors);
  const line = `${JSON.stringify(record)}\n`;
  await mkdir(dirname(path), { recursive: true });
  const handle = await open(path, "a+");
  try {
    const prefix = (await endsInTornLine(handle)) ? "\n" : "";
    const bytes = Buffer.from(prefix + line, "utf8");
    // One write(2) on an O_APPEND descriptor: the kernel places it at the end atomically.
    let written = 0;
    while (written < bytes.length) {
      const { bytesWritten } = await handle.write(bytes, written, bytes.length - written);
      written += bytesWritten;
    }
    if (options.fsync === true) await handle.sync();
  } finally {
    await handle.close();
  }
}
