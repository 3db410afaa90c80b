// A fresh temp directory per call, removed after the test file finishes (by the setup file
// file-isolation.ts, which every test project runs: with `isolate: false` this module lives on across
// test files, so a hook registered when it was first imported would belong to the first file only).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const made: string[] = [];

export function tempDir(prefix = "context-fold-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** Removes every directory `tempDir` made so far (the end of a test file). */
export function removeTempDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}
