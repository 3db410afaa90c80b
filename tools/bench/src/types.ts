// One row of the `pnpm bench` table. Each suite (src/suites/<area>.ts) returns rows; bench.ts prints them.
export interface BenchRow {
  /** Area: "ledger", "extract", "compact", "recall", "fold", "seed-index", "gardener", "hindsight", … */
  readonly suite: string;
  /** What was measured, e.g. "full read (tree + blocks)" or "warm query p50". */
  readonly case: string;
  /** Session size label ("1mb", "4mb", "100mb") or a count ("100k records"). */
  readonly size: string;
  readonly value: number;
  readonly unit: "ms" | "records/s" | "MB" | "ratio" | "MB/s" | "count" | "s";
  /** The target from the issue, for the table (e.g. "≤ 60 ms"), if any. */
  readonly target?: string;
  readonly note?: string;
}

export interface BenchContext {
  /** Generated session files by size label, made once per run by session-gen. */
  readonly sessions: Readonly<Record<string, string>>;
  /** Scratch directory for this run. */
  readonly workDir: string;
  /** Sizes requested (`--sizes 1mb,4mb`); suites skip work for sizes not listed. */
  readonly sizes: readonly string[];
}

export type BenchSuite = (ctx: BenchContext) => Promise<BenchRow[]>;
