// Where one session's segment lives in a history: its parts (`<base>.seg`, `<base>.seg.1` …) and its block
// table (`<base>.tab`), and how they are removed. One home for the naming, shared by indexing and search.
import { rmSync } from "node:fs";
import { sep } from "node:path";
import { type FileSystem, nodeFileSystem, replaceFile, syncDirectory } from "@context-fold/durable-fs";
import { defaultCachePath } from "./index-cache.js";

/** A grown session's segment takes at most this many parts (its first included); the growth past them rewrites it whole. */
export const MAX_PARTS = 8;

/** Where a session's segment files live under `segments`: `<base>.seg` (postings) and `<base>.tab` (block table). */
export function segmentBase(segments: string, file: string, id: string): string {
  return defaultCachePath(file, id, segments).replace(/\.recall$/, "");
}

/** The tag `segmentBase` names a session's files by after its id (a hash of the file's path, index-cache.ts `defaultCachePath`). */
export function segmentTag(segments: string, file: string, id: string): string {
  const base = segmentBase(segments, file, id);
  return base.slice(base.lastIndexOf("-") + 1);
}

/**
 * `segmentBase` from the tag the manifest keeps (`segmentTag`), without hashing the file's path again: a
 * search opening hundreds of sessions in a fresh process spent more on those hashes than on opening them.
 * `segments` is a normalised path; the id is made safe as defaultCachePath makes it.
 */
export function segmentBaseOf(segments: string, id: string, tag: string): string {
  return `${segments}${segments.endsWith(sep) ? "" : sep}${id.replace(/[^A-Za-z0-9_.-]/g, "_")}-${tag}`;
}

/** The file of a segment's part `k` (0: the first; later ones hold a grown session's appended blocks). */
export function partPath(base: string, k: number): string {
  return k === 0 ? `${base}.seg` : `${base}.seg.${String(k)}`;
}

/** Removes a session's segment: its parts and its block table. */
export function dropSegment(segments: string, file: string, id: string): void {
  const base = segmentBase(segments, file, id);
  dropParts(base, 1);
  for (const p of [`${base}.seg`, `${base}.tab`]) rmSync(p, { force: true });
}

/** Removes a segment's parts from `k` on (left by a growth a whole rewrite replaced). */
export function dropParts(base: string, k: number): void {
  for (let p = k; p < MAX_PARTS; p++) rmSync(partPath(base, p), { force: true });
}

/**
 * How segment files are written: each replaced atomically and fsynced on its own (`deferred` null), or,
 * while a first build writes files nothing names until its manifest (a crash before it starts the
 * history over), replaced atomically but left to `commit`, which fsyncs them all at once before that manifest.
 */
export class SegmentWriter {
  private readonly deferred: Set<string> | null;

  constructor(
    private readonly segments: string,
    defer: boolean,
    private readonly fs: FileSystem = nodeFileSystem,
  ) {
    this.deferred = defer ? new Set() : null;
  }

  write(path: string, bytes: Uint8Array): void {
    if (this.deferred === null) {
      replaceFile(path, bytes, { mode: 0o600, fs: this.fs });
      return;
    }
    replaceFile(path, bytes, { mode: 0o600, fsync: false, fs: this.fs });
    this.deferred.add(path);
  }

  /** Makes every deferred file durable, and the segments' folder (their names): what the manifest written next names. */
  commit(): void {
    if (this.deferred === null || this.deferred.size === 0) return;
    for (const path of this.deferred) {
      let fd: number;
      try {
        fd = this.fs.openSync(path, "r");
      } catch (error) {
        // Dropped since (a session rewritten, or not served from a segment after all): nothing to keep.
        if ((error as NodeJS.ErrnoException).code === "ENOENT") continue;
        throw error;
      }
      try {
        this.fs.fsyncSync(fd);
      } finally {
        this.fs.closeSync(fd);
      }
    }
    syncDirectory(this.segments, this.fs);
    this.deferred.clear();
  }
}
