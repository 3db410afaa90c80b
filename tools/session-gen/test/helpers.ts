// Test helpers: read a generated file line by line, and open a temp copy in Pi's SessionManager.
import { copyFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { SessionManager } from "@earendil-works/pi-coding-agent";
import { tempDir } from "@context-fold/test-support";

export interface RawEntry {
  type: string;
  id: string;
  parentId: string | null;
  [key: string]: unknown;
}

export function readEntries(file: string): RawEntry[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .slice(1)
    .map((l) => JSON.parse(l) as RawEntry);
}

/** Pi rewrites some files it opens, so it only ever sees a copy. */
export function openInPi(file: string): SessionManager {
  const dir = tempDir("session-gen-pi-");
  const copy = join(dir, "copy.jsonl");
  copyFileSync(file, copy);
  return SessionManager.open(copy, dir);
}

/** All text an entry carries (message parts, outputs, summaries), for "does this value live here". */
export function entryText(entry: RawEntry): string {
  return JSON.stringify(entry);
}
