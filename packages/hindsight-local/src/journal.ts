// On-disk storage of the local bank: an append-only JSONL journal plus a snapshot, both written through
// @context-fold/durable-fs. Every journal line carries its ordinal and a checksum; an append is
// acknowledged only once every byte is written and fsynced, and a failed one is cut back off the file
// before anything else is appended. The snapshot (replaced atomically) ends with a trailer holding its
// record count and a digest, so a snapshot cut at a line boundary is told from a whole one.
import { createHash } from "node:crypto";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { appendAt, type FileSystem, isTempNameFor, nodeFileSystem, replaceFile } from "@context-fold/durable-fs";
import type { StoredBank, StoredMemory } from "./records.js";

/** One journal line: a full bank or memory record; replay is an upsert, so replaying twice is harmless. */
export type JournalRecord = { readonly op: "bank"; readonly bank: StoredBank } | { readonly op: "memory"; readonly memory: StoredMemory };

export const JOURNAL_FILE = "journal.jsonl";
export const SNAPSHOT_FILE = "snapshot.jsonl";

/** One finding of a start: what is damaged, where, and what it cost. */
export interface StorageDamage {
  readonly file: string;
  /** 1-based line, 0 for the file as a whole. */
  readonly line: number;
  readonly byteOffset: number;
  readonly reason: string;
  /** How many acknowledged records this costs: a number, or "unknown" when the file cannot tell. */
  readonly lost: number | "unknown";
}

export interface LoadResult {
  readonly records: JournalRecord[];
  /** Bytes of an incomplete last journal line cut away (0 when the journal ended cleanly). */
  readonly tornBytes: number;
  /** Damage found (each intact record was kept); empty when both files read whole. */
  readonly damage: readonly StorageDamage[];
  /** Other things a start should say (files written before checksums, where damaged copies were kept). */
  readonly notices: readonly string[];
  /** The files should be rewritten from the state (a damaged copy was kept): call `snapshot`. */
  readonly rewrite: boolean;
}

function isRecord(value: unknown): value is JournalRecord {
  if (typeof value !== "object" || value === null) return false;
  const op = (value as { op?: unknown }).op;
  if (op === "bank") return typeof (value as { bank?: { bankId?: unknown } }).bank?.bankId === "string";
  if (op === "memory") return typeof (value as { memory?: { id?: unknown } }).memory?.id === "string";
  return false;
}

/** 16 hex digits of sha256 over the ordinal and the record's exact JSON. */
function checksum(n: number, json: string): string {
  return createHash("sha256").update(`${String(n)}\n${json}`).digest("hex").slice(0, 16);
}

/** `{"n":…,"sum":"…","rec":…}`: the record's JSON is kept byte for byte, so the checksum covers what is on disk. */
export function envelope(n: number, record: JournalRecord): { line: string; sum: string } {
  const json = JSON.stringify(record);
  const sum = checksum(n, json);
  return { line: `{"n":${String(n)},"sum":"${sum}","rec":${json}}\n`, sum };
}

const ENVELOPE_HEAD = /^\{"n":(\d{1,15}),"sum":"([0-9a-f]{16})","rec":/;

type ParsedLine =
  | { readonly kind: "blank" }
  | { readonly kind: "record"; readonly n: number; readonly sum: string; readonly record: JournalRecord }
  | { readonly kind: "legacy"; readonly record: JournalRecord }
  | { readonly kind: "trailer"; readonly count: number; readonly digest: string }
  | { readonly kind: "bad"; readonly reason: string };

function parseLine(line: string): ParsedLine {
  if (line.trim() === "") return { kind: "blank" };
  const head = ENVELOPE_HEAD.exec(line);
  if (head !== null) {
    if (!line.endsWith("}")) return { kind: "bad", reason: "the record is cut short" };
    const json = line.slice(head[0].length, -1);
    const n = Number(head[1]);
    if (checksum(n, json) !== head[2]) return { kind: "bad", reason: "checksum mismatch (the bytes changed after they were written)" };
    let parsed: unknown;
    try {
      parsed = JSON.parse(json);
    } catch {
      return { kind: "bad", reason: "not valid JSON" };
    }
    return isRecord(parsed) ? { kind: "record", n, sum: head[2] as string, record: parsed } : { kind: "bad", reason: "not a bank or memory record" };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return { kind: "bad", reason: "not valid JSON" };
  }
  const trailer = typeof parsed === "object" && parsed !== null ? (parsed as { trailer?: unknown }).trailer : undefined;
  if (typeof trailer === "object" && trailer !== null) {
    const { count, digest } = trailer as { count?: unknown; digest?: unknown };
    if (typeof count === "number" && Number.isInteger(count) && count >= 0 && typeof digest === "string") return { kind: "trailer", count, digest };
    return { kind: "bad", reason: "a snapshot trailer without its count and digest" };
  }
  return isRecord(parsed) ? { kind: "legacy", record: parsed } : { kind: "bad", reason: "not a journal record" };
}

interface Line {
  readonly text: string;
  readonly number: number;
  readonly byteOffset: number;
  /** false for a last line without its newline. */
  readonly ended: boolean;
}

function* linesOf(bytes: Buffer): Iterable<Line> {
  let start = 0;
  let number = 0;
  while (start < bytes.length) {
    const nl = bytes.indexOf(0x0a, start);
    const end = nl === -1 ? bytes.length : nl;
    number += 1;
    yield { text: bytes.subarray(start, end).toString("utf8"), number, byteOffset: start, ended: nl !== -1 };
    start = end + 1;
  }
}

function readIfExists(fs: FileSystem, path: string): Buffer | null {
  try {
    return fs.readFileSync(path);
  } catch (error) {
    if ((error as { code?: unknown }).code === "ENOENT") return null;
    throw error;
  }
}

export class Journal {
  private readonly dir: string;
  private readonly fs: FileSystem;
  private fd: number | null = null;
  /** The journal's known good end: appends go here; a failed append is cut back to it. */
  private size = 0;
  /** Ordinal of the next journal record (restarts at 1 after each snapshot). */
  private nextN = 1;
  /** A failed append could not be cut back: cut it before the next one. */
  private tailDirty = false;

  constructor(dir: string, fs: FileSystem = nodeFileSystem) {
    this.dir = dir;
    this.fs = fs;
  }

  get journalPath(): string {
    return join(this.dir, JOURNAL_FILE);
  }

  get snapshotPath(): string {
    return join(this.dir, SNAPSHOT_FILE);
  }

  /**
   * Reads snapshot then journal, keeping every intact record and reporting each damaged one; cuts away an
   * incomplete last journal line; when anything else was damaged, keeps a copy of the damaged file
   * (`<file>.damaged-<k>`) and rewrites the state whole, so the next start reads clean. Opens for appending.
   */
  load(): LoadResult {
    const fs = this.fs;
    fs.mkdirSync(this.dir, { recursive: true });
    // Temp snapshots left by a crash before their rename are incomplete by definition.
    for (const name of readdirSync(this.dir)) {
      if (name === `${SNAPSHOT_FILE}.tmp` || isTempNameFor(this.snapshotPath, name)) fs.rmSync(join(this.dir, name), { force: true });
    }
    const records: JournalRecord[] = [];
    const damage: StorageDamage[] = [];
    const notices: string[] = [];
    const damagedFiles = new Set<string>();

    const snapshot = readIfExists(fs, this.snapshotPath);
    if (snapshot !== null) this.readSnapshot(snapshot, records, damage, notices, damagedFiles);

    const journal = readIfExists(fs, this.journalPath);
    let goodEnd = 0;
    let tornBytes = 0;
    let lastN = 0;
    let badSince = 0;
    let legacy = 0;
    if (journal !== null) {
      for (const line of linesOf(journal)) {
        const parsed = parseLine(line.text);
        if (parsed.kind === "bad" && !line.ended) {
          // Only the last line can lack its newline. An append is acknowledged after its newline is on disk,
          // so a crash mid-append leaves exactly this; anything else that cut the file cannot be told apart.
          tornBytes = journal.length - line.byteOffset;
          damage.push({
            file: this.journalPath,
            line: line.number,
            byteOffset: line.byteOffset,
            reason: `an incomplete last record (${String(tornBytes)} bytes) was cut away: an append interrupted by a crash, never acknowledged; if the file was cut by anything else, that record is lost`,
            lost: "unknown",
          });
          break;
        }
        goodEnd = line.byteOffset + Buffer.byteLength(line.text) + (line.ended ? 1 : 0);
        if (parsed.kind === "record") {
          // Damaged lines since the last good one account for that many ordinals already.
          if (parsed.n > lastN + 1 + badSince) {
            damage.push({ file: this.journalPath, line: line.number, byteOffset: line.byteOffset, reason: `records ${String(lastN + 1 + badSince)}–${String(parsed.n - 1)} are missing before this line`, lost: parsed.n - lastN - 1 - badSince });
            damagedFiles.add(this.journalPath);
          }
          // An ordinal at or below the last one: the journal restarted after a snapshot whose truncation never ran.
          lastN = parsed.n;
          badSince = 0;
          records.push(parsed.record);
        } else if (parsed.kind === "legacy") {
          legacy += 1;
          records.push(parsed.record);
        } else if (parsed.kind === "bad" || parsed.kind === "trailer") {
          damage.push({ file: this.journalPath, line: line.number, byteOffset: line.byteOffset, reason: parsed.kind === "bad" ? `${parsed.reason}; that record is lost` : "a snapshot trailer inside the journal", lost: parsed.kind === "bad" ? 1 : 0 });
          damagedFiles.add(this.journalPath);
          if (parsed.kind === "bad") badSince += 1;
        }
      }
    }
    if (legacy > 0) notices.push(`${this.journalPath}: ${String(legacy)} record(s) written before journal checksums were loaded unchecked; the next snapshot rewrites them with checksums`);

    let fd: number;
    try {
      fd = fs.openSync(this.journalPath, "r+");
    } catch (error) {
      if ((error as { code?: unknown }).code !== "ENOENT") throw error;
      fd = fs.openSync(this.journalPath, "w+");
    }
    this.fd = fd;
    this.size = goodEnd;
    this.nextN = lastN + 1;
    if (journal !== null && goodEnd < journal.length) {
      fs.ftruncateSync(fd, goodEnd);
      fs.fsyncSync(fd);
    }
    if (journal !== null && goodEnd > 0 && journal[goodEnd - 1] !== 0x0a) {
      // A whole record whose newline never reached the disk: keep it and restore the newline.
      this.size = appendAt(fd, goodEnd, Buffer.from("\n"), this.journalPath, true, fs).size;
    }

    // The caller rewrites what was read intact as a fresh snapshot, so the damage is not read (and
    // reported) again; the damaged bytes are kept beside it for a human.
    for (const file of damagedFiles) {
      const copy = this.keepDamagedCopy(file);
      notices.push(`${file}: a copy of the damaged file is kept as ${copy}`);
    }
    return { records, tornBytes, damage, notices, rewrite: damagedFiles.size > 0 };
  }

  private readSnapshot(bytes: Buffer, records: JournalRecord[], damage: StorageDamage[], notices: string[], damagedFiles: Set<string>): void {
    const file = this.snapshotPath;
    let intact = 0;
    let legacy = 0;
    let lastN = 0;
    let badSince = 0;
    let reported = 0;
    let lastLine = 0;
    let lastEnd = 0;
    const digest = createHash("sha256");
    let trailer: { count: number; digest: string; line: number; byteOffset: number } | null = null;
    for (const line of linesOf(bytes)) {
      lastLine = line.number;
      lastEnd = line.byteOffset + Buffer.byteLength(line.text);
      const parsed = parseLine(line.text);
      if (parsed.kind === "blank") continue;
      if (trailer !== null) {
        damage.push({ file, line: line.number, byteOffset: line.byteOffset, reason: "a line after the snapshot's trailer", lost: "unknown" });
        damagedFiles.add(file);
        continue;
      }
      if (parsed.kind === "record") {
        if (parsed.n !== lastN + 1 + badSince) {
          const missing = Math.max(0, parsed.n - lastN - 1 - badSince);
          damage.push({ file, line: line.number, byteOffset: line.byteOffset, reason: `records ${String(lastN + 1 + badSince)}–${String(parsed.n - 1)} are missing before this line`, lost: missing });
          damagedFiles.add(file);
          reported += missing;
        }
        lastN = parsed.n;
        badSince = 0;
        intact += 1;
        digest.update(parsed.sum);
        records.push(parsed.record);
      } else if (parsed.kind === "legacy") {
        legacy += 1;
        records.push(parsed.record);
      } else if (parsed.kind === "trailer") {
        trailer = { count: parsed.count, digest: parsed.digest, line: line.number, byteOffset: line.byteOffset };
      } else {
        damage.push({ file, line: line.number, byteOffset: line.byteOffset, reason: `${parsed.reason}; that record is lost`, lost: 1 });
        damagedFiles.add(file);
        badSince += 1;
        reported += 1;
      }
    }
    if (bytes.length === 0) {
      // Our snapshots always end with a trailer; an empty file was cut to nothing, or never filled.
      damage.push({ file, line: 0, byteOffset: 0, reason: "the snapshot is empty (no trailer): whether it held records cannot be known", lost: "unknown" });
      return;
    }
    if (legacy > 0 && intact === 0 && trailer === null) {
      notices.push(`${file}: written before snapshot checksums (no count, no trailer): its ${String(legacy)} record(s) were loaded unchecked; the next snapshot rewrites it with checksums`);
      return;
    }
    if (trailer === null) {
      damage.push({
        file,
        line: lastLine,
        byteOffset: lastEnd,
        reason: `the snapshot ends after ${String(intact)} intact record(s) without its trailer: it was cut short, and how many records followed cannot be known`,
        lost: "unknown",
      });
      damagedFiles.add(file);
      return;
    }
    // Records already reported (damaged lines, gaps) are not counted twice.
    const accounted = intact + reported;
    if (trailer.count !== accounted) {
      const lost = trailer.count - accounted;
      damage.push({ file, line: trailer.line, byteOffset: trailer.byteOffset, reason: `the trailer counts ${String(trailer.count)} record(s), ${String(intact)} were read intact`, lost: lost > 0 ? lost : "unknown" });
      damagedFiles.add(file);
    } else if (!damagedFiles.has(file) && digest.digest("hex").slice(0, 16) !== trailer.digest) {
      damage.push({ file, line: trailer.line, byteOffset: trailer.byteOffset, reason: "the trailer's digest does not match the records (records were replaced whole)", lost: "unknown" });
      damagedFiles.add(file);
    }
  }

  /** Copies a damaged file to `<file>.damaged-<k>` (the first free k) before it is rewritten. */
  private keepDamagedCopy(file: string): string {
    const taken = new Set(readdirSync(this.dir));
    let k = 1;
    const base = file.slice(this.dir.length + 1);
    while (taken.has(`${base}.damaged-${String(k)}`)) k += 1;
    const copy = `${file}.damaged-${String(k)}`;
    const bytes = readIfExists(this.fs, file);
    if (bytes !== null) replaceFile(copy, bytes, { fs: this.fs });
    return copy;
  }

  /** Appends records and fsyncs: when this returns they survive a crash; when it throws, none of them is on disk. */
  append(records: readonly JournalRecord[]): void {
    if (this.fd === null || records.length === 0) return;
    const fs = this.fs;
    if (this.tailDirty) {
      fs.ftruncateSync(this.fd, this.size);
      fs.fsyncSync(this.fd);
      this.tailDirty = false;
    }
    let chunk = "";
    records.forEach((record, i) => (chunk += envelope(this.nextN + i, record).line));
    try {
      this.size = appendAt(this.fd, this.size, Buffer.from(chunk, "utf8"), this.journalPath, true, fs).size;
    } catch (error) {
      if ((error as { tailDirty?: unknown }).tailDirty === true) this.tailDirty = true;
      throw error;
    }
    this.nextN += records.length;
  }

  get journalLines(): number {
    return this.nextN - 1;
  }

  /**
   * Writes the full state as a new snapshot (atomically: on failure the old one and the journal stay as
   * they were, no temp file left), then empties the journal. A crash between the two leaves journal
   * records the snapshot already holds: replay is an upsert, so no harm.
   */
  snapshot(records: Iterable<JournalRecord>): void {
    if (this.fd === null) return;
    const digest = createHash("sha256");
    let count = 0;
    function* lines(): Iterable<string> {
      for (const record of records) {
        count += 1;
        const { line, sum } = envelope(count, record);
        digest.update(sum);
        yield line;
      }
      yield `${JSON.stringify({ trailer: { count, digest: digest.digest("hex").slice(0, 16) } })}\n`;
    }
    replaceFile(this.snapshotPath, lines(), { fs: this.fs });
    this.fs.ftruncateSync(this.fd, 0);
    this.fs.fsyncSync(this.fd);
    this.size = 0;
    this.nextN = 1;
    this.tailDirty = false;
  }

  close(): void {
    if (this.fd === null) return;
    this.fs.closeSync(this.fd);
    this.fd = null;
  }
}
