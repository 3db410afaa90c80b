// Seed-index throughput: read + validate a generated 100,000-record file (records/s), validate in memory,
// and append through the writer. Records are deterministic and shaped like real fold records.
import { createWriteStream } from "node:fs";
import { stat } from "node:fs/promises";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import {
  appendRecord,
  blockLog,
  codeFor,
  type FoldIndexRecord,
  HARNESS,
  partAnchor,
  readSeedIndex,
  resultAnchor,
  sha256Hex,
  validateRecord,
} from "@context-fold/seed-index-format";
import type { BenchRow, BenchSuite } from "../types.js";

const RECORDS = 100_000;
const APPENDS = 5_000;

function makeRecord(seq: number): FoldIndexRecord {
  const spans = Array.from({ length: 1 + (seq % 6) }, (_, i) => {
    const text = `output ${seq}.${i}\n`.repeat(1 + ((seq + i) % 40));
    const blockId = i % 3 === 2 ? partAnchor(`resp_${seq}`, i) : resultAnchor(`toolu_${seq}_${i}`);
    return { blockId, code: codeFor(blockId), tool: "bash", turn: 1 + (seq >> 3), log: blockLog(text), sha256: sha256Hex(text), fullOutputPath: `/tmp/pi/tool-output/toolu_${seq}_${i}.txt` };
  });
  return {
    v: 2,
    kind: "fold-index",
    harness: HARNESS,
    session: "0193f0c2-7a1e-7000-8000-000000000001",
    seq,
    at: new Date(Date.UTC(2026, 6, 28) + seq * 1000).toISOString(),
    trigger: seq % 50 === 49 ? "compact" : "threshold",
    usage: { tokens: 90_000 + (seq % 1000), contextWindow: 200_000, fraction: (90_000 + (seq % 1000)) / 200_000 },
    files: [`src/module-${seq % 97}.ts`, `test/module-${seq % 89}.test.ts`],
    commands: [`npx vitest run test/module-${seq % 89}.test.ts`, "git diff --stat"],
    errors: seq % 4 === 0 ? [`FAIL test/module-${seq % 89}.test.ts > case ${seq}`, "npm ERR! code ELIFECYCLE"] : [],
    identifiers: Array.from({ length: 12 }, (_, i) => `IDENT_${seq}_${i}`),
    userMessages: [{ turn: 1 + (seq >> 3), firstLine: `fix the failing test number ${seq}` }],
    spans,
  };
}

async function writeFile(file: string): Promise<void> {
  const out = createWriteStream(file);
  for (let seq = 0; seq < RECORDS; seq += 1) {
    if (!out.write(`${JSON.stringify(makeRecord(seq))}\n`)) await new Promise<void>((resolve) => out.once("drain", () => resolve()));
  }
  await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
}

async function timeRead(file: string): Promise<number> {
  const start = performance.now();
  let records = 0;
  for await (const outcome of readSeedIndex(file)) if (outcome.outcome === "record") records += 1;
  const ms = performance.now() - start;
  if (records !== RECORDS) throw new Error(`read ${records} records, expected ${RECORDS}`);
  return ms;
}

export const seedIndexSuite: BenchSuite = async (ctx) => {
  const file = join(ctx.workDir, "seed-index-100k.jsonl");
  await writeFile(file);
  const megabytes = (await stat(file)).size / 1e6;

  await timeRead(file); // warm-up: JIT and page cache
  const reads = [await timeRead(file), await timeRead(file), await timeRead(file)].sort((a, b) => a - b);
  const readMs = reads[1] ?? 0;

  const parsed = Array.from({ length: 20_000 }, (_, i) => JSON.parse(JSON.stringify(makeRecord(i))) as unknown);
  const validateStart = performance.now();
  for (const value of parsed) if (!validateRecord(value).ok) throw new Error("generated record is invalid");
  const validateMs = performance.now() - validateStart;

  const appendFile = join(ctx.workDir, "append", "seed-index.jsonl");
  const appendStart = performance.now();
  for (let seq = 0; seq < APPENDS; seq += 1) await appendRecord(appendFile, makeRecord(seq));
  const appendMs = performance.now() - appendStart;

  const rows: BenchRow[] = [
    { suite: "seed-index", case: "read + validate file (streaming)", size: "100k records", value: Math.round(RECORDS / (readMs / 1000)), unit: "records/s", note: `median of 3, ${readMs.toFixed(0)} ms, ${megabytes.toFixed(1)} MB` },
    { suite: "seed-index", case: "read + validate file (streaming)", size: "100k records", value: Number((megabytes / (readMs / 1000)).toFixed(1)), unit: "MB/s" },
    { suite: "seed-index", case: "validateRecord (parsed, in memory)", size: "20k records", value: Math.round(parsed.length / (validateMs / 1000)), unit: "records/s" },
    { suite: "seed-index", case: "appendRecord (open, heal-check, write, close; no fsync)", size: "5k records", value: Math.round(APPENDS / (appendMs / 1000)), unit: "records/s" },
  ];
  return rows;
};
