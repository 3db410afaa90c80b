// Session generator speed: time to write a fresh session at each requested size (s) and its throughput (MB/s).
import { rmSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { generateSession } from "@context-fold/session-gen";
import type { BenchRow, BenchSuite } from "../types.js";

const SIZE_BYTES: Readonly<Record<string, number>> = { "1mb": 1 << 20, "4mb": 4 << 20, "100mb": 100 << 20, "1gb": 1 << 30 };
const TARGETS: Readonly<Record<string, string>> = { "4mb": "a few seconds", "100mb": "well under 60 s", "1gb": "under 2 min" };

export const sessionGenSuite: BenchSuite = async (ctx) => {
  const rows: BenchRow[] = [];
  for (const size of ctx.sizes) {
    const bytes = SIZE_BYTES[size];
    if (bytes === undefined) continue;
    const file = join(ctx.workDir, `gen-${size}.jsonl`);
    const started = performance.now();
    const manifest = await generateSession(file, { seed: 11, size: bytes });
    const seconds = (performance.now() - started) / 1000;
    rmSync(file, { force: true });
    const target = TARGETS[size];
    rows.push({ suite: "session-gen", case: "generate (Pi SessionManager write)", size, value: Number(seconds.toFixed(2)), unit: "s", ...(target ? { target } : {}), note: `${manifest.entries} entries` });
    rows.push({ suite: "session-gen", case: "generate throughput", size, value: Number((manifest.bytes / 1e6 / seconds).toFixed(1)), unit: "MB/s" });
  }
  return rows;
};
