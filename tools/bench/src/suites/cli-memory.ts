// Whole CLI processes on the generated sessions: peak RSS and CPU of every command that reads a session
// (`inspect`, `index`, `verify`, `compact`, `facts`, `artifacts`, `handoff`, `inventory`, `eval` — also
// without its recall part, CONTEXT_FOLD_EVAL_WITHOUT_RECALL=1, to measure the rest alone — and
// `recall`'s first search, which builds its index and block table; `inventory` and `handoff` also with
// the `index` record beside the session, and `index` run again onto it), each in its own Node process (the real binary, as a user runs it). Issue 28's floor is ≤ 512 MB peak RSS on the
// 1 GB session, which is generated only on request: `pnpm bench --only cli-memory --sizes 1gb`.
import { spawnSync } from "node:child_process";
import { closeSync, existsSync, linkSync, mkdirSync, openSync, readFileSync, readSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { BenchRow, BenchSuite } from "../types.js";

/** The CLI the bench measures: apps/cli's build, beside this tool's. */
const CLI = resolve(dirname(fileURLToPath(import.meta.url)), "../../../apps/cli/dist/main.js");

/** Loaded into each child with --import: writes the child's own resource usage when it exits. */
const PRELOAD = `import { writeFileSync } from "node:fs";
process.on("exit", () => { const out = process.env.CF_BENCH_USAGE; if (out) writeFileSync(out, JSON.stringify(process.resourceUsage())); });
`;

const round = (n: number, digits = 1): number => Number(n.toFixed(digits));

/** The session id in the header line of a generated session. */
function sessionIdOf(session: string): string {
  const fd = openSync(session, "r");
  try {
    const head = Buffer.alloc(64 * 1024);
    const read = readSync(fd, head, 0, head.length, 0);
    const line = head.subarray(0, read).toString("utf8").split("\n")[0] ?? "";
    return (JSON.parse(line) as { id: string }).id;
  } finally {
    closeSync(fd);
  }
}

export const cliMemorySuite: BenchSuite = async (ctx) => {
  const rows: BenchRow[] = [];
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: build apps/cli first (pnpm bench builds everything)`);
  const preload = join(ctx.workDir, "usage-preload.mjs");
  writeFileSync(preload, PRELOAD);
  const usageFile = join(ctx.workDir, "usage.json");
  for (const size of ctx.sizes) {
    const session = ctx.sessions[size];
    if (session === undefined) continue;
    const seedIndex = join(ctx.workDir, `seed-index-${size}.jsonl`);
    const handoff = join(ctx.workDir, `handoff-${size}.md`);
    // Removed before and after: the first search of a session builds the cache (what the row measures).
    const recallCache = join(ctx.workDir, `recall-cache-${size}`);
    // The session again (a symbolic link) with the seed index `index` writes beside it, where inventory
    // and handoff look: on 1gb its record is one 213 MB line of a million spans.
    const seeded = join(ctx.workDir, `seeded-${size}`);
    const seededSession = join(seeded, "session.jsonl");
    const besideSeeded = (): void => {
      const beside = join(seeded, "context-fold", sessionIdOf(session), "seed-index.jsonl");
      mkdirSync(dirname(beside), { recursive: true });
      if (!existsSync(beside)) linkSync(seedIndex, beside);
    };
    rmSync(seeded, { recursive: true, force: true });
    mkdirSync(seeded, { recursive: true });
    symlinkSync(resolve(session), seededSession);
    // `index` writes the seed index `verify` then checks: the order matters.
    // [row name, CLI arguments, what to prepare first, environment added]
    const commands: [string, string[], ((() => void) | undefined)?, Record<string, string>?][] = [
      ["inspect", ["inspect", session, "--json"]],
      ["index", ["index", session, "--out", seedIndex, "--seq", "0", "--json"]],
      ["verify", ["verify", seedIndex, "--session", session, "--json"]],
      ["inventory (the index record beside the session)", ["inventory", seededSession, "--json"], besideSeeded],
      ["handoff (the index record beside the session)", ["handoff", seededSession, "--out", handoff, "--json"], besideSeeded],
      // A second record onto the first: the codes it hands out are read from the first's spans.
      ["index (a second run onto the first record)", ["index", session, "--out", seedIndex, "--seq", "1", "--json"]],
      ["compact", ["compact", session, "--json"]],
      ["facts", ["facts", session, "--json"]],
      ["artifacts", ["artifacts", session, "--json"]],
      ["handoff", ["handoff", session, "--out", handoff, "--json"]],
      ["inventory", ["inventory", session, "--json"]],
      // Exit 1 when a floor does not hold (a sampled needle recall misses): measured all the same.
      ["eval", ["eval", session, "--json"]],
      // The streamed eval without its recall part (its index built streamed, as recall builds it):
      // what eval holds apart from the recall index build. A measuring switch; the answer is not a verdict.
      ["eval (recall part left out)", ["eval", session, "--json"], undefined, { CONTEXT_FOLD_EVAL_WITHOUT_RECALL: "1" }],
      ["recall (first search, builds the index)", ["recall", session, "refreshToken", "--cache-dir", recallCache, "--json"]],
    ];
    rmSync(seedIndex, { force: true });
    rmSync(recallCache, { recursive: true, force: true });
    for (const [name, args, prepare, env] of commands) {
      prepare?.();
      rmSync(handoff, { force: true });
      rmSync(usageFile, { force: true });
      const start = performance.now();
      const child = spawnSync(process.execPath, ["--import", preload, CLI, ...args], {
        env: { ...process.env, ...env, CF_BENCH_USAGE: usageFile, NO_COLOR: "1" },
        stdio: ["ignore", "ignore", "pipe"],
        maxBuffer: 64 << 20,
      });
      const wall = (performance.now() - start) / 1000;
      if (!existsSync(usageFile)) throw new Error(`${name} on ${size} exited ${String(child.status)} without reporting: ${child.stderr.toString().slice(0, 400)}`);
      const usage = JSON.parse(readFileSync(usageFile, "utf8")) as NodeJS.ResourceUsage;
      const cpu = (usage.userCPUTime + usage.systemCPUTime) / 1e6;
      const note = `CPU ${String(round(cpu, 2))} s, wall ${String(round(wall, 2))} s, exit ${String(child.status)}`;
      rows.push({ suite: "cli-memory", case: `${name}: whole process peak RSS`, size, value: round(usage.maxRSS / 1024), unit: "MB", target: "≤ 512 MB at 1gb", note });
      rows.push({ suite: "cli-memory", case: `${name}: whole process CPU`, size, value: round(cpu, 2), unit: "s", target: "≤ 1.2× before streaming", note: `wall ${String(round(wall, 2))} s` });
    }
    rmSync(seedIndex, { force: true });
    rmSync(handoff, { force: true });
    rmSync(recallCache, { recursive: true, force: true });
    rmSync(seeded, { recursive: true, force: true });
  }
  return rows;
};
