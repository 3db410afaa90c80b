// The run table is a cache of how runs split: bounded in memory (it starts over when full), and what
// it forgets only costs splitting a run again — the postings and term ids never change.
import { describe, expect, it } from "vitest";
import { MAX_RECORD_INTS, MAX_RUNS, RunTable } from "../src/run-table.js";
import { buildSegment } from "../src/segment-build.js";
import { TermTable } from "../src/term-table.js";

/** Documents whose runs are recorded (capitals and joiners: not their own only term), many distinct, many repeated. */
function documents(count: number, distinct: number): string[] {
  return Array.from({ length: count }, (_, d) => {
    const words: string[] = [];
    for (let k = 0; k < 40; k++) {
      const n = (d * 40 + k) % distinct;
      words.push(k % 3 === 0 ? `FooBar${String(n)}` : k % 3 === 1 ? `src/mod${String(n % 97)}/file-${String(n)}.ts` : `Repeated runs here`);
    }
    return words.join(" ");
  });
}

function build(texts: readonly string[], runs: RunTable, split: number): { table: TermTable; segs: ReturnType<typeof buildSegment>["seg"][] } {
  const table = new TermTable([]);
  let scratch = new Int32Array(16);
  const segs = [];
  // Two segments: the second (an append) answers from the table the first filled — or started over.
  for (const [from, to] of [[0, split], [split, texts.length]] as const) {
    const built = buildSegment(table, runs, from, texts.slice(from, to), scratch);
    scratch = built.scratch;
    segs.push(built.seg);
  }
  return { table, segs };
}

describe("run table bound", () => {
  it("a table that starts over many times gives the same terms and postings as one that never does", () => {
    const texts = documents(400, 3000);
    const roomy = new RunTable();
    const tight = new RunTable({ maxInts: 4096, maxRuns: 64 });
    const a = build(texts, roomy, 150);
    const b = build(texts, tight, 150);
    expect(tight.runs).toBeLessThan(64);
    expect(roomy.runs).toBeGreaterThan(1000);
    expect(b.table.terms).toEqual(a.table.terms);
    for (let k = 0; k < a.segs.length; k++) {
      const [x, y] = [a.segs[k], b.segs[k]];
      expect(Array.from(y?.offsets ?? []), `segment ${String(k)} offsets`).toEqual(Array.from(x?.offsets ?? []));
      expect(Array.from(y?.postings ?? []), `segment ${String(k)} postings`).toEqual(Array.from(x?.postings ?? []));
      expect(Array.from(y?.termIds ?? []), `segment ${String(k)} term ids`).toEqual(Array.from(x?.termIds ?? []));
    }
  });

  it("holds at most its bound however many distinct runs pass", () => {
    const runs = new RunTable();
    const table = new TermTable([]);
    // 2.5 × MAX_RUNS distinct recorded runs: the table fills and starts over at least twice.
    const texts = Array.from({ length: 400 }, (_, d) => Array.from({ length: 410 }, (_, k) => `Run${String(d * 410 + k)}`).join(" "));
    let scratch = new Int32Array(16);
    for (let d = 0; d < texts.length; d += 100) {
      const built = buildSegment(table, runs, d, texts.slice(d, d + 100), scratch);
      scratch = built.scratch;
      expect(runs.bytes).toBeLessThanOrEqual(4 * (MAX_RECORD_INTS + 4 * MAX_RUNS));
    }
    expect(runs.runs).toBeLessThan(MAX_RUNS);
    expect(table.terms.length).toBeGreaterThan(2 * MAX_RUNS);
  });
});
