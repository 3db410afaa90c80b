// What the incremental benchmarks append to a session: copies of its own entry lines with fresh ids,
// chained after a leaf, so the appended part reads like more of the same session.
import { readFileSync } from "node:fs";

export interface FreshLinesOptions {
  /** Stop once about this many bytes are written (the source is cycled if it is shorter). */
  readonly bytes: number;
  /** Prefix of the fresh ids (`<tag>-<n>`): distinct per call, so ids never repeat. */
  readonly tag: string;
  /** The entry the first copied line hangs under. */
  readonly parentId: string | null;
  /** Copy only message entries (what a Pi turn appends). */
  readonly onlyMessages?: boolean;
  /** Read at most this many source lines (the source's first entries), to keep setup cheap. */
  readonly sourceLines?: number;
}

/** JSONL text (newline-terminated) of entries copied from `file` with fresh ids, chained from `parentId`. */
export function freshEntryLines(file: string, options: FreshLinesOptions): string {
  const lines = readFileSync(file, "utf8").split("\n").slice(1, options.sourceLines === undefined ? undefined : options.sourceLines + 1);
  const out: string[] = [];
  let size = 0;
  let parent = options.parentId;
  let n = 0;
  while (size < options.bytes) {
    const before = n;
    for (const line of lines) {
      if (size >= options.bytes) break;
      let entry: Record<string, unknown>;
      try {
        entry = JSON.parse(line) as Record<string, unknown>;
      } catch {
        continue;
      }
      if (options.onlyMessages === true && entry["type"] !== "message") continue;
      const id = `${options.tag}-${String(n++)}`;
      entry["id"] = id;
      entry["parentId"] = parent;
      if (entry["type"] === "compaction") entry["firstKeptEntryId"] = id;
      parent = id;
      const text = JSON.stringify(entry);
      out.push(text);
      size += Buffer.byteLength(text) + 1;
    }
    if (n === before) throw new Error(`${file} has no entries to copy`);
  }
  return `${out.join("\n")}\n`;
}
