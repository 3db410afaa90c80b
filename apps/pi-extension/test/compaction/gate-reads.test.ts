// The gate at a run's end pays for the run only near a compaction. Far from one (Pi's count under
// PREPARE_AHEAD_AT of the limit, what Pi holds under its bound) it stats the session file and reads
// nothing: no tail parsed, no facts fed (once the facts hold anything: until then, as in a session's
// first runs or a resumed session's history, it reads). The facts wait in the file: the first run near
// a compaction feeds what every run since appended, the same facts a feed at every run's end makes.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SessionManager } from "@earendil-works/pi-coding-agent";
import { tempDir } from "@context-fold/test-support";
import { DEFAULT_COMPACTION_OPTIONS } from "../../src/compaction/compaction-options.js";
import { checkGate, CompactionRegistry } from "../../src/compaction/compaction-events.js";
import { DEFAULT_FOLD_OPTIONS } from "../../src/options.js";
import { RuntimeRegistry } from "../../src/runtime-registry.js";

const CWD = "/home/dev/project";

/** A run as Pi appends it: the prompt, a bash call, its output, the answer (reporting `input` tokens). */
function appendRun(sm: SessionManager, turn: number, input: number): void {
  const base = { api: "faux", provider: "faux", model: "faux", usage: { input, output: 10, cacheRead: 0, cacheWrite: 0, totalTokens: input + 10, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } } };
  const id = `call_${String(turn)}`;
  sm.appendMessage({ role: "user", content: `run the build, step ${String(turn)}`, timestamp: turn * 1000 });
  sm.appendMessage({ ...base, role: "assistant", content: [{ type: "toolCall", id, name: "bash", arguments: { command: `./build.sh ${String(turn)}` } }], stopReason: "toolUse", timestamp: turn * 1000 + 1 } as never);
  const output = Array.from({ length: 40 }, (_, i) => `step ${String(turn)} line ${String(i)}: compiled src/mod${String(turn)}.ts ok`).join("\n");
  sm.appendMessage({ role: "toolResult", toolCallId: id, toolName: "bash", content: [{ type: "text", text: `${output}\nerror: src/mod${String(turn)}.ts:3 missing export` }], isError: false, timestamp: turn * 1000 + 2 } as never);
  sm.appendMessage({ ...base, role: "assistant", content: [{ type: "text", text: `Step ${String(turn)} built.` }], stopReason: "stop", timestamp: turn * 1000 + 3 } as never);
}

function ctxOf(sm: SessionManager, contextWindow: number): Parameters<typeof checkGate>[1] {
  return {
    cwd: CWD,
    hasUI: false,
    sessionManager: sm,
    model: { id: "faux", provider: "faux", api: "faux", contextWindow },
    ui: new Proxy({}, { get: () => () => undefined }),
    getSystemPrompt: () => "",
    getContextUsage: () => undefined,
    compact: () => undefined,
  } as unknown as Parameters<typeof checkGate>[1];
}

/** `runs` runs, the gate at each run's end with the window `windowAt(turn)` gives; the tracker's reads and the facts fed. */
async function gateOver(runs: number, windowAt: (turn: number) => number): Promise<{ reads: number; lastIndex: number; artifacts: unknown }> {
  const sm = SessionManager.create(CWD, join(tempDir("gate-reads-"), "sessions"));
  const runtimes = new RuntimeRegistry(DEFAULT_FOLD_OPTIONS);
  const compactions = new CompactionRegistry(runtimes, DEFAULT_COMPACTION_OPTIONS);
  for (let turn = 1; turn <= runs; turn++) {
    appendRun(sm, turn, 2000);
    await checkGate(compactions, ctxOf(sm, windowAt(turn)), "agent_end");
  }
  const { runtime, session } = await compactions.get(ctxOf(sm, windowAt(runs)));
  if (session === undefined) throw new Error("no compaction session");
  return { reads: runtime.folder.target?.ledger.reads ?? -1, lastIndex: session.facts.lastIndex, artifacts: session.facts.accumulator.artifacts() };
}

/** 2,000 tokens of a million: far under every limit. */
const WIDE = 1_000_000;
/** 2,000 tokens of 2,400: past PREPARE_AHEAD_AT of the soft limit, near a compaction. */
const NARROW = 2400;

describe("the compaction gate at a run's end", () => {
  it("reads nothing and feeds nothing far from a compaction, once the facts hold something", async () => {
    // Run 1 has nothing settled (the feed stops before the last user message); run 2's end feeds run 1.
    const two = await gateOver(2, () => WIDE);
    expect(two.reads).toBe(2);
    expect(two.lastIndex).toBeGreaterThanOrEqual(0);
    // Four runs more, far: not one read, nothing fed.
    const six = await gateOver(6, () => WIDE);
    expect(six.reads).toBe(2);
    expect(six.lastIndex).toBe(two.lastIndex);
  });

  it("near a compaction feeds every run appended since: the facts a feed at each run's end makes", async () => {
    const eachRun = await gateOver(6, () => NARROW);
    expect(eachRun.reads).toBe(6);
    // Far for five runs (read at the first two only), near at the sixth: one read, four runs' facts fed in one go.
    const caughtUp = await gateOver(6, (turn) => (turn < 6 ? WIDE : NARROW));
    expect(caughtUp.reads).toBe(3);
    expect(caughtUp.lastIndex).toBeGreaterThan(0);
    expect(caughtUp.lastIndex).toBe(eachRun.lastIndex);
    expect(caughtUp.artifacts).toEqual(eachRun.artifacts);
  });
});
