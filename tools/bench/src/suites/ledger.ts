// Ledger reader speed and memory: full read (tree + blocks) against a bare readline + JSON.parse loop on
// the same file in the same run, streaming peak RSS on a 1 GB session (own child process), and an
// incremental read of a 1 MB append to the largest session.
import { spawnSync } from "node:child_process";
import { appendFileSync, copyFileSync, createReadStream, createWriteStream, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { createInterface } from "node:readline";
import { readSession, updateSession } from "@context-fold/ledger-reader";
import { freshEntryLines } from "../appends.js";
import type { BenchRow, BenchSuite } from "../types.js";

const RUNS = 5;
/** Untimed runs of both first, so the comparison is of warmed code (the cold first run is its own row). */
const WARMUP = 2;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

const round = (n: number, digits = 1): number => Number(n.toFixed(digits));

/** The baseline: every line through readline and JSON.parse, nothing else. */
async function bareParse(file: string): Promise<number> {
  let parsed = 0;
  const lines = createInterface({ input: createReadStream(file, { encoding: "utf8" }), crlfDelay: Infinity });
  for await (const line of lines) {
    if (line.length === 0) continue;
    try {
      JSON.parse(line);
      parsed += 1;
    } catch {
      // damaged lines count as read
    }
  }
  return parsed;
}

/** Wall and CPU milliseconds (CPU = user + system of this process, GC threads included). */
async function time(fn: () => Promise<unknown>): Promise<{ wall: number; cpu: number }> {
  const cpu0 = process.cpuUsage();
  const start = performance.now();
  await fn();
  const wall = performance.now() - start;
  const cpu = process.cpuUsage(cpu0);
  return { wall, cpu: (cpu.user + cpu.system) / 1000 };
}

/** Replicate `source`'s entries `copies` times with fresh ids into one big session (streamed out). */
async function replicate(source: string, target: string, copies: number): Promise<void> {
  const text = readFileSync(source, "utf8");
  const [header = "", ...body] = text.split("\n");
  const out = createWriteStream(target);
  const write = (chunk: string): Promise<void> =>
    out.write(chunk) ? Promise.resolve() : new Promise((resolve) => out.once("drain", () => resolve()));
  await write(`${header}\n`);
  let lastId: string | null = null;
  for (let copy = 0; copy < copies; copy++) {
    const rename = new Map<string, string>();
    const parts: string[] = [];
    for (const line of body) {
      if (line.length === 0) continue;
      let entry: Record<string, unknown>;
      try {
        entry = JSON.parse(line) as Record<string, unknown>;
      } catch {
        continue;
      }
      const id = `${String(entry["id"])}-c${String(copy)}`;
      rename.set(String(entry["id"]), id);
      const parent = entry["parentId"];
      entry["parentId"] = typeof parent === "string" ? (rename.get(parent) ?? lastId) : lastId;
      entry["id"] = id;
      if (typeof entry["firstKeptEntryId"] === "string") entry["firstKeptEntryId"] = rename.get(entry["firstKeptEntryId"]) ?? id;
      parts.push(JSON.stringify(entry));
      if (parts.length >= 2000) await write(`${parts.splice(0).join("\n")}\n`);
    }
    if (parts.length > 0) await write(`${parts.join("\n")}\n`);
    lastId = [...rename.values()].at(-1) ?? lastId;
  }
  await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
}

/** Stream the file in a fresh process (so its peak RSS is the iterator's alone); returns MB and ms. */
function streamInChild(file: string): { rssMb: number; ms: number; entries: number } {
  const reader = import.meta.resolve("@context-fold/ledger-reader");
  const script = `
    const { streamEntries } = await import(${JSON.stringify(reader)});
    const start = performance.now();
    let entries = 0, blocks = 0;
    for await (const item of streamEntries(${JSON.stringify(file)})) {
      if (item.kind === "entry") { entries += 1; blocks += item.blocks.length; }
    }
    const ms = performance.now() - start;
    process.stdout.write(JSON.stringify({ rssMb: process.resourceUsage().maxRSS / 1024, ms, entries }));
  `;
  const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", maxBuffer: 1 << 20 });
  if (child.status !== 0) throw new Error(`streaming child failed: ${child.stderr}`);
  return JSON.parse(child.stdout) as { rssMb: number; ms: number; entries: number };
}

export const ledgerSuite: BenchSuite = async (ctx) => {
  const rows: BenchRow[] = [];
  const sizes = ctx.sizes.filter((s) => ctx.sessions[s] !== undefined);
  for (const size of sizes) {
    const file = ctx.sessions[size];
    if (file === undefined) continue;
    const ours: { wall: number; cpu: number }[] = [];
    const bare: { wall: number; cpu: number }[] = [];
    const runs = size === "100mb" ? 3 : RUNS;
    let cold: { wall: number; cpu: number } | undefined;
    for (let i = 0; i < WARMUP; i++) {
      await bareParse(file);
      const t = await time(() => readSession(file));
      cold ??= t;
    }
    for (let i = 0; i < runs; i++) {
      // Alternate so both see the same cache and heap conditions.
      bare.push(await time(() => bareParse(file)));
      ours.push(await time(() => readSession(file)));
    }
    const mb = statSync(file).size / 1e6;
    const oursMs = median(ours.map((t) => t.wall));
    const bareMs = median(bare.map((t) => t.wall));
    const oursCpu = median(ours.map((t) => t.cpu));
    const bareCpu = median(bare.map((t) => t.cpu));
    rows.push({ suite: "ledger", case: "full read (tree + blocks)", size, value: round(oursMs), unit: "ms", note: `${round(mb / (oursMs / 1000))} MB/s; CPU ${round(oursCpu)} ms` });
    rows.push({ suite: "ledger", case: "readline + JSON.parse baseline", size, value: round(bareMs), unit: "ms", note: `CPU ${round(bareCpu)} ms` });
    if (cold !== undefined) rows.push({ suite: "ledger", case: "full read, first run in the process (cold code)", size, value: round(cold.wall), unit: "ms", note: `CPU ${round(cold.cpu)} ms; what a one-shot CLI run pays` });
    rows.push({ suite: "ledger", case: "full read / baseline (wall)", size, value: round(oursMs / bareMs, 2), unit: "ratio", target: "≤ 1.5" });
    // On a shared machine wall time swings with load; CPU time is the steadier comparison.
    rows.push({ suite: "ledger", case: "full read / baseline (CPU)", size, value: round(oursCpu / bareCpu, 2), unit: "ratio", target: "≤ 1.5" });
  }

  const largest = sizes.at(-1);
  const largestFile = largest === undefined ? undefined : ctx.sessions[largest];
  if (largest !== undefined && largestFile !== undefined) {
    // Incremental: a copy of the largest session, read once, then 1 MB appended and read incrementally.
    const copy = join(ctx.workDir, `ledger-incremental-${largest}.jsonl`);
    copyFileSync(largestFile, copy);
    const times: number[] = [];
    let session = await readSession(copy);
    for (let i = 0; i < RUNS; i++) {
      appendFileSync(copy, freshEntryLines(largestFile, { bytes: 1 << 20, tag: `inc${String(i)}`, parentId: session.leafId }));
      const started = performance.now();
      session = await updateSession(session);
      times.push(performance.now() - started);
    }
    rmSync(copy, { force: true });
    rows.push({ suite: "ledger", case: "incremental read of a 1 MB append", size: largest, value: round(median(times)), unit: "ms", note: `${String(session.entries.length)} entries after` });

    // Streaming: 1 GB when the 100 MB session is in the run (replicated with fresh ids), else the largest.
    const big = largest === "100mb" ? join(ctx.workDir, "ledger-stream-1gb.jsonl") : largestFile;
    if (big !== largestFile) await replicate(largestFile, big, 10);
    const streamed = streamInChild(big);
    const bigSize = statSync(big).size;
    if (big !== largestFile) rmSync(big, { force: true });
    const label = big === largestFile ? largest : "1gb";
    rows.push({
      suite: "ledger",
      case: "streaming iterator peak RSS (own process)",
      size: label,
      value: round(streamed.rssMb, 0),
      unit: "MB",
      target: "< 256 MB",
      note: `${round(bigSize / 1e6, 0)} MB file, ${String(streamed.entries)} entries, ${round(bigSize / 1e6 / (streamed.ms / 1000))} MB/s`,
    });
  }
  return rows;
};
