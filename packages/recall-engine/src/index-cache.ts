// The on-disk recall index: keyed to the ledger bytes it was built from (header id, length, sha256 of
// the first and last 64 KiB), so a changed, truncated or foreign ledger is detected; replaced atomically.
import { createHash } from "node:crypto";
import { closeSync, openSync, readFileSync, readSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { seedIndexPath } from "@context-fold/seed-index-format/paths";
import type { RecallSession } from "./recall-index.js";
import { INDEX_FORMAT } from "./term-codec.js";

const EDGE = 64 * 1024;
/** The index format the cache key pins (its one home is term-codec.ts). */
export const CACHE_FORMAT = INDEX_FORMAT;

export interface CacheKey {
  readonly format: number;
  readonly sessionId: string;
  readonly byteLength: number;
  /** sha256 of bytes [0, min(64 KiB, byteLength)). */
  readonly head: string;
  /** sha256 of bytes [max(0, byteLength - 64 KiB), byteLength). */
  readonly tail: string;
  readonly blockCount: number;
  readonly lastEntryId: string | null;
}

/** The sha256 of bytes [start, end) of `fd` (fewer when the file ends first), read into `buf` (at least end - start bytes). */
function hashRange(fd: number, buf: Buffer, start: number, end: number): string {
  const want = Math.max(0, end - start);
  let got = 0;
  while (got < want) {
    const n = readSync(fd, buf, got, want - got, start + got);
    if (n === 0) break;
    got += n;
  }
  return createHash("sha256").update(buf.subarray(0, got)).digest("hex");
}

/** Hashes of the file's first/last 64 KiB as they are for a ledger of `byteLength` bytes. */
export function ledgerEdges(file: string, byteLength: number): { head: string; tail: string } {
  const fd = openSync(file, "r");
  try {
    // One buffer for both edges, not filled with zeros first (each byte hashed is one read): every
    // recall of a session file takes these two hashes, a one-shot search among the first things it does.
    const buf = Buffer.allocUnsafeSlow(Math.min(EDGE, byteLength));
    return { head: hashRange(fd, buf, 0, Math.min(EDGE, byteLength)), tail: hashRange(fd, buf, Math.max(0, byteLength - EDGE), byteLength) };
  } finally {
    closeSync(fd);
  }
}

export function cacheKeyFor(file: string, session: RecallSession): CacheKey {
  const last = session.blocks[session.blocks.length - 1];
  return cacheKeyOf(file, { sessionId: session.header.id, byteLength: session.byteLength, blockCount: session.blocks.length, lastEntryId: last?.entryId ?? null });
}

/** The key of a ledger read as `read` says (a streamed build has no session to hand `cacheKeyFor`). */
export function cacheKeyOf(file: string, read: { readonly sessionId: string; readonly byteLength: number; readonly blockCount: number; readonly lastEntryId: string | null }): CacheKey {
  const { head, tail } = ledgerEdges(file, read.byteLength);
  return { format: CACHE_FORMAT, sessionId: read.sessionId, byteLength: read.byteLength, head, tail, blockCount: read.blockCount, lastEntryId: read.lastEntryId };
}

export function isCacheKey(value: unknown): value is CacheKey {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    v["format"] === CACHE_FORMAT &&
    typeof v["sessionId"] === "string" &&
    typeof v["byteLength"] === "number" &&
    typeof v["head"] === "string" &&
    typeof v["tail"] === "string" &&
    typeof v["blockCount"] === "number" &&
    (typeof v["lastEntryId"] === "string" || v["lastEntryId"] === null)
  );
}

/** The hashes `ledgerEdges` gives for a ledger of `byteLength` bytes, as a caller already computed them. */
export interface KnownEdges {
  readonly byteLength: number;
  readonly head: string;
  readonly tail: string;
}

/**
 * How a cache relates to the ledger now: same bytes, a prefix of them (appended since), or stale.
 * `known`: the ledger's edges as just hashed by the caller (the block table's check), used when they are
 * for the cache's length instead of hashing the same bytes again.
 */
export function compareKey(cached: CacheKey, file: string, session: RecallSession, known?: KnownEdges): "same" | "prefix" | { stale: string } {
  if (cached.sessionId !== session.header.id) return { stale: `built for session ${cached.sessionId}, the ledger is ${session.header.id}` };
  if (cached.byteLength > session.byteLength) return { stale: `built over ${String(cached.byteLength)} bytes, the ledger now has ${String(session.byteLength)} (truncated)` };
  if (cached.blockCount > session.blocks.length) return { stale: "the ledger has fewer blocks than the cache" };
  const edges = known?.byteLength === cached.byteLength ? known : ledgerEdges(file, cached.byteLength);
  if (edges.head !== cached.head || edges.tail !== cached.tail) return { stale: "the ledger bytes it was built from changed (replaced or rewritten)" };
  if (cached.blockCount > 0 && session.blocks[cached.blockCount - 1]?.entryId !== cached.lastEntryId) return { stale: "block numbering moved" };
  return cached.byteLength === session.byteLength && cached.blockCount === session.blocks.length ? "same" : "prefix";
}

/** Beside the seed index (`…/context-fold/<id>/recall-index.bin`), or `<cacheDir>/<id>-<path hash>.recall`. */
export function defaultCachePath(sessionFile: string, sessionId: string, cacheDir?: string): string {
  if (cacheDir === undefined) return join(dirname(seedIndexPath(sessionFile, sessionId)), "recall-index.bin");
  const tag = createHash("sha256").update(resolve(sessionFile)).digest("hex").slice(0, 12);
  const safeId = sessionId.replace(/[^A-Za-z0-9_.-]/g, "_");
  return join(cacheDir, `${safeId}-${tag}.recall`);
}

export function readCacheBytes(path: string): Buffer | null {
  try {
    return readFileSync(path);
  } catch {
    return null;
  }
}
