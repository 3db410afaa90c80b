// Recall across a whole history (the history index of a sessions folder): first build, warm query in
// process, whole `context-fold recall --sessions` processes (the first builds the CLI's history: its time and
// peak RSS are the first-build floors; then CPU and wall per query), the update after one session
// grew by 100 KB, and the index's size against the sessions' bytes. The history's shape is an option,
// since generating the issue's 1,000 sessions of ≈400 KB takes long on a small machine:
// BENCH_HISTORY_SESSIONS (default 1000) and BENCH_HISTORY_SIZE (default 400kb). The generated history is
// kept under the output folder (`--out`) and the grown session cut back after its row, so runs compare;
// BENCH_HISTORY_KEEP=1 keeps the history index a run before built there too (no first-build rows: the
// query, process and update rows in a few minutes), e.g.
//   BENCH_HISTORY_KEEP=1 pnpm bench --only history --sizes 4mb --out /tmp/bench-history
import { spawnSync } from "node:child_process";
import { appendFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { readSession } from "@context-fold/ledger-reader";
import { HistoryIndex, historyDirFor, listHistories, listSessionFiles } from "@context-fold/recall-engine";
import { generateSession, parseSize } from "@context-fold/session-gen";
import { freshEntryLines } from "../appends.js";
import type { BenchRow, BenchSuite } from "../types.js";

const round = (n: number, digits = 2): number => Number(n.toFixed(digits));

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** The generated history, made once per shape and kept under the bench's output folder. */
async function history(out: string, count: number, size: number): Promise<string> {
  const dir = join(out, `history-${String(count)}x${String(size)}`);
  const done = join(dir, ".complete");
  if (existsSync(done)) return dir;
  rmSync(dir, { recursive: true, force: true });
  for (let k = 0; k < count; k++) {
    const project = `--home-dev-project-${String(k % 7)}--`;
    mkdirSync(join(dir, project), { recursive: true });
    const day = String(1 + (k % 28)).padStart(2, "0");
    await generateSession(join(dir, project, `s${String(k).padStart(5, "0")}.jsonl`), { seed: 1000 + k, size, cwd: `/home/dev/project-${String(k % 7)}`, startTime: `2026-03-${day}T09:00:00.000Z` });
  }
  writeFileSync(done, "");
  return dir;
}

function folderBytes(dir: string): number {
  let total = 0;
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) if (e.isFile()) total += statSync(join(e.parentPath, e.name)).size;
  return total;
}

/**
 * Rare words (one session's own identifiers) and common ones, drawn from the history deterministically;
 * `session` and `error` are words nearly every session holds (and begins dozens of terms with): the
 * queries whose hits a history can least narrow down.
 */
async function queriesFor(files: readonly string[]): Promise<string[]> {
  const out = ["checksum drift", "refreshToken rotation", "src/ledger/reader.ts", "session", "error"];
  const token = /[A-Za-z_][A-Za-z0-9_]{9,40}/g;
  for (let k = 0; k < 5; k++) {
    const file = files[Math.floor((k * files.length) / 5)];
    if (file === undefined) continue;
    const session = await readSession(file);
    const text = session.blocks[Math.floor(session.blocks.length / 2)]?.text.slice(0, 400) ?? "";
    const longest = (text.match(token) ?? []).reduce((a, b) => (b.length > a.length ? b : a), "");
    if (longest !== "") out.push(longest);
  }
  return out;
}

export const historySuite: BenchSuite = async (ctx) => {
  const count = Number(process.env["BENCH_HISTORY_SESSIONS"] ?? "1000");
  const size = parseSize(process.env["BENCH_HISTORY_SIZE"] ?? "400kb");
  if (!Number.isSafeInteger(count) || count < 1) throw new Error(`BENCH_HISTORY_SESSIONS must be a positive integer, got ${String(process.env["BENCH_HISTORY_SESSIONS"])}`);
  const label = `${String(count)} × ${String(Math.round(size / 1000))} KB`;
  const out = resolve(ctx.workDir, "..");
  const dir = await history(out, count, size);
  const files = listSessionFiles(dir);
  const sessionBytes = files.reduce((sum, f) => sum + statSync(f).size, 0);
  const root = join(ctx.workDir, "history-state");
  const keep = process.env["BENCH_HISTORY_KEEP"] === "1" && existsSync(root);
  if (!keep) rmSync(root, { recursive: true, force: true });
  const rows: BenchRow[] = [];
  const note = `${String(files.length)} sessions, ${round(sessionBytes / 1e6, 1)} MB`;

  const rss0 = process.resourceUsage().maxRSS;
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const index = HistoryIndex.for(dir, { root });
  const first = await index.update();
  const build = performance.now() - t0;
  const buildCpu = process.cpuUsage(c0);
  if (!keep) {
    rows.push({ suite: "history", case: "first build (in the bench process)", size: label, value: round(build / 1000), unit: "s", note: `${note}; CPU ${round((buildCpu.user + buildCpu.system) / 1e6)} s` });
    rows.push({ suite: "history", case: "peak RSS (bench process, build included)", size: label, value: round(process.resourceUsage().maxRSS / 1024), unit: "MB", note: `before the build: ${round(rss0 / 1024)} MB (this process also generated the sessions, when they were new); the floor is the CLI process's row below` });
  } else if (first.unchanged !== files.length) throw new Error(`BENCH_HISTORY_KEEP: the kept history at ${root} was not up to date (${JSON.stringify(first)}): run once without it`);
  const kept = listHistories(root)[0];
  rows.push({ suite: "history", case: "index size / sessions' bytes", size: label, value: round((kept?.bytes ?? folderBytes(historyDirFor(dir, root))) / sessionBytes, 3), unit: "ratio", target: "≤ 0.6" });

  const queries = await queriesFor(files);
  for (const q of queries) await index.search(q); // warm-up: JIT, page cache
  const times: number[] = [];
  const opened: number[] = [];
  const perQuery = new Map<string, { ms: number[]; cpu: number[]; opened: number }>();
  for (let r = 0; r < 3; r++) {
    for (const q of queries) {
      const s = performance.now();
      const c = process.cpuUsage();
      const found = await index.search(q);
      const used = process.cpuUsage(c);
      const ms = performance.now() - s;
      times.push(ms);
      opened.push(found.searched);
      const one = perQuery.get(q) ?? { ms: [], cpu: [], opened: found.searched };
      one.ms.push(ms);
      one.cpu.push((used.user + used.system) / 1000);
      perQuery.set(q, one);
    }
  }
  rows.push({ suite: "history", case: "warm query p50 (in process)", size: label, value: round(median(times)), unit: "ms", target: "≤ 50 ms", note: `${String(queries.length)} queries; sessions opened per query p50 ${String(median(opened))}` });
  // The slowest query (by its own median): a common word, whose hits every session holds.
  const [slowest, worst] = [...perQuery].reduce((a, b) => (median(b[1].ms) > median(a[1].ms) ? b : a));
  rows.push({ suite: "history", case: "warm query, slowest (in process)", size: label, value: round(median(worst.ms)), unit: "ms", target: "≤ 50 ms", note: `${JSON.stringify(slowest)}: CPU ${round(median(worst.cpu))} ms, ${String(worst.opened)} sessions opened; per query CPU p50 ${[...perQuery].map(([q, v]) => `${q} ${String(round(median(v.cpu), 1))}`).join(", ")}` });

  // A whole CLI process, as a user runs it (bench.js is one bundle in tools/bench/dist). Each child
  // reports its own resource use at exit through a preloaded module (CPU user + system, peak RSS), so
  // neither bash nor this process's memory is counted. The first process builds the CLI's own history
  // (its state folder differs from the in-process one): that is the first build as a user meets it,
  // peak RSS included. Then 4 queries, 3 rounds each (query order the same every round), CPU p50 over all.
  const main = resolve(dirname(fileURLToPath(import.meta.url)), "../../../apps/cli/dist/main.js");
  if (existsSync(main)) {
    const preload = join(ctx.workDir, "history-rusage.mjs");
    const report = join(ctx.workDir, "history-rusage.json");
    writeFileSync(preload, `import { writeFileSync } from "node:fs";\nprocess.on("exit", () => { const u = process.resourceUsage(); writeFileSync(${JSON.stringify(report)}, JSON.stringify({ cpuMs: (u.userCPUTime + u.systemCPUTime) / 1000, maxRssKb: u.maxRSS })); });\n`);
    const xdg = join(root, "..", "xdg");
    if (!keep) rmSync(xdg, { recursive: true, force: true });
    const run = (q: string): { wall: number; cpuMs: number; maxRssKb: number } => {
      rmSync(report, { force: true });
      const s = performance.now();
      const child = spawnSync(process.execPath, ["--import", preload, main, "recall", "--sessions", dir, q, "--json"], { env: { ...process.env, XDG_STATE_HOME: xdg }, stdio: ["ignore", "ignore", "pipe"], encoding: "utf8" });
      const wall = performance.now() - s;
      if (child.status !== 0 || !existsSync(report)) throw new Error(`recall --sessions ${JSON.stringify(q)} exited ${String(child.status)}: ${child.stderr.slice(-400)}`);
      return { wall, ...(JSON.parse(readFileSync(report, "utf8")) as { cpuMs: number; maxRssKb: number }) };
    };
    const asked = queries.slice(0, 5);
    const building = run(asked[0] as string);
    if (!keep) {
      rows.push({ suite: "history", case: "first build, whole recall --sessions process", size: label, value: round(building.wall / 1000), unit: "s", target: "≤ 60 s (1,000 × 400 KB)", note: `CPU ${round(building.cpuMs / 1000)} s; the first query of a CLI process with no history index yet` });
      rows.push({ suite: "history", case: "peak RSS, first-build process", size: label, value: round(building.maxRssKb / 1024), unit: "MB", target: "≤ 400 MB", note: "the CLI process that built the history and answered its query" });
    }
    const perQ = new Map<string, number[]>();
    const walls: number[] = [];
    for (let r = 0; r < 3; r++) {
      for (const q of asked.slice(1)) {
        const one = run(q);
        walls.push(one.wall);
        perQ.set(q, [...(perQ.get(q) ?? []), one.cpuMs]);
      }
    }
    const cpus = [...perQ.values()].flat();
    const each = [...perQ].map(([q, v]) => `${q} ${String(round(median(v), 0))}`).join(", ");
    rows.push({ suite: "history", case: "recall --sessions process, CPU p50", size: label, value: round(median(cpus)), unit: "ms", target: "≤ 250 ms", note: `${String(cpus.length)} processes (4 queries × 3); wall p50 ${round(median(walls))} ms; CPU p50 per query ${each}` });
  }

  // One session grows by 100 KB (message entries after its leaf), then the update that takes it in.
  // Three times (the same session, 100 KB more each time); the median, with its CPU. The session is cut
  // back to its generated bytes afterwards (the kept history then rebuilds its segment once, untimed).
  const grown = files[Math.floor(files.length / 2)] as string;
  const generated = statSync(grown).size;
  const walls: number[] = [];
  const cpus: number[] = [];
  let report = first;
  try {
    for (let k = 0; k < 3; k++) {
      const session = await readSession(grown);
      appendFileSync(grown, freshEntryLines(grown, { bytes: 100_000, tag: `history-bench-${String(k)}`, parentId: session.leafId, onlyMessages: true, sourceLines: 400 }));
      const u0 = performance.now();
      const c = process.cpuUsage();
      report = await index.update();
      const used = process.cpuUsage(c);
      walls.push(performance.now() - u0);
      cpus.push((used.user + used.system) / 1000);
    }
  } finally {
    truncateSync(grown, generated);
  }
  rows.push({ suite: "history", case: "update after one session grew 100 KB", size: label, value: round(median(walls)), unit: "ms", target: "≤ 100 ms", note: `median of 3, CPU p50 ${round(median(cpus))} ms (${cpus.map((c) => round(c)).join(", ")}); grown ${String(report.grown)}, unchanged ${String(report.unchanged)}, dictionary merged: ${String(report.merged)}` });
  await index.update();
  return rows;
};
