// What a session file's first line says about it, read without the rest of the file: the one rule for
// reading a header line, used by the session resolver (session-names.ts) and by the one-shot search
// (snapshot-recall.ts), which needs only the id to find the cache.
import { closeSync, openSync, readSync } from "node:fs";

/** What a session's first line says about it. */
export interface SessionHead {
  readonly path: string;
  readonly id: string;
  readonly cwd: string | undefined;
  /** The header's timestamp in ms since the epoch (NaN when it has none). */
  readonly time: number;
}

/** The first line of `path` read as a session header, or undefined when it is not one. */
export function readSessionHead(path: string): SessionHead | undefined {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return undefined;
  }
  try {
    // A header is a few hundred bytes; 64 KiB bounds the read of a file that is not a session.
    const buffer = Buffer.alloc(65536);
    const n = readSync(fd, buffer, 0, buffer.length, 0);
    const end = buffer.subarray(0, n).indexOf(10);
    const line = buffer.subarray(0, end === -1 ? n : end).toString("utf8").replace(/^\uFEFF/, "");
    const header = JSON.parse(line) as { type?: unknown; id?: unknown; cwd?: unknown; timestamp?: unknown };
    if (header.type !== "session" || typeof header.id !== "string") return undefined;
    return {
      path,
      id: header.id,
      cwd: typeof header.cwd === "string" ? header.cwd : undefined,
      time: typeof header.timestamp === "string" ? Date.parse(header.timestamp) : Number.NaN,
    };
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}
