// The context inventory of a live Pi session: the messages Pi builds for the model (Pi's own
// buildSessionContext), with our folds applied exactly as the `context` hook applies them, and the floor
// measured from what Pi gives an extension — the effective system prompt and the active tools' declarations.
import { buildSessionContext, type ExtensionAPI, type ExtensionContext } from "@earendil-works/pi-coding-agent";
import { buildInventory, type ContextInventory, messageBlocks } from "@context-fold/extractors";
import { applyFolds } from "../fold/apply-folds.js";
import type { FoldState } from "../fold/fold-state.js";

/** The active tools as declared to the model (name, description, JSON schema), serialized for measuring. */
export function activeToolsText(pi: Pick<ExtensionAPI, "getAllTools" | "getActiveTools">): string {
  const active = new Set(pi.getActiveTools());
  const declared = pi
    .getAllTools()
    .filter((tool) => active.has(tool.name))
    .map((tool) => ({ name: tool.name, description: tool.description, parameters: tool.parameters }));
  return JSON.stringify(declared);
}

/** What the model receives now, as context messages (system messages are the floor, counted apart). */
export function liveMessages(ctx: Pick<ExtensionContext, "sessionManager">, state: FoldState): object[] {
  const manager = ctx.sessionManager;
  const messages = buildSessionContext(manager.getEntries(), manager.getLeafId()).messages.filter((m) => (m as { role?: unknown }).role !== "system") as object[];
  return applyFolds(messages, state) ?? messages;
}

export function liveInventory(pi: Pick<ExtensionAPI, "getAllTools" | "getActiveTools">, ctx: Pick<ExtensionContext, "sessionManager" | "getSystemPrompt" | "cwd">, state: FoldState): ContextInventory {
  const spans = state.spans();
  return buildInventory(messageBlocks(liveMessages(ctx, state)), {
    floor: { systemPrompt: ctx.getSystemPrompt(), tools: activeToolsText(pi) },
    cwd: ctx.cwd,
    folded: new Set(spans.map((s) => s.blockId)),
    codes: spans.map((s): [string, string] => [s.blockId, s.code]),
  });
}
