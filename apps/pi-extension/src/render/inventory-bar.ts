// The inventory as one stacked bar: floor / tool output / dormant / live, each bucket's reclaimable part
// marked, against the context window when it is known (the rest is free). Cells are shared out by the
// largest-remainder rule, so the same inventory always draws the same bar and the cells add up exactly.
import type { ContextInventory } from "@context-fold/extractors";

/** Cells of the bar. */
export const BAR_WIDTH = 50;

const GLYPH = { floor: "█", toolOutput: "▓", dormant: "▒", live: "░", reclaimable: "×", free: " " } as const;
type Part = keyof typeof GLYPH;

/** Share `width` cells among `values` in proportion (largest remainder; ties to the earlier part). */
export function shareCells(values: readonly number[], width: number): number[] {
  const total = values.reduce((a, b) => a + b, 0);
  if (total <= 0) return values.map(() => 0);
  const exact = values.map((v) => (v * width) / total);
  const cells = exact.map(Math.floor);
  let left = width - cells.reduce((a, b) => a + b, 0);
  const order = exact.map((e, i) => ({ i, rest: e - Math.floor(e) })).sort((a, b) => b.rest - a.rest || a.i - b.i);
  for (const { i } of order) {
    if (left <= 0) break;
    cells[i] = (cells[i] ?? 0) + 1;
    left -= 1;
  }
  return cells;
}

/** The bar and its legend (two lines). */
export function inventoryBar(inventory: ContextInventory, contextWindow?: number, width = BAR_WIDTH): string[] {
  const reclaimOf = (bucket: string): number => inventory.items.reduce((n, item) => n + (item.bucket === bucket && item.reclaimable ? item.reclaimableTokens : 0), 0);
  const toolReclaim = Math.min(inventory.toolOutput.tokens, reclaimOf("toolOutput"));
  const dormantReclaim = Math.min(inventory.dormant.tokens, reclaimOf("dormant"));
  const used = inventory.floor.tokens + inventory.toolOutput.tokens + inventory.dormant.tokens + inventory.live.tokens;
  const free = contextWindow !== undefined && contextWindow > used ? contextWindow - used : 0;
  const parts: [Part, number][] = [
    ["floor", inventory.floor.tokens],
    ["toolOutput", inventory.toolOutput.tokens - toolReclaim],
    ["reclaimable", toolReclaim],
    ["dormant", inventory.dormant.tokens - dormantReclaim],
    ["reclaimable", dormantReclaim],
    ["live", inventory.live.tokens],
    ["free", free],
  ];
  const cells = shareCells(parts.map(([, v]) => v), width);
  const bar = parts.map(([part], i) => GLYPH[part].repeat(cells[i] ?? 0)).join("");
  const of = contextWindow === undefined ? "" : ` of ${String(contextWindow)} (${String(Math.round((used / contextWindow) * 100))}%)`;
  const reclaim = toolReclaim + dormantReclaim;
  return [
    `[${bar}] ${String(used)} tokens${of}`,
    `${GLYPH.floor} floor ${String(inventory.floor.tokens)}  ${GLYPH.toolOutput} tool output ${String(inventory.toolOutput.tokens)}  ${GLYPH.dormant} dormant ${String(inventory.dormant.tokens)}  ${GLYPH.live} live ${String(inventory.live.tokens)}  ${GLYPH.reclaimable} reclaimable ${String(reclaim)}`,
  ];
}
