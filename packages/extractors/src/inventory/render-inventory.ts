// Plain-text rendering of a context inventory (the CLI's human output and the extension's text/widget
// fallback). Deterministic: no locale-dependent number formatting.
import type { ContextInventory, InventoryItem } from "./types.js";

export interface RenderInventoryOptions {
  /** Most tool-output items listed (largest first; default 15). */
  readonly maxToolItems?: number;
  /** Most dormant-content items listed (largest first; default 10). */
  readonly maxDormantItems?: number;
}

function pad(text: string, width: number): string {
  return text.length >= width ? text : `${" ".repeat(width - text.length)}${text}`;
}

function flags(item: InventoryItem): string {
  const out: string[] = [];
  if (item.folded) out.push("folded");
  if (item.dormant) out.push("dormant");
  if (item.redundant) out.push(`redundant:${item.redundantReason ?? "rerun"}${item.supersededBy === undefined ? "" : `→#${String(item.supersededBy)}`}`);
  if (item.reclaimable) out.push(`reclaimable ${String(item.reclaimableTokens)}`);
  return out.join(" ");
}

function itemLine(item: InventoryItem): string {
  const what = item.tool === undefined ? item.kind : `${item.tool}${item.subject === undefined ? "" : ` ${item.subject}`}`;
  const code = item.code === undefined ? "" : ` [${item.code}]`;
  return `  #${String(item.index)} ${what}${code}: ${String(item.tokens)} tok, age ${String(item.ageTurns)}, idle ${String(item.idleTurns)}${flags(item) === "" ? "" : ` — ${flags(item)}`}`;
}

const byTokens = (a: InventoryItem, b: InventoryItem): number => b.tokens - a.tokens || a.index - b.index;

/**
 * The `max` largest of the items `pick` takes (tokens down, then `#N`), and how many it takes: one pass
 * holding at most about 2 × max of them, so an inventory made item by item is never held whole.
 */
function largest(items: readonly InventoryItem[], pick: (item: InventoryItem) => boolean, max: number): { top: InventoryItem[]; count: number } {
  let kept: InventoryItem[] = [];
  let count = 0;
  const room = Math.max(2 * max, 64);
  for (const item of items) {
    if (!pick(item)) continue;
    count++;
    kept.push(item);
    if (kept.length >= room) kept = kept.sort(byTokens).slice(0, max);
  }
  return { top: kept.sort(byTokens).slice(0, max), count };
}

/** The inventory as text: totals, buckets, per-tool table, largest tool outputs, dormant content. */
export function renderInventory(inventory: ContextInventory, options: RenderInventoryOptions = {}): string {
  const inv = inventory;
  const out: string[] = [];
  out.push(`Context inventory at turn ${String(inv.currentTurn)} (tokens estimated as ${inv.estimator}; dormant after ${String(inv.dormantTurns)} idle turns)`);
  const part = (n: number | null): string => (n === null ? "?" : String(n));
  const floorText = inv.floor.known
    ? `${pad(String(inv.floor.tokens), 9)} (system prompt ${part(inv.floor.systemPrompt)}, tools ${part(inv.floor.tools)})`
    : (inv.floor.note ?? "unknown");
  out.push(`  total        ${pad(String(inv.total.tokens), 9)}${inv.floor.known ? "" : " (floor not included)"}`);
  out.push(`  floor        ${floorText}`);
  // The three lines below partition the total: tool output, then the rest split into dormant and live.
  const dormantOutputs = inv.toolOutput.byTool.reduce((n, t) => n + t.dormantItems, 0);
  out.push(`  tool output  ${pad(String(inv.toolOutput.tokens), 9)} in ${String(inv.toolOutput.items)} items (${String(dormantOutputs)} of them dormant; by tool below)`);
  out.push(`  other, dormant ${pad(String(inv.dormant.tokens), 7)} in ${String(inv.dormant.items)} items (older text, thinking and calls)`);
  out.push(`  other, live  ${pad(String(inv.live.tokens), 9)} in ${String(inv.live.items)} items`);
  out.push(`  reclaimable  ${pad(String(inv.reclaimable.tokens), 9)} in ${String(inv.reclaimable.items)} items (net of a ${String(inv.stubTokens)}-token stub each)`);
  out.push(`  redundant    ${pad(String(inv.redundant.tokens), 9)} in ${String(inv.redundant.items)} items`);
  if (inv.toolOutput.byTool.length > 0) {
    out.push("", "Tool output by tool:");
    out.push(`  ${"tool".padEnd(16)}${pad("items", 6)}${pad("tokens", 9)}${pad("dormant", 8)}${pad("redund", 7)}${pad("reclaim", 8)}${pad("reclaim-tok", 12)}${pad("oldest", 7)}`);
    for (const t of inv.toolOutput.byTool) {
      out.push(
        `  ${t.tool.padEnd(16)}${pad(String(t.items), 6)}${pad(String(t.tokens), 9)}${pad(String(t.dormantItems), 8)}${pad(String(t.redundantItems), 7)}${pad(String(t.reclaimableItems), 8)}${pad(String(t.reclaimableTokens), 12)}${pad(String(t.oldestAgeTurns), 7)}`,
      );
    }
    const max = options.maxToolItems ?? 15;
    const outputs = largest(inv.items, (i) => i.bucket === "toolOutput", max);
    out.push("", `Largest tool output (${String(Math.min(max, outputs.count))} of ${String(outputs.count)}):`);
    for (const item of outputs.top) out.push(itemLine(item));
  }
  const max = options.maxDormantItems ?? 10;
  const dormant = largest(inv.items, (i) => i.bucket === "dormant", max);
  if (dormant.count > 0) {
    out.push("", `Dormant content (${String(Math.min(max, dormant.count))} of ${String(dormant.count)}, largest first):`);
    for (const item of dormant.top) out.push(itemLine(item));
  }
  return out.join("\n");
}
