// Bench: list 100,000 memories through HindsightClient (pages of 1,000) from the local bank. The bank
// and the lister each run in their own child process, so each one's peak RSS is its own.
import { HindsightClient } from "@context-fold/memory-gardener-client";
import { runChild } from "../child.js";
import type { BenchRow, BenchSuite } from "../types.js";

const MEMORIES = 100_000;
const PAGE = 1_000;
const SEED_BATCH = 5_000;

// Runs in the bank's process: start the bank, print its URL, serve until SIGTERM.
const SERVER_SCRIPT = `
const { startLocalBank } = await import(process.env.HINDSIGHT_LOCAL_MODULE);
const bank = await startLocalBank({ port: 0 });
process.stdout.write(JSON.stringify({ url: bank.url }) + "\\n");
process.on("SIGTERM", () => { bank.close().then(() => process.exit(0)); });
`;

// Runs in the lister's process: walk every page through the client, report time, count and peak RSS.
const CLIENT_SCRIPT = `
const { HindsightClient } = await import(process.env.GARDENER_CLIENT_MODULE);
const client = new HindsightClient({ baseUrl: process.env.BANK_URL, timeoutMs: 120000 });
const started = performance.now();
const ids = new Set();
let count = 0;
for await (const memory of client.listAll("bench", { limit: Number(process.env.PAGE) })) { ids.add(memory.id); count += 1; }
const ms = performance.now() - started;
process.stdout.write(JSON.stringify({ ms, count, unique: ids.size, maxRssBytes: process.resourceUsage().maxRSS * 1024 }) + "\\n");
`;


export const hindsightSuite: BenchSuite = async () => {
  const server = await runChild(SERVER_SCRIPT, { HINDSIGHT_LOCAL_MODULE: import.meta.resolve("@context-fold/hindsight-local") }, true);
  try {
    const { url } = JSON.parse(server.first) as { url: string };
    const seeder = new HindsightClient({ baseUrl: url, timeoutMs: 120_000 });
    const base = Date.UTC(2025, 0, 1);
    for (let start = 0; start < MEMORIES; start += SEED_BATCH) {
      const items = Array.from({ length: Math.min(SEED_BATCH, MEMORIES - start) }, (_, i) => ({
        content: `bench memory ${start + i}: the deploy host for service ${(start + i) % 97} is node-${(start + i) % 13}`,
        timestamp: new Date(base + (start + i) * 1000).toISOString(),
        entities: [{ text: `service-${(start + i) % 97}` }],
        tags: ["bench"],
      }));
      await seeder.retain("bench", items);
    }
    const lister = await runChild(CLIENT_SCRIPT, { GARDENER_CLIENT_MODULE: import.meta.resolve("@context-fold/memory-gardener-client"), BANK_URL: url, PAGE: String(PAGE) }, false);
    await lister.stop();
    const listed = JSON.parse(lister.first) as { ms: number; count: number; unique: number; maxRssBytes: number };
    if (listed.count !== MEMORIES || listed.unique !== MEMORIES) throw new Error(`listed ${listed.count} (${listed.unique} unique), expected ${MEMORIES}`);
    const stats = (await (await fetch(`${url}/_local/stats`)).json()) as { maxRssBytes: number };
    const size = "100k memories";
    const mb = (bytes: number): number => Math.round((bytes / (1024 * 1024)) * 10) / 10;
    const rows: BenchRow[] = [
      { suite: "hindsight", case: `listAll through client (pages of ${PAGE})`, size, value: Math.round(listed.ms), unit: "ms" },
      { suite: "hindsight", case: "listAll throughput", size, value: Math.round(MEMORIES / (listed.ms / 1000)), unit: "records/s" },
      { suite: "hindsight", case: "client process peak RSS", size, value: mb(listed.maxRssBytes), unit: "MB", note: "lister child process only" },
      { suite: "hindsight", case: "local bank process peak RSS", size, value: mb(stats.maxRssBytes), unit: "MB", note: "includes seeding 100k memories (in memory)" },
    ];
    return rows;
  } finally {
    await server.stop();
  }
};
