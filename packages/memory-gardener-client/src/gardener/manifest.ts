// Phase 1: list ids and light metadata (never bodies), skip invalidated memories and observations,
// assign each a blocking key and pack blocks into shards; the manifest file is the hand-off.
import type { HindsightApi, Memory } from "../client/types.js";
import { memoryDate } from "./clustering.js";
import { phasePaths, writeJsonAtomic } from "./phase-files.js";
import { analyzeText } from "./text-analysis.js";
import { GardenerOptionsError, type ManifestAck, type ManifestEntry, type ManifestFile, type SamplingMode } from "./types.js";

export const PREVIEW_CHARS = 120;
export const DEFAULT_SHARD_SIZE = 200;

export interface ManifestOptions {
  readonly bankId: string;
  readonly outDir: string;
  readonly mode: SamplingMode;
  readonly probes?: readonly string[];
  /** Inclusive window on the memory date (ISO; a date-only `to` covers that whole day). */
  readonly from?: string;
  readonly to?: string;
  readonly shardSize?: number;
  /** Stop after this many kept memories (newest first in `recent`). */
  readonly limit?: number;
}

function parseBound(option: "from" | "to", value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new GardenerOptionsError(option, `"${value}" is not an ISO-8601 date`);
  // A date-only upper bound means the end of that day, so the window stays inclusive.
  return option === "to" && /^\d{4}-\d{2}-\d{2}$/.test(value) ? ms + 86_399_999 : ms;
}

export function validateSampling(options: Pick<ManifestOptions, "mode" | "probes" | "from" | "to" | "shardSize">): void {
  if (options.mode === "probe" && (options.probes === undefined || options.probes.filter((p) => p.trim() !== "").length === 0)) {
    throw new GardenerOptionsError("probes", "mode 'probe' needs at least one probe query (--probe <q>)");
  }
  if (options.mode === "window" && options.from === undefined && options.to === undefined) {
    throw new GardenerOptionsError("from", "mode 'window' needs --from and/or --to");
  }
  const from = parseBound("from", options.from);
  const to = parseBound("to", options.to);
  if (from !== undefined && to !== undefined && from > to) throw new GardenerOptionsError("from", "the window starts after it ends");
  if (options.shardSize !== undefined && (!Number.isInteger(options.shardSize) || options.shardSize < 2)) {
    throw new GardenerOptionsError("shardSize", "must be an integer ≥ 2");
  }
}

async function* sample(api: HindsightApi, options: ManifestOptions): AsyncIterable<Memory> {
  if (options.mode === "probe") {
    for (const query of options.probes ?? []) {
      if (query.trim() === "") continue;
      const hits = await api.recall(options.bankId, { query, types: ["world", "experience"], budget: "mid" });
      for (const hit of hits) yield hit.memory;
    }
    return;
  }
  yield* api.listAll(options.bankId, { state: "valid" });
}

export interface BlockAssignment {
  /** Memories that may cluster share a block. */
  readonly block: string;
  /** The memory's subject tokens joined: keeps similar memories adjacent inside a block. */
  readonly subjectKey: string;
}

/**
 * Blocking keys: the memory's most frequent shared entity (its subject, e.g. "billing-service"), else
 * its rarest subject token shared with another memory; memories with neither get a singleton block.
 */
export function assignBlocks(items: readonly { readonly id: string; readonly text: string; readonly entities: readonly string[] }[]): BlockAssignment[] {
  const entityDf = new Map<string, number>();
  const tokenDf = new Map<string, number>();
  const analyzed = items.map((item) => {
    const entities = [...new Set(item.entities.map((e) => e.trim().toLowerCase()).filter((e) => e !== ""))];
    const tokens = analyzeText(item.text).subject;
    for (const e of entities) entityDf.set(e, (entityDf.get(e) ?? 0) + 1);
    for (const t of tokens) tokenDf.set(t, (tokenDf.get(t) ?? 0) + 1);
    return { entities, tokens };
  });
  return analyzed.map(({ entities, tokens }, index) => ({ block: blockFor(entities, tokens, index), subjectKey: tokens.join(" ") }));

  function blockFor(entities: readonly string[], tokens: readonly string[], index: number): string {
    let best: { key: string; df: number } | undefined;
    for (const e of entities) {
      const df = entityDf.get(e) ?? 0;
      if (df < 2) continue;
      if (best === undefined || df > best.df || (df === best.df && e < best.key)) best = { key: e, df };
    }
    if (best !== undefined) return `e:${best.key}`;
    let rare: { key: string; df: number } | undefined;
    for (const t of tokens) {
      const df = tokenDf.get(t) ?? 0;
      if (df < 2) continue;
      if (rare === undefined || df < rare.df || (df === rare.df && t < rare.key)) rare = { key: t, df };
    }
    return rare === undefined ? `~${items[index]?.id ?? index}` : `t:${rare.key}`;
  }
}

/** Pack blocks into shards of at most `shardSize`; a block never straddles shards unless it alone exceeds the size. */
export function packShards(entries: readonly { readonly id: string; readonly block: string; readonly subjectKey: string }[], shardSize: number): string[][] {
  const byBlock = new Map<string, { readonly id: string; readonly block: string; readonly subjectKey: string }[]>();
  for (const e of entries) {
    const list = byBlock.get(e.block);
    if (list === undefined) byBlock.set(e.block, [e]);
    else list.push(e);
  }
  const shards: string[][] = [];
  let current: string[] = [];
  for (const block of [...byBlock.keys()].sort()) {
    const members = (byBlock.get(block) ?? []).map((e) => ({ id: e.id, key: e.subjectKey }));
    // Similar subjects stay adjacent, so a split of a huge block cuts between subjects.
    members.sort((x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
    if (current.length > 0 && current.length + members.length > shardSize) {
      shards.push(current);
      current = [];
    }
    for (const m of members) {
      current.push(m.id);
      if (current.length >= shardSize) {
        shards.push(current);
        current = [];
      }
    }
  }
  if (current.length > 0) shards.push(current);
  return shards;
}

/** Phase 1. Writes `<outDir>/manifest.json`; returns a tiny ack. */
export async function runManifestPhase(api: HindsightApi, options: ManifestOptions): Promise<ManifestAck> {
  validateSampling(options);
  const from = parseBound("from", options.from);
  const to = parseBound("to", options.to);
  const seen = new Set<string>();
  const kept: { id: string; text: string; entities: readonly string[]; date: string | null; factType: Memory["factType"] }[] = [];
  const skipped = { invalidated: 0, observation: 0, outOfWindow: 0, duplicateIds: 0 };
  for await (const memory of sample(api, options)) {
    if (seen.has(memory.id)) {
      skipped.duplicateIds++;
      continue;
    }
    seen.add(memory.id);
    if (memory.state === "invalidated") {
      skipped.invalidated++;
      continue;
    }
    if (memory.factType === "observation") {
      skipped.observation++;
      continue;
    }
    const date = memoryDate(memory);
    if (options.mode === "window") {
      const at = date === null ? Number.NaN : Date.parse(date);
      if (Number.isNaN(at) || (from !== undefined && at < from) || (to !== undefined && at > to)) {
        skipped.outOfWindow++;
        continue;
      }
    }
    kept.push({ id: memory.id, text: memory.text, entities: memory.entities, date, factType: memory.factType });
    if (options.limit !== undefined && kept.length >= options.limit) break;
  }
  const blocks = assignBlocks(kept);
  const entries: ManifestEntry[] = kept.map((k, i) => ({
    id: k.id,
    date: k.date,
    factType: k.factType,
    preview: k.text.length > PREVIEW_CHARS ? `${k.text.slice(0, PREVIEW_CHARS)}…` : k.text,
    block: blocks[i]?.block ?? `~${k.id}`,
  }));
  const shards = packShards(entries.map((e, i) => ({ id: e.id, block: e.block, subjectKey: blocks[i]?.subjectKey ?? "" })), options.shardSize ?? DEFAULT_SHARD_SIZE);
  const file: ManifestFile = {
    version: 1, bankId: options.bankId, mode: options.mode, total: seen.size, fetched: entries.length, skipped, shards, entries,
  };
  const path = phasePaths(options.outDir).manifest;
  writeJsonAtomic(path, file);
  return { ok: true, path, total: file.total, fetched: file.fetched, shardCount: shards.length };
}
