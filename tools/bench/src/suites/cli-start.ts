// The `context-fold` binary as a whole process, started with the real Node binary (the repository's
// node_modules/node/bin/node, not the .bin wrapper or pnpm): `--version` and a warm recall on the ≈4 MB
// session (its recall index cached by an earlier run). Both mostly load code, so each is timed with
// Node's compile cache warm (the CLI turns it on) and, for comparison, with it disabled. CPU is the
// child's user + system time as bash's `time` reports it (getrusage of the waited child, ms resolution).
// Targets (issue 25): `--version` ≤ 80 ms CPU, warm recall ≤ 150 ms CPU.
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, rmSync } from "node:fs";
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

function row(name: string, runs: readonly Run[], size: string, target?: string): BenchRow {
  const cpu = runs.map((r) => r.cpu);
  const wall = runs.map((r) => r.wall);
  return {
    suite: "cli-start",
    case: `${name} (CPU median)`,
    size,
    value: round(percentile(cpu, 0.5), 1),
    unit: "ms",
    ...(target === undefined ? {} : { target }),
    note: `CPU p95 ${String(round(percentile(cpu, 0.95), 1))} ms; wall median ${String(round(percentile(wall, 0.5), 1))} ms over ${String(runs.length)} processes`,
  };
}

export const cliStartSuite: BenchSuite = async (ctx) => {
  for (const file of [NODE, CLI]) if (!existsSync(file)) throw new Error(`cli-start: ${file} is missing (run \`pnpm build\` first)`);
  const dir = join(ctx.workDir, "cli-start");
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  // A compile cache of the bench's own (Node's NODE_COMPILE_CACHE), warmed by the first run.
  const warm = { ...process.env, NODE_COMPILE_CACHE: join(dir, "compile-cache") };
  const off = { ...process.env, NODE_DISABLE_COMPILE_CACHE: "1" };
  const times = (args: readonly string[], env: NodeJS.ProcessEnv, script = CLI): Run[] => {
    timeNode([script, ...args], env);
    return Array.from({ length: RUNS }, () => timeNode([script, ...args], env));
  };
  const rows: BenchRow[] = [
    // Node's own start, the floor under both (and a gauge of how busy the machine is).
    row("bare Node start, `node -e 0` (reference)", times(["0"], off, "-e"), "-"),
    row("`context-fold --version`, compile cache warm", times(["--version"], warm), "-", "≤ 80 ms"),
    row("`context-fold --version`, compile cache off", times(["--version"], off), "-"),
  ];
  const source = ctx.sessions["4mb"];
  if (source !== undefined) {
    // A copy, so the recall index cache (beside the session's seed index) is this suite's own.
    const session = join(dir, "session.jsonl");
    copyFileSync(source, session);
    const recall = ["recall", session, "compaction"];
    rows.push(row("warm `context-fold recall <session> compaction`, compile cache warm", times(recall, warm), "4mb", "≤ 150 ms"));
    rows.push(row("warm `context-fold recall <session> compaction`, compile cache off", times(recall, off), "4mb"));
  }
  return rows;
};
