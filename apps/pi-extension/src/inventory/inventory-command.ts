// `/context-inventory [off]`: the pre-compaction accounting (floor, tool output per tool with age,
// dormant / redundant / reclaimable flags, dormant content) as a widget above the editor when Pi has a UI,
// as text otherwise (a notice; printed in print/JSON mode); `off` removes the widget. Rendering is the extractors' renderInventory.
import type { ExtensionAPI, ExtensionCommandContext } from "@earendil-works/pi-coding-agent";
import { type ContextInventory, renderInventory } from "@context-fold/extractors";
import { outputContext } from "../command-output.js";
import { notifier, type RuntimeRegistry } from "../runtime-registry.js";
import { inventoryBar } from "../render/inventory-bar.js";
import { liveInventory } from "./live-inventory.js";

/** Widget key of the inventory. */
export const INVENTORY_WIDGET = "context-fold-inventory";

/** The inventory text with Pi's own count beside ours (the estimator's error is visible to the user). */
export function inventoryText(inventory: ContextInventory, reported: { tokens: number | null; contextWindow: number } | undefined): string {
  // The stacked bar first (floor / tool output / dormant / live, reclaimable marked), then the table.
  const text = [...inventoryBar(inventory, reported?.contextWindow), "", renderInventory(inventory, { maxToolItems: 10, maxDormantItems: 8 })].join("\n");
  if (reported === undefined) return text;
  const pi = reported.tokens === null ? "unknown (no count since the last compaction)" : `${String(reported.tokens)} tokens`;
  return `${text}\n\nPi's own count: ${pi} of a ${String(reported.contextWindow)}-token window.`;
}

async function inventoryCommand(pi: ExtensionAPI, registry: RuntimeRegistry, args: string, ctx: ExtensionCommandContext): Promise<void> {
  if (args.trim() === "off") {
    ctx.ui.setWidget(INVENTORY_WIDGET, undefined);
    return;
  }
  const runtime = await registry.get(ctx);
  const inventory = liveInventory(pi, ctx, runtime.folder.state);
  const usage = ctx.getContextUsage();
  const text = inventoryText(inventory, usage === undefined ? undefined : { tokens: usage.tokens, contextWindow: usage.contextWindow });
  if (ctx.hasUI) {
    ctx.ui.setWidget(INVENTORY_WIDGET, text.split("\n"));
    ctx.ui.notify(
      `context-fold: inventory shown above the editor (${String(inventory.total.tokens)} tokens, ${String(inventory.reclaimable.tokens)} reclaimable); /context-inventory off hides it.`,
      "info",
    );
  } else {
    // Without a UI the command context prints it (stdout in print mode, stderr in JSON mode).
    ctx.ui.notify(text, "info");
  }
}

export function registerInventoryCommand(pi: ExtensionAPI, registry: RuntimeRegistry): void {
  pi.registerCommand("context-inventory", {
    description: "What fills the context window: floor, tool output per tool (age, dormant, redundant, reclaimable), dormant content. `off` hides it.",
    handler: async (args, commandCtx) => {
      const ctx = outputContext(commandCtx);
      try {
        await inventoryCommand(pi, registry, args, ctx);
      } catch (error) {
        notifier(ctx, "error")(`/context-inventory failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    },
  });
}
