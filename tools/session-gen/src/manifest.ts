// The generator's options and its ground-truth manifest (what a generated session is known to contain).
import { writeFile } from "node:fs/promises";

export interface DamageOptions {
  /** Number of torn lines: two entries glued on one line (`…}{"type":…`). */
  tornLines?: number;
  /** Cut the last line in half (no trailing newline). */
  truncatedTail?: boolean;
  /** Number of malformed (unparseable) lines inserted between entries. */
  malformedLines?: number;
}

export interface GenerateOptions {
  seed: number;
  turns?: number;
  /** Target size in bytes. */
  size?: number;
  /** Default "/home/dev/project". */
  cwd?: string;
  /** Default true. */
  branches?: boolean;
  /** Default: 1 per ~400 KB, at least 1 when turns >= 30. */
  compactions?: number;
  /** Default true. */
  contextEdits?: boolean;
  /** Default true. */
  unknownEntries?: boolean;
  damage?: DamageOptions;
  /** ISO time of the header; default "2026-03-01T09:00:00.000Z". */
  startTime?: string;
  /**
   * When `size` exceeds `thresholdBytes` (default 160 MiB), Pi writes a base of `baseBytes` (default
   * 48 MiB) and plain turns of it are replicated up to `size`. Lower both to exercise the path cheaply.
   */
  replication?: { thresholdBytes: number; baseBytes: number };
}

export interface Needle {
  kind: "identifier" | "hex" | "error-line" | "decision";
  value: string;
  /** `r:<toolCallId>` for a toolResult; absent for user text (not anchorable). */
  anchor?: string;
  /** 1-based count of user messages on the path from the root to the needle's entry (contract-decisions.md). */
  turn: number;
  entryId: string;
  where: "tool-output" | "user-text";
  onLineage: boolean;
}

/** Where the damage post-step broke the file (1-based line numbers in the damaged file). */
export interface DamageReport {
  tornLines: number[];
  malformedLines: number[];
  truncatedTail: boolean;
  /** Entries Pi can no longer read (both halves of a torn line, a truncated last line). */
  lostEntryIds: string[];
}

export interface Manifest {
  seed: number;
  sessionId: string;
  file: string;
  bytes: number;
  /** Entries (lines after the header) in the undamaged file. */
  entries: number;
  foundingRequest: string;
  corrections: string[];
  preferences: string[];
  modifiedFiles: string[];
  createdFiles: string[];
  /** `turn` as for needles. */
  commits: { hash: string; subject: string; turn: number }[];
  errorsOpenAtEnd: string[];
  errorsFixed: string[];
  needles: Needle[];
  abandonedBranchFacts: string[];
  compactions: { entryId: string; firstKeptEntryId: string }[];
  branchPoints: string[];
  leafId: string;
  /** Present when damage was applied. */
  damage?: DamageReport;
  /** Present when the session was grown by replicating plain turns (sizes above the base limit). */
  replication?: { baseEntries: number; baseBytes: number; replicatedEntries: number };
}

export async function writeManifest(path: string, manifest: Manifest): Promise<void> {
  await writeFile(path, `${JSON.stringify(manifest, null, 2)}\n`);
}
