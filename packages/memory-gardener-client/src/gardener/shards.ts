// Phase 2: each shard fetches its memories fully by id and writes its candidate clusters to a file.
// Shards run in parallel with bounded concurrency; a finished shard's file is reused on resume.
import { HindsightError, type HindsightApi, type Memory } from "../client/types.js";
import { mapBounded } from "./bounded-pool.js";
import { findClusters } from "./clustering.js";
import { isVersionedObject, numbered, phasePaths, readJsonIfExists, writeJsonAtomic } from "./phase-files.js";
import { join } from "node:path";
import { GardenerStateError, type ManifestFile, type ShardAck, type ShardFile } from "./types.js";

export interface ShardOptions {
  readonly bankId: string;
  readonly outDir: string;
  readonly now: string;
  /** Shards in flight (default 4); each shard keeps up to 4 GETs in flight. */
  readonly concurrency?: number;
  readonly onShard?: (done: { shard: number; clusters: number }) => void;
}

interface ShardIndexFile {
  readonly version: 1;
  readonly shardCount: number;
  readonly clusters: number;
  readonly files: readonly string[];
}

export function readManifest(outDir: string): ManifestFile {
  const path = phasePaths(outDir).manifest;
  const manifest = readJsonIfExists(path, isVersionedObject<ManifestFile>);
  if (manifest === undefined) throw new GardenerStateError(path, "missing: run the manifest phase first");
  return manifest;
}

async function fetchMemory(api: HindsightApi, bankId: string, id: string): Promise<Memory | undefined> {
  try {
    return await api.getMemory(bankId, id);
  } catch (error) {
    // Gone (or never a valid id) since the manifest was taken: nothing to garden.
    if (error instanceof HindsightError && (error.status === 404 || error.status === 400)) return undefined;
    throw error;
  }
}

/** Phase 2. Writes `<outDir>/shards/shard-NNNNN.json` per shard and `shards/index.json`; returns a tiny ack. */
export async function runShardPhase(api: HindsightApi, options: ShardOptions): Promise<ShardAck> {
  const paths = phasePaths(options.outDir);
  const manifest = readManifest(options.outDir);
  const blockOf = new Map<string, string>();
  for (const e of manifest.entries) blockOf.set(e.id, e.block);
  const files = manifest.shards.map((_, i) => join(paths.shardsDir, numbered("shard", i)));
  const counts = await mapBounded(manifest.shards, options.concurrency ?? 4, async (ids, shard) => {
    const file = files[shard] ?? "";
    const done = readJsonIfExists(file, isVersionedObject<ShardFile>);
    if (done !== undefined) return done.clusters.length;
    const fetched = await mapBounded(ids, 4, (id) => fetchMemory(api, options.bankId, id));
    const memories: Memory[] = [];
    const missing: string[] = [];
    fetched.forEach((m, i) => {
      if (m === undefined) missing.push(ids[i] ?? "");
      else memories.push(m);
    });
    const clusters = findClusters(memories, options.now, (m) => blockOf.get(m.id) ?? `~${m.id}`);
    const out: ShardFile = { version: 1, shard, fetched: memories.length, missing, clusters };
    writeJsonAtomic(file, out);
    options.onShard?.({ shard, clusters: clusters.length });
    return clusters.length;
  });
  const clusters = counts.reduce((a, b) => a + b, 0);
  const index: ShardIndexFile = { version: 1, shardCount: files.length, clusters, files: files.map((f) => f.slice(paths.shardsDir.length + 1)) };
  writeJsonAtomic(paths.shardIndex, index);
  return { ok: true, path: paths.shardIndex, shardCount: files.length, clusters };
}

/** Every shard's clusters, in shard order (for the judge). */
export function readShardFiles(outDir: string): ShardFile[] {
  const paths = phasePaths(outDir);
  const index = readJsonIfExists(paths.shardIndex, isVersionedObject<ShardIndexFile>);
  if (index === undefined) throw new GardenerStateError(paths.shardIndex, "missing: run the shard phase first");
  return index.files.map((name) => {
    const file = join(paths.shardsDir, name);
    const shard = readJsonIfExists(file, isVersionedObject<ShardFile>);
    if (shard === undefined) throw new GardenerStateError(file, "missing shard file listed in the shard index");
    return shard;
  });
}

export function shardIndexExists(outDir: string): boolean {
  return readJsonIfExists(phasePaths(outDir).shardIndex, isVersionedObject<ShardIndexFile>) !== undefined;
}
