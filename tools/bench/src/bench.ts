// `pnpm bench`: generate sessions at each size (once, cached), run every suite in its own child process
// (so each row's peak RSS is that suite's own), print one table and write .bench-out/bench.json.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { generateSession } from "@context-fold/session-gen";
import { suites } from "./suites/index.js";
import type { BenchContext, BenchRow } from "./types.js";
import { growthExponents, renderTable } from "./table.js";

// 1gb is generated and run only on request (`--sizes 1gb`): the default sizes leave it out.
const SIZE_BYTES: Record<string, number> = { "1mb": 1 << 20, "4mb": 4 << 20, "100mb": 100 << 20, "1gb": 1 << 30 };

interface Args {
  sizes: string[];
  only: string[] | null;
  suite: string | null;
  out: string;
}

function parseArgs(raw: readonly string[]): Args {
  // `pnpm bench -- --sizes 1mb` may hand the separator through.
  const argv = raw.filter((arg) => arg !== "--");
  const args: Args = { sizes: ["1mb", "4mb", "100mb"], only: null, suite: null, out: resolve(".bench-out") };
  for (let i = 0; i < argv.length; i += 2) {
    const flag = argv[i];
    const value = argv[i + 1];
    if (value === undefined) throw new Error(`${flag} needs a value`);
    if (flag === "--sizes") args.sizes = value.split(",");
    else if (flag === "--only") args.only = value.split(",");
    else if (flag === "--suite") args.suite = value;
    else if (flag === "--out") args.out = resolve(value);
    else throw new Error(`unknown option ${flag} (known: --sizes, --only, --suite, --out)`);
  }
  return args;
}

/**
 * A fingerprint of the generator's built code, part of each cached session's name: a changed generator
 * writes new sessions instead of timing stale ones.
 */
function generatorFingerprint(): string {
  const distDir = dirname(fileURLToPath(import.meta.resolve("@context-fold/session-gen")));
  const hash = createHash("sha256");
  for (const name of readdirSync(distDir).filter((n) => n.endsWith(".js")).sort()) hash.update(name).update(readFileSync(join(distDir, name)));
  return hash.digest("hex").slice(0, 10);
}

async function ensureSessions(sizes: readonly string[], dir: string): Promise<Record<string, string>> {
  mkdirSync(dir, { recursive: true });
  const fingerprint = generatorFingerprint();
  // Sessions of an older generator are never read again; drop them (100 MB each).
  for (const name of readdirSync(dir)) {
    if (/^session-\w+-seed7(?:-[0-9a-f]{10})?\.jsonl$/.test(name) && !name.endsWith(`-${fingerprint}.jsonl`)) rmSync(join(dir, name), { force: true });
  }
  const sessions: Record<string, string> = {};
  for (const size of sizes) {
    const bytes = SIZE_BYTES[size];
    if (bytes === undefined) throw new Error(`unknown size ${size} (known: ${Object.keys(SIZE_BYTES).join(", ")})`);
    const file = join(dir, `session-${size}-seed7-${fingerprint}.jsonl`);
    if (!existsSync(file)) {
      process.stderr.write(`generating ${size} session … `);
      await generateSession(file, { seed: 7, size: bytes });
      process.stderr.write(`${(statSync(file).size / 1e6).toFixed(1)} MB\n`);
    }
    sessions[size] = file;
  }
  return sessions;
}

async function runOneSuite(name: string, args: Args): Promise<void> {
  const suite = suites[name];
  if (!suite) throw new Error(`unknown suite ${name}`);
  const sessions = await ensureSessions(args.sizes, join(args.out, "sessions"));
  const workDir = join(args.out, "work", name);
  mkdirSync(workDir, { recursive: true });
  const ctx: BenchContext = { sessions, workDir, sizes: args.sizes };
  const rows = await suite(ctx);
  const peakRssMb = process.resourceUsage().maxRSS / 1024;
  process.stdout.write(`${JSON.stringify({ rows, peakRssMb })}\n`);
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  if (args.suite) return runOneSuite(args.suite, args);

  mkdirSync(args.out, { recursive: true });
  await ensureSessions(args.sizes, join(args.out, "sessions"));
  const self = fileURLToPath(import.meta.url);
  const all: (BenchRow & { peakRssMb: number })[] = [];
  for (const name of Object.keys(suites)) {
    if (args.only && !args.only.includes(name)) continue;
    process.stderr.write(`suite ${name} … `);
    const child = spawnSync(process.execPath, ["--expose-gc", self, "--suite", name, "--sizes", args.sizes.join(","), "--out", args.out], {
      encoding: "utf8",
      maxBuffer: 64 << 20,
      stdio: ["ignore", "pipe", "inherit"],
    });
    const line = child.stdout.trim().split("\n").pop() ?? "";
    if (child.status !== 0 || !line.startsWith("{")) {
      process.stderr.write(`failed (exit ${child.status})\n`);
      process.exitCode = 1;
      continue;
    }
    const { rows, peakRssMb } = JSON.parse(line) as { rows: BenchRow[]; peakRssMb: number };
    process.stderr.write(`${rows.length} rows, peak RSS ${peakRssMb.toFixed(0)} MB\n`);
    for (const row of rows) all.push({ ...row, peakRssMb });
  }
  const exponents = growthExponents(all, SIZE_BYTES);
  process.stdout.write(`${renderTable(all, exponents)}\n`);
  const jsonPath = join(args.out, "bench.json");
  writeFileSync(jsonPath, `${JSON.stringify({ node: process.version, sizes: args.sizes, rows: all, exponents }, null, 2)}\n`);
  process.stdout.write(`\nJSON: ${jsonPath}\n`);
}

await main();
