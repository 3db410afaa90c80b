// On-disk storage of the local bank: an append-only JSONL journal (fsync before an answer is sent)
// plus a snapshot replaced atomically (temp file, fsync, rename). A crash tears at most the last line.
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, ftruncateSync, writeSync } from "node:fs";
import { join } from "node:path";
import { JournalCorruptError } from "./errors.js";
import type { StoredBank, StoredMemory } from "./records.js";

/** One journal line: a full bank or memory record; replay is an upsert, so replaying twice is harmless. */
export type JournalRecord = { readonly op: "bank"; readonly bank: StoredBank } | { readonly op: "memory"; readonly memory: StoredMemory };

export const JOURNAL_FILE = "journal.jsonl";
export const SNAPSHOT_FILE = "snapshot.jsonl";

export interface LoadResult {
  readonly records: JournalRecord[];
  /** A torn last line that was dropped (bytes), 0 when the journal ended cleanly. */
  readonly tornBytes: number;
}

function isRecord(value: unknown): value is JournalRecord {
  if (typeof value !== "object" || value === null) return false;
  const op = (value as { op?: unknown }).op;
  if (op === "bank") return typeof (value as { bank?: { bankId?: unknown } }).bank?.bankId === "string";
  if (op === "memory") return typeof (value as { memory?: { id?: unknown } }).memory?.id === "string";
  return false;
}

function parseLines(file: string, text: string, allowTornTail: boolean): { records: JournalRecord[]; goodBytes: number; tornBytes: number } {
  const records: JournalRecord[] = [];
  let start = 0;
  let lineNo = 0;
  const total = Buffer.byteLength(text);
  let byteOffset = 0;
  while (start < text.length) {
    const nl = text.indexOf("\n", start);
    const line = nl === -1 ? text.slice(start) : text.slice(start, nl);
    lineNo += 1;
    const lineBytes = Buffer.byteLength(line);
    if (line.trim() !== "") {
      let parsed: unknown;
      let ok = true;
      try {
        parsed = JSON.parse(line);
      } catch {
        ok = false;
      }
      if (!ok || !isRecord(parsed)) {
        if (nl === -1 && allowTornTail) return { records, goodBytes: byteOffset, tornBytes: total - byteOffset };
        throw new JournalCorruptError(file, lineNo, byteOffset, ok ? "not a journal record" : "not valid JSON");
      }
      records.push(parsed);
    }
    if (nl === -1) {
      // A complete record whose newline never reached the disk: keep it, the newline is restored on open.
      return { records, goodBytes: total, tornBytes: 0 };
    }
    byteOffset += lineBytes + 1;
    start = nl + 1;
  }
  return { records, goodBytes: byteOffset, tornBytes: 0 };
}

export class Journal {
  private readonly dir: string;
  private fd: number | null = null;
  private lines = 0;

  constructor(dir: string) {
    this.dir = dir;
  }

  get journalPath(): string {
    return join(this.dir, JOURNAL_FILE);
  }

  get snapshotPath(): string {
    return join(this.dir, SNAPSHOT_FILE);
  }

  /** Read snapshot then journal, drop a torn journal tail (truncating it away), open for appending. */
  load(): LoadResult {
    mkdirSync(this.dir, { recursive: true });
    // A temp snapshot left by a crash before its rename is incomplete by definition.
    rmSync(`${this.snapshotPath}.tmp`, { force: true });
    const records: JournalRecord[] = [];
    if (existsSync(this.snapshotPath)) {
      records.push(...parseLines(this.snapshotPath, readFileSync(this.snapshotPath, "utf8"), false).records);
    }
    let tornBytes = 0;
    const fd = openSync(this.journalPath, "a+");
    const text = existsSync(this.journalPath) ? readFileSync(this.journalPath, "utf8") : "";
    const parsed = parseLines(this.journalPath, text, true);
    records.push(...parsed.records);
    tornBytes = parsed.tornBytes;
    if (tornBytes > 0) {
      ftruncateSync(fd, parsed.goodBytes);
      fsyncSync(fd);
    } else if (text.length > 0 && !text.endsWith("\n")) {
      writeSync(fd, "\n");
      fsyncSync(fd);
    }
    this.fd = fd;
    this.lines = parsed.records.length;
    return { records, tornBytes };
  }

  /** Append records and fsync: when this returns, they survive a crash. */
  append(records: readonly JournalRecord[]): void {
    if (this.fd === null || records.length === 0) return;
    let chunk = "";
    for (const record of records) chunk += `${JSON.stringify(record)}\n`;
    writeSync(this.fd, chunk);
    fsyncSync(this.fd);
    this.lines += records.length;
  }

  get journalLines(): number {
    return this.lines;
  }

  /** Write the full state as a new snapshot (atomically), then empty the journal. */
  snapshot(records: Iterable<JournalRecord>): void {
    if (this.fd === null) return;
    const tmp = `${this.snapshotPath}.tmp`;
    const out = openSync(tmp, "w");
    try {
      let chunk = "";
      for (const record of records) {
        chunk += `${JSON.stringify(record)}\n`;
        if (chunk.length > 1 << 20) {
          writeSync(out, chunk);
          chunk = "";
        }
      }
      if (chunk !== "") writeSync(out, chunk);
      fsyncSync(out);
    } finally {
      closeSync(out);
    }
    renameSync(tmp, this.snapshotPath);
    const dirFd = openSync(this.dir, "r");
    try {
      fsyncSync(dirFd);
    } finally {
      closeSync(dirFd);
    }
    // A crash here leaves journal lines the snapshot already holds: replay is an upsert, so no harm.
    ftruncateSync(this.fd, 0);
    fsyncSync(this.fd);
    this.lines = 0;
  }

  close(): void {
    if (this.fd === null) return;
    closeSync(this.fd);
    this.fd = null;
  }
}
