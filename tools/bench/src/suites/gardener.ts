// Bench: the gardener's manifest + shards + judge over 100,000 generated memories on the local bank.
// The bank and the gardener each run in their own child process, so the gardener's peak RSS is its own.
import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { HindsightClient, generateExampleBank } from "@context-fold/memory-gardener-client";
import { runChild } from "../child.js";
import type { BenchRow, BenchSuite } from "../types.js";

const MEMORIES = 100_000;
const SEED_BATCH = 5_000;
const NOW = "2026-11-20T12:00:00.000Z";

const SERVER_SCRIPT = `
const { startLocalBank } = await import(process.env.HINDSIGHT_LOCAL_MODULE);
const bank = await startLocalBank({ port: 0 });
process.stdout.write(JSON.stringify({ url: bank.url }) + "\\n");
process.on("SIGTERM", () => { bank.close().then(() => process.exit(0)); });
`;

// Runs in the gardener's process: phases 1–3 through the real client, timed one by one.
const GARDENER_SCRIPT = `
const g = await import(process.env.GARDENER_CLIENT_MODULE);
const api = new g.HindsightClient({ baseUrl: process.env.BANK_URL, timeoutMs: 120000 });
const opts = { bankId: "bench", outDir: process.env.OUT_DIR, now: process.env.NOW };
const t0 = performance.now();
const manifest = await g.runManifestPhase(api, { ...opts, mode: "recent" });
const t1 = performance.now();
const shards = await g.runShardPhase(api, { ...opts, concurrency: 8 });
const t2 = performance.now();
const judged = await g.runJudgePhase({ outDir: opts.outDir, now: opts.now });
const t3 = performance.now();
process.stdout.write(JSON.stringify({
  manifestMs: t1 - t0, shardsMs: t2 - t1, judgeMs: t3 - t2, totalMs: t3 - t0,
  fetched: manifest.fetched, shardCount: manifest.shardCount, clusters: shards.clusters, actions: judged.actions,
  cpuMs: (process.cpuUsage().user + process.cpuUsage().system) / 1000,
  maxRssBytes: process.resourceUsage().maxRSS * 1024,
}) + "\\n");
`;


interface GardenerFigures {
  readonly manifestMs: number;
  readonly shardsMs: number;
  readonly judgeMs: number;
  readonly totalMs: number;
  readonly fetched: number;
  readonly shardCount: number;
  readonly clusters: number;
  readonly actions: number;
  readonly cpuMs: number;
  readonly maxRssBytes: number;
}

export const gardenerSuite: BenchSuite = async (ctx) => {
  const server = await runChild(SERVER_SCRIPT, { HINDSIGHT_LOCAL_MODULE: import.meta.resolve("@context-fold/hindsight-local") }, true);
  const outDir = mkdtempSync(join(ctx.workDir, "garden-"));
  try {
    const { url } = JSON.parse(server.first) as { url: string };
    const seeder = new HindsightClient({ baseUrl: url, timeoutMs: 120_000 });
    const bank = generateExampleBank(2026, MEMORIES, NOW);
    await seeder.createBank("bench", { name: "bench" });
    for (let i = 0; i < bank.items.length; i += SEED_BATCH) await seeder.retain("bench", bank.items.slice(i, i + SEED_BATCH));
    const gardener = await runChild(GARDENER_SCRIPT, {
      GARDENER_CLIENT_MODULE: import.meta.resolve("@context-fold/memory-gardener-client"),
      BANK_URL: url,
      OUT_DIR: outDir,
      NOW,
    }, false);
    await gardener.stop();
    const f = JSON.parse(gardener.first) as GardenerFigures;
    const size = `${Math.round(bank.items.length / 1000)}k memories`;
    const note = `${f.fetched} gardened, ${f.shardCount} shards, ${f.clusters} clusters, ${f.actions} actions`;
    const rows: BenchRow[] = [
      { suite: "gardener", case: "manifest (list + block + shard)", size, value: Math.round(f.manifestMs), unit: "ms" },
      { suite: "gardener", case: "shards (GET by id + cluster)", size, value: Math.round(f.shardsMs), unit: "ms" },
      { suite: "gardener", case: "judge (default, ≤4 batches in parallel)", size, value: Math.round(f.judgeMs), unit: "ms" },
      { suite: "gardener", case: "manifest + shards + judge wall", size, value: Number((f.totalMs / 1000).toFixed(2)), unit: "s", note },
      { suite: "gardener", case: "gardener CPU (user + sys), phases 1–3", size, value: Number((f.cpuMs / 1000).toFixed(2)), unit: "s", note: "wall time includes waiting on the bank's 100k GETs" },
      { suite: "gardener", case: "gardener peak RSS", size, value: Math.round(f.maxRssBytes / (1 << 20)), unit: "MB", note: "bank runs in its own process" },
    ];
    return rows;
  } finally {
    await server.stop();
    rmSync(outDir, { recursive: true, force: true });
  }
};
