// Summary facts + durable artifacts speed on a generated ≈4 MB session: both from scratch (one pass over
// every lineage block) and the incremental cost of one new Pi turn fed to a live facts accumulator.
import { performance } from "node:perf_hooks";
import { createFactsAccumulator } from "@context-fold/extractors";
import { lineageBlocks, readSession } from "@context-fold/ledger-reader";
import { percentile, piTurns, round } from "../measure.js";
import type { BenchRow, BenchSuite } from "../types.js";

const SCRATCH_RUNS = 15;
const INCREMENTAL_TURNS = 200;

export const extractFactsSuite: BenchSuite = async (ctx) => {
  const rows: BenchRow[] = [];
  for (const size of ctx.sizes) {
    if (size !== "4mb" && size !== "1mb") continue;
    const file = ctx.sessions[size];
    if (file === undefined) continue;
    const session = await readSession(file);
    const blocks = lineageBlocks(session);
    const messages = new Set(blocks.map((b) => b.entryId)).size;
    const options = session.header.cwd !== undefined ? { cwd: session.header.cwd } : {};
    const note = `${String(blocks.length)} blocks, ${String(messages)} messages`;

    // From scratch: one accumulator over every block, then both snapshots.
    const scratch: number[] = [];
    // CPU time beside wall time: on a loaded machine wall time measures the neighbours too.
    const scratchCpu: number[] = [];
    for (let run = 0; run < SCRATCH_RUNS; run++) {
      const cpu = process.cpuUsage();
      const start = performance.now();
      const acc = createFactsAccumulator(options);
      acc.add(blocks);
      acc.facts();
      acc.artifacts();
      scratch.push(performance.now() - start);
      const used = process.cpuUsage(cpu);
      scratchCpu.push((used.user + used.system) / 1000);
    }
    rows.push({
      suite: "extract",
      case: "facts + artifacts from scratch (median)",
      size,
      value: round(percentile(scratch, 0.5), 1),
      unit: "ms",
      target: "≤ 60 ms",
      note: `${note}; CPU time median ${String(round(percentile(scratchCpu, 0.5), 1))} ms, min ${String(round(percentile(scratchCpu, 0), 1))} ms`,
    });

    // Incremental: a live accumulator holding all but the last turns, then fed one Pi turn at a time.
    const turns = piTurns(blocks);
    const tail = Math.min(INCREMENTAL_TURNS, Math.floor(turns.length / 2));
    const acc = createFactsAccumulator(options);
    for (const turn of turns.slice(0, turns.length - tail)) acc.add(turn);
    const perTurn: number[] = [];
    const perSnapshot: number[] = [];
    for (const turn of turns.slice(turns.length - tail)) {
      const start = performance.now();
      acc.add(turn);
      perTurn.push(performance.now() - start);
      const s0 = performance.now();
      acc.facts();
      acc.artifacts();
      perSnapshot.push(performance.now() - s0);
    }
    rows.push({
      suite: "extract",
      case: "facts: one new turn, incremental add (p50)",
      size,
      value: round(percentile(perTurn, 0.5), 3),
      unit: "ms",
      target: "≤ 0.5 ms",
      note: `p95 ${String(round(percentile(perTurn, 0.95), 3))} ms over ${String(tail)} turns`,
    });
    rows.push({
      suite: "extract",
      case: "facts + artifacts snapshot after a turn (p50)",
      size,
      value: round(percentile(perSnapshot, 0.5), 3),
      unit: "ms",
      note: `p95 ${String(round(percentile(perSnapshot, 0.95), 3))} ms`,
    });
  }
  return rows;
};
