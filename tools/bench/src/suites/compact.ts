// Compaction speed on a generated ≈4 MB session — the CLI path (read + extract + summarize) and the
// extension's path (facts already accumulated) — plus summary size and compression on real sessions.
import { existsSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { createFactsAccumulator } from "@context-fold/extractors";
import { lineageBlocks, readSession } from "@context-fold/ledger-reader";
import { generateSession } from "@context-fold/session-gen";
import { compactSession, compactWithFacts } from "@context-fold/summary-formatter";
import type { BenchRow, BenchSuite } from "../types.js";

const SCRATCH_RUNS = 15;
const FACTS_RUNS = 40;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

const round = (n: number, digits = 1): number => Number(n.toFixed(digits));

/** ../shared/fixtures/sessions beside the repository (CONTEXT_FOLD_SHARED overrides), or null. */
function realSessionsDir(): string | null {
  const shared = process.env["CONTEXT_FOLD_SHARED"] ?? resolve(process.cwd(), "..", "shared");
  const dir = join(shared, "fixtures", "sessions");
  return existsSync(dir) ? dir : null;
}

async function measure(file: string, size: string, variant: string): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  // From scratch: what `context-fold compact` does (read the file, extract, cut, render, digest).
  const scratch: number[] = [];
  const scratchCpu: number[] = [];
  let note = "";
  for (let run = 0; run < SCRATCH_RUNS; run++) {
    const start = performance.now();
    const cpu = process.cpuUsage();
    const session = await readSession(file);
    const r = compactSession(session);
    scratch.push(performance.now() - start);
    const used = process.cpuUsage(cpu);
    scratchCpu.push((used.user + used.system) / 1000);
    note = `CPU median ${String(round(median(scratchCpu)))} ms; ${String(r.stats.summarizedMessages)} messages summarized, ${String(r.stats.summary.estimatedTokens)} tok summary, ratio ${String(r.stats.compressionRatio)}x`;
  }
  rows.push({ suite: "compact", case: `from scratch: read + extract + summarize (median)${variant}`, size, value: round(median(scratch)), unit: "ms", target: "≤ 75 ms", note });

  // The extension's path: a live accumulator already holds the facts; only snapshot + cut + render.
  const session = await readSession(file);
  const acc = createFactsAccumulator(session.header.cwd === undefined ? {} : { cwd: session.header.cwd });
  acc.add(lineageBlocks(session));
  const fromFacts: number[] = [];
  const factsCpu: number[] = [];
  for (let run = 0; run < FACTS_RUNS; run++) {
    const start = performance.now();
    const cpu = process.cpuUsage();
    compactWithFacts(session, { facts: acc.facts(), artifacts: acc.artifacts() });
    fromFacts.push(performance.now() - start);
    const used = process.cpuUsage(cpu);
    factsCpu.push((used.user + used.system) / 1000);
  }
  rows.push({
    suite: "compact",
    case: `from accumulated facts: snapshot + cut + summarize (median)${variant}`,
    size,
    value: round(median(fromFacts), 2),
    unit: "ms",
    target: "≤ 10 ms",
    note: `CPU median ${String(round(median(factsCpu), 2))} ms`,
  });
  return rows;
}

export const compactSuite: BenchSuite = async (ctx) => {
  const rows: BenchRow[] = [];
  for (const size of ctx.sizes) {
    if (size !== "4mb" && size !== "1mb") continue;
    const file = ctx.sessions[size];
    if (file === undefined) continue;
    rows.push(...(await measure(file, size, "")));
  }
  // The worst case for the window: a ≈4 MB session never compacted before (everything is summarized).
  if (ctx.sizes.includes("4mb")) {
    const fresh = join(ctx.workDir, "compact-4mb-no-compactions-seed7.jsonl");
    if (!existsSync(fresh)) await generateSession(fresh, { seed: 7, size: 4 << 20, compactions: 0 });
    rows.push(...(await measure(fresh, "4mb", ", never compacted before")));
  }

  // Size and compression on the real sessions (when ../shared is present).
  const dir = realSessionsDir();
  if (dir !== null) {
    for (const name of readdirSync(dir).filter((f) => f.endsWith(".jsonl")).sort()) {
      const session = await readSession(join(dir, name));
      let r;
      try {
        r = compactSession(session);
      } catch {
        continue; // nothing to compact in a tiny fixture
      }
      const label = name.replace(/\.jsonl$/, "");
      rows.push({
        suite: "compact",
        case: `summary size: ${label}`,
        size: "real",
        value: r.stats.summary.estimatedTokens,
        unit: "count",
        note: `tokens; ${String(r.stats.summarizedMessages)} messages → ratio ${String(r.stats.compressionRatio)}x; tokensBefore ${String(r.tokensBefore)} → after ${String(r.estimatedTokensAfter)}`,
      });
      rows.push({ suite: "compact", case: `compression ratio: ${label}`, size: "real", value: r.stats.compressionRatio, unit: "ratio" });
    }
  }
  return rows;
};
