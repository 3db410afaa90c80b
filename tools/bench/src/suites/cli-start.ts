// The `context-fold` binary as a whole process, started with the real Node binary (the repository's
// node_modules/node/bin/node, not the .bin wrapper or pnpm): `--version` and a warm recall on the ≈4 MB
// session (its recall index cached by an earlier run). Both mostly load code, so each is timed with
// Node's compile cache warm (the CLI turns it on) and, for comparison, with it disabled. CPU is the
// child's user + system time as bash's `time` reports it (getrusage of the waited child, ms resolution).
// The cases run in alternation with a bare Node start, and each row also tells its CPU above that start's:
// on a busy machine bare Node alone can cost most of a target.
// Targets (issue 25): `--version` ≤ 80 ms CPU, warm recall ≤ 150 ms CPU.
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { percentile, round } from "../measure.js";
import type { BenchRow, BenchSuite } from "../types.js";

const RUNS = 15;

/** The repository root, from this bundle's place (tools/bench/dist/bench.js). */
const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const NODE = join(ROOT, "node_modules/node/bin/node");
const CLI = join(ROOT, "apps/cli/dist/main.js");

interface Run {
  readonly cpu: number;
  readonly wall: number;
}

/** One whole process (`node <args>`): its CPU (user + sys) and wall time in ms, as bash's `time` measures them. */
function timeNode(args: readonly string[], env: NodeJS.ProcessEnv): Run {
  const script = 'TIMEFORMAT="%3R %3U %3S"; { time "$@" >/dev/null 2>/dev/null; } 2>&1';
  const result = spawnSync("bash", ["-c", script, "bash", NODE, ...args], { encoding: "utf8", env });
  const figures = result.stdout.trim().split("\n").pop()?.split(" ").map(Number) ?? [];
  const [wall, user, sys] = figures;
  if (result.status !== 0 || wall === undefined || user === undefined || sys === undefined || figures.some(Number.isNaN))
    throw new Error(`cli-start: could not time \`node ${args.join(" ")}\` (exit ${String(result.status)}): ${result.stderr}`);
  return { cpu: (user + sys) * 1000, wall: wall * 1000 };
}

/** A case: what a process runs (`node <args>`) and with what environment. */
interface Case {
  readonly name: string;
  readonly size: string;
  readonly args: readonly string[];
  readonly env: NodeJS.ProcessEnv;
  readonly target?: string;
}

/**
 * Each case timed RUNS times, in rounds that run every case once in turn (after one run each to warm the
 * caches), so a busy machine weighs on all of them alike, and the bare Node start of a round is the floor
 * its other processes are measured above.
 */
function timeRounds(cases: readonly Case[]): Run[][] {
  for (const c of cases) timeNode(c.args, c.env);
  const runs: Run[][] = cases.map(() => []);
  for (let round = 0; round < RUNS; round++) cases.forEach((c, i) => runs[i]?.push(timeNode(c.args, c.env)));
  return runs;
}

function row(c: Case, runs: readonly Run[], bare: readonly Run[] | undefined): BenchRow {
  const cpu = runs.map((r) => r.cpu);
  const wall = runs.map((r) => r.wall);
  const above = bare === undefined ? "" : `; above bare Node (same round) median ${String(round(percentile(runs.map((r, i) => r.cpu - (bare[i]?.cpu ?? Number.NaN)), 0.5), 1))} ms`;
  return {
    suite: "cli-start",
    case: `${c.name} (CPU median)`,
    size: c.size,
    value: round(percentile(cpu, 0.5), 1),
    unit: "ms",
    ...(c.target === undefined ? {} : { target: c.target }),
    note: `CPU min ${String(round(Math.min(...cpu), 1))}, p95 ${String(round(percentile(cpu, 0.95), 1))} ms${above}; wall median ${String(round(percentile(wall, 0.5), 1))} ms over ${String(runs.length)} processes`,
  };
}

export const cliStartSuite: BenchSuite = async (ctx) => {
  for (const file of [NODE, CLI]) if (!existsSync(file)) throw new Error(`cli-start: ${file} is missing (run \`pnpm build\` first)`);
  const dir = join(ctx.workDir, "cli-start");
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  // A compile cache of the bench's own (Node's NODE_COMPILE_CACHE), written by each case's warm-up run.
  const warm = { ...process.env, NODE_COMPILE_CACHE: join(dir, "compile-cache") };
  const off = { ...process.env, NODE_DISABLE_COMPILE_CACHE: "1" };
  // An empty ES module: the start of an ES module entry (ours is one) that loads nothing, run by the same Node.
  const empty = join(dir, "empty.mjs");
  writeFileSync(empty, "");
  const cases: Case[] = [
    // Node's own start, the floor under all (and a gauge of how busy the machine is).
    { name: "bare Node start, `node -e 0` (reference)", size: "-", args: ["-e", "0"], env: off },
    { name: "bare Node start of an empty ES module (reference)", size: "-", args: [empty], env: off },
    { name: "`context-fold --version`, compile cache warm", size: "-", args: [CLI, "--version"], env: warm, target: "≤ 80 ms" },
    { name: "`context-fold --version`, compile cache off", size: "-", args: [CLI, "--version"], env: off },
  ];
  const source = ctx.sessions["4mb"];
  if (source !== undefined) {
    // A copy, so the recall index cache (beside the session's seed index) is this suite's own; the first
    // (warm-up) run builds it.
    const session = join(dir, "session.jsonl");
    copyFileSync(source, session);
    const recall = [CLI, "recall", session, "compaction"];
    cases.push({ name: "warm `context-fold recall <session> compaction`, compile cache warm", size: "4mb", args: recall, env: warm, target: "≤ 150 ms" });
    cases.push({ name: "warm `context-fold recall <session> compaction`, compile cache off", size: "4mb", args: recall, env: off });
  }
  const runs = timeRounds(cases);
  const bare = runs[0];
  return cases.map((c, i) => row(c, runs[i] ?? [], i === 0 ? undefined : bare));
};
