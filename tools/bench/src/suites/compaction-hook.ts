// The extension's compaction hook on a generated ≈4 MB session, with facts accumulated during a replay
// (fed turn by turn, as the extension does between runs): the hook's own work (cut, top-up, summary,
// digest, compact record) and the same with its I/O (artifacts written atomically with fsync, record
// appended). Target: median ≤ 10 ms.
import { copyFileSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { lineageBlocks, readSession, type Session } from "@context-fold/ledger-reader";
import { CompactionFacts, CompactionSession, computeHookCompaction, DEFAULT_COMPACTION_OPTIONS, LedgerTracker } from "@context-fold/pi-extension";
import { CodeAssigner, type FoldIndexRecord, seedIndexPath } from "@context-fold/seed-index-format";
import type { BenchRow, BenchSuite } from "../types.js";

const RUNS = 40;
const IO_RUNS = 20;
const WARMUP = 5;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}
const round = (n: number, digits = 2): number => Number(n.toFixed(digits));

/** Feed the facts turn by turn: at each user message, everything before it (what `agent_end` does). */
function replay(session: Session, codes: CodeAssigner): { facts: CompactionFacts; feedMs: number } {
  const facts = new CompactionFacts(session.header.cwd, codes);
  const start = performance.now();
  for (const block of lineageBlocks(session)) if (block.role === "user") facts.feed(session, block.entryPosition);
  return { facts, feedMs: performance.now() - start };
}

export const compactionHookSuite: BenchSuite = async (ctx) => {
  const rows: BenchRow[] = [];
  for (const size of ctx.sizes) {
    if (size !== "4mb" && size !== "1mb") continue;
    const source = ctx.sessions[size];
    if (source === undefined) continue;
    const session = await readSession(source);
    // The session's code assigner lives as long as the session (the fold state's), as in the extension.
    const codes = new CodeAssigner();
    const { facts, feedMs } = replay(session, codes);

    // The hook's work: facts already accumulated, so only the cut, top-up, rendering and record remain.
    // A few runs first, uncounted: in a live session the code is warm by the time Pi compacts.
    for (let run = 0; run < WARMUP; run++) computeHookCompaction({ session, facts, sessionId: session.header.id, seq: 1, codes, summaryBudget: 4000, digestBudget: 1500 });
    const times: number[] = [];
    const cpu: number[] = [];
    let note = "";
    for (let run = 0; run < RUNS; run++) {
      const start = performance.now();
      const used = process.cpuUsage();
      const hook = computeHookCompaction({ session, facts, sessionId: session.header.id, seq: 1, codes, summaryBudget: 4000, digestBudget: 1500 });
      times.push(performance.now() - start);
      const spent = process.cpuUsage(used);
      cpu.push((spent.user + spent.system) / 1000);
      note = `CPU median ${String(round(median(cpu)))} ms; ${String(hook.details.summarizedMessages)} messages summarized into ~${String(hook.details.summaryTokens)} tok, ${String(hook.record.spans.length)} record spans; replay feed ${String(round(feedMs, 0))} ms total`;
    }
    rows.push({ suite: "compaction-hook", case: "session_before_compact hook, facts accumulated (median)", size, value: round(median(times)), unit: "ms", target: "≤ 10 ms", note });

    // The hook inside a live session, with its I/O: the artifacts file (temp + fsync + rename + folder
    // fsync) and the record append; cold (computed in the hook) and prepared ahead at the turn's end.
    const dir = join(ctx.workDir, `compaction-hook-${size}`);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const file = join(dir, "session.jsonl");
    copyFileSync(source, file);
    const seedIndex = seedIndexPath(file, session.header.id);
    let seq = 0;
    const seqSource = { get nextSeq() { return seq; }, codes: new CodeAssigner(), claim: (record: FoldIndexRecord) => void (seq = record.seq + 1) };
    const live = new CompactionSession({ sessionId: session.header.id, seedIndex, cwd: session.header.cwd, ledger: new LedgerTracker(file) }, seqSource, DEFAULT_COMPACTION_OPTIONS);
    await live.sync();
    const cold: number[] = [];
    const ahead: number[] = [];
    const warm: number[] = [];
    for (let run = 0; run < IO_RUNS; run++) {
      let start = performance.now();
      await live.prepare(undefined);
      cold.push(performance.now() - start);
      await live.failed("bench: every run is retracted");
      start = performance.now();
      await live.prepareAhead();
      ahead.push(performance.now() - start);
      start = performance.now();
      await live.prepare(undefined);
      warm.push(performance.now() - start);
      await live.failed("bench: every run is retracted");
    }
    const io = `ledger re-read per run (nothing appended); fsync cost depends on the disk`;
    rows.push({ suite: "compaction-hook", case: "hook incl. artifacts fsync + record append, cold (median)", size, value: round(median(cold)), unit: "ms", note: io });
    rows.push({ suite: "compaction-hook", case: "hook incl. I/O, prepared ahead at turn end (median)", size, value: round(median(warm)), unit: "ms", target: "≤ 10 ms", note: `${String(live.draftHits)}/${String(IO_RUNS)} drafts used; ${io}` });
    rows.push({ suite: "compaction-hook", case: "prepare ahead at turn end (median, off the hook's path)", size, value: round(median(ahead)), unit: "ms" });
  }
  return rows;
};
