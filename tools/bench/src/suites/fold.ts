// Per-call overhead of the fold hook (`context` event) replaying a real Pi session turn by turn: before
// every model call of pi-mono__before-compaction.jsonl, the context Pi would send (compactions applied)
// goes through ContextFolder.process with Pi-style usage. Target p50 ≤ 0.5 ms, p95 ≤ 2 ms
// (context-fold, the closest peer, measures ~1 ms p50 on that replay).
import { copyFileSync, existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { contextEntries, type Entry, readSession } from "@context-fold/ledger-reader";
import { ContextFolder, DEFAULT_FOLD_OPTIONS, estimateTokens, FoldState, LedgerTracker } from "@context-fold/pi-extension";
import { seedIndexPath } from "@context-fold/seed-index-format";
import type { BenchRow, BenchSuite } from "../types.js";

const FIXTURE = "pi-mono__before-compaction.jsonl";
/** claude-opus-4-5, the session's model. */
const WINDOW = 200_000;

/** ../shared/fixtures/sessions beside the repository root (the folder holding pnpm-workspace.yaml). */
function fixturePath(): string | undefined {
  let dir = import.meta.dirname;
  for (let i = 0; i < 8; i++) {
    if (existsSync(join(dir, "pnpm-workspace.yaml"))) {
      const file = resolve(dir, "..", "shared", "fixtures", "sessions", FIXTURE);
      return existsSync(file) ? file : undefined;
    }
    dir = dirname(dir);
  }
  return undefined;
}

type Message = Record<string, unknown>;

/** The messages Pi's `context` event carries for a lineage prefix: compaction applied, no system messages. */
function contextMessages(prefix: readonly Entry[]): Message[] {
  const out: Message[] = [];
  const selected = contextEntries(prefix);
  selected.forEach((entry, i) => {
    if (entry.type === "compaction" && i === 0) out.push({ role: "compactionSummary", summary: entry.raw["summary"], timestamp: 0 });
    if (entry.type !== "message") return;
    const message = entry.raw["message"] as Message | undefined;
    if (message !== undefined && message["role"] !== "system") out.push(message);
  });
  return out;
}

/** Pi's getContextUsage: the last assistant usage in context, plus an estimate of what came after it. */
function piUsage(messages: readonly Message[]): number | null {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as Message;
    const usage = m["usage"] as Record<string, unknown> | undefined;
    if (m["role"] !== "assistant" || usage === undefined) continue;
    const n = (k: string): number => (typeof usage[k] === "number" ? (usage[k] as number) : 0);
    const total = n("input") + n("output") + n("cacheRead") + n("cacheWrite");
    if (total === 0) continue;
    return total + estimateTokens(messages.slice(i + 1));
  }
  return null;
}

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}
const round = (n: number): number => Number(n.toFixed(3));

export const foldSuite: BenchSuite = async (ctx) => {
  const source = fixturePath();
  if (source === undefined) {
    return [{ suite: "fold", case: "context hook per call", size: FIXTURE, value: Number.NaN, unit: "ms", note: "../shared fixtures missing: not measured" }];
  }
  // A copy: the hook writes the seed index beside the session file, never into ../shared.
  const file = join(ctx.workDir, FIXTURE);
  copyFileSync(source, file);
  const session = await readSession(file);
  // One replayed call per model call: the context before each assistant message of the lineage.
  const calls: { messages: Message[]; tokens: number | null }[] = [];
  session.lineage.forEach((entry, i) => {
    const message = entry.raw["message"] as Message | undefined;
    if (entry.type !== "message" || message?.["role"] !== "assistant") return;
    const messages = contextMessages(session.lineage.slice(0, i));
    calls.push({ messages, tokens: piUsage(messages) });
  });
  const folder = new ContextFolder(new FoldState(), DEFAULT_FOLD_OPTIONS, {
    sessionId: session.header.id,
    seedIndex: seedIndexPath(file, session.header.id),
    ledger: new LedgerTracker(file),
  });
  const times: number[] = [];
  const cpuTimes: number[] = [];
  const foldTimes: number[] = [];
  let foldedCalls = 0;
  for (const call of calls) {
    // Pi's count reflects what was sent: after folds, the provider saw the stubs, not the blocks.
    const tokens = call.tokens === null ? null : Math.max(0, call.tokens - folder.maskedTokens());
    const events = folder.state.events;
    const cpu = process.cpuUsage();
    const start = performance.now();
    const out = await folder.process(call.messages, { tokens, contextWindow: WINDOW });
    const ms = performance.now() - start;
    const used = process.cpuUsage(cpu);
    times.push(ms);
    cpuTimes.push((used.user + used.system) / 1000);
    if (folder.state.events !== events) foldTimes.push(ms);
    if (out !== undefined) foldedCalls += 1;
    // The model call between two context events: background work (the ledger read-ahead) runs here.
    await new Promise((done) => setTimeout(done, 1));
  }
  const sorted = [...times].sort((a, b) => a - b);
  const cpuSorted = [...cpuTimes].sort((a, b) => a - b);
  const folds = [...foldTimes].sort((a, b) => a - b);
  const size = `${String(calls.length)} calls`;
  const rows: BenchRow[] = [
    { suite: "fold", case: "context hook per call p50", size, value: round(quantile(sorted, 0.5)), unit: "ms", target: "≤ 0.5 ms" },
    { suite: "fold", case: "context hook per call p95", size, value: round(quantile(sorted, 0.95)), unit: "ms", target: "≤ 2 ms" },
    {
      suite: "fold",
      case: "context hook per call CPU p50 / p95",
      size,
      value: round(quantile(cpuSorted, 0.5)),
      unit: "ms",
      note: `p95 ${String(round(quantile(cpuSorted, 0.95)))} ms (process CPU, all threads: steadier than wall time on a loaded machine)`,
    },
    { suite: "fold", case: "context hook per call max", size, value: round(sorted[sorted.length - 1] ?? Number.NaN), unit: "ms" },
    {
      suite: "fold",
      case: "fold event call (match ledger + extract + append record) median",
      size: `${String(folds.length)} events`,
      value: round(quantile(folds, 0.5)),
      unit: "ms",
      note: `${String(folder.state.size)} blocks folded; ${String(foldedCalls)} of ${String(calls.length)} calls went out folded`,
    },
  ];
  return rows;
};
