// Context inventory and handoff speed on generated sessions: the CLI path (read the file, select the
// context, account / extract and render) and the extension's path (blocks already in memory).
import { performance } from "node:perf_hooks";
import { buildInventory, contextBlocks, sessionInventory } from "@context-fold/extractors";
import { readSession } from "@context-fold/ledger-reader";
import { sessionHandoff } from "@context-fold/summary-formatter";
import type { BenchRow, BenchSuite } from "../types.js";

const RUNS = 15;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

const round = (n: number, digits = 1): number => Number(n.toFixed(digits));

/** Median wall and CPU milliseconds of `runs` calls of `fn`. */
async function measure(runs: number, fn: () => Promise<unknown> | unknown): Promise<{ wall: number; cpu: number }> {
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let run = 0; run < runs; run++) {
    const start = performance.now();
    const before = process.cpuUsage();
    await fn();
    wall.push(performance.now() - start);
    const used = process.cpuUsage(before);
    cpu.push((used.user + used.system) / 1000);
  }
  return { wall: round(median(wall)), cpu: round(median(cpu)) };
}

export const handoffInventorySuite: BenchSuite = async (ctx) => {
  const rows: BenchRow[] = [];
  for (const size of ctx.sizes) {
    const file = ctx.sessions[size];
    if (file === undefined) continue;
    const session = await readSession(file);
    const blocks = contextBlocks(session);
    const inv = sessionInventory(session);

    const scratch = await measure(RUNS, async () => sessionInventory(await readSession(file)));
    rows.push({ suite: "inventory", case: "from scratch: read + context + account (median)", size, value: scratch.wall, unit: "ms", note: `CPU ${String(scratch.cpu)} ms; ${String(inv.items.length)} items, ${String(inv.total.conversation)} tok` });
    const warm = await measure(RUNS * 2, () => buildInventory(blocks, session.header.cwd === undefined ? {} : { cwd: session.header.cwd }));
    rows.push({ suite: "inventory", case: "blocks in memory: account only (median)", size, value: warm.wall, unit: "ms", note: `CPU ${String(warm.cpu)} ms` });

    let bytes = 0;
    const handoff = await measure(RUNS, async () => {
      bytes = Buffer.byteLength(sessionHandoff(await readSession(file)).markdown);
    });
    rows.push({ suite: "handoff", case: "from scratch: read + facts + render (median)", size, value: handoff.wall, unit: "ms", note: `CPU ${String(handoff.cpu)} ms; ${String(bytes)} bytes of markdown` });
  }
  return rows;
};
