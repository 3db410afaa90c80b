// Phase files are the hand-off between phases: replaced atomically (temp file, fsync, rename) so a
// crash leaves either the old file or the new one, never a torn one; a finished phase's file exists.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { replaceFile } from "@context-fold/durable-fs";
import { GardenerStateError } from "./types.js";

/** Write `text` to `path` atomically and durably (see @context-fold/durable-fs). */
export function writeFileAtomic(path: string, text: string): void {
  replaceFile(path, text);
}

export function writeJsonAtomic(path: string, value: unknown): void {
  writeFileAtomic(path, `${JSON.stringify(value)}\n`);
}

/** Read a phase file; undefined when it does not exist (the phase has not finished). */
export function readJsonIfExists<T>(path: string, check: (value: unknown) => value is T): T | undefined {
  if (!existsSync(path)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new GardenerStateError(path, `not valid JSON (${error instanceof Error ? error.message : String(error)}); delete it to redo that phase`);
  }
  if (!check(parsed)) throw new GardenerStateError(path, "not a gardener phase file of this version; delete it to redo that phase");
  return parsed;
}

/** A phase file written by this version (`{version: 1, …}`). */
export function isVersionedObject<T>(value: unknown): value is T {
  return typeof value === "object" && value !== null && (value as { version?: unknown }).version === 1;
}

/** The file layout of one run's output directory. */
export function phasePaths(outDir: string): {
  run: string; manifest: string; shardsDir: string; shardIndex: string; judgeDir: string; actions: string;
  applyState: string; apply: string; reportJson: string; reportText: string;
} {
  return {
    run: join(outDir, "run.json"),
    manifest: join(outDir, "manifest.json"),
    shardsDir: join(outDir, "shards"),
    shardIndex: join(outDir, "shards", "index.json"),
    judgeDir: join(outDir, "judge"),
    actions: join(outDir, "actions.json"),
    applyState: join(outDir, "apply-state.json"),
    apply: join(outDir, "apply.json"),
    reportJson: join(outDir, "report.json"),
    reportText: join(outDir, "report.txt"),
  };
}

export function numbered(prefix: string, index: number): string {
  return `${prefix}-${String(index + 1).padStart(5, "0")}.json`;
}
