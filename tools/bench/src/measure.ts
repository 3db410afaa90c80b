// Small measuring helpers shared by the suites: percentiles, rounding, and Pi turns for replays.
import type { Block } from "@context-fold/ledger-reader";

export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN;
}

export const round = (n: number, digits = 3): number => Number(n.toFixed(digits));

/** Pi turns: one assistant message with the tool results that answer it (a user message starts its own). */
export function piTurns(blocks: readonly Block[]): Block[][] {
  const turns: Block[][] = [];
  let current: Block[] = [];
  let entry = "";
  for (const block of blocks) {
    const starts = (block.role === "assistant" && block.entryId !== entry) || block.role === "user";
    if (starts && current.length > 0) {
      turns.push(current);
      current = [];
    }
    if (block.role === "assistant") entry = block.entryId;
    current.push(block);
  }
  if (current.length > 0) turns.push(current);
  return turns;
}
