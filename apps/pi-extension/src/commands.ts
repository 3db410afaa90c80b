// Slash commands: `/recall <query> [scope:…] [page:N]` (results shown and handed to the agent) and
// `/context-fold [status | unfold <code> | compact]`. Every handler catches everything and tells the user.
import type { ExtensionAPI, ExtensionCommandContext } from "@earendil-works/pi-coding-agent";
import { outputContext } from "./command-output.js";
import { RECALL_MESSAGE_TYPE } from "@context-fold/recall-engine";
import { compactCommand } from "./compaction/compaction-events.js";
import { UNFOLD_ENTRY } from "./fold/fold-state.js";
import { foldCompletions } from "./fold-completions.js";
import { showFooter } from "./footer-status.js";
import { renderRecallMessage } from "./render/recall-render.js";
import { notifier, type RuntimeRegistry } from "./runtime-registry.js";
import { statusText } from "./status-text.js";

/** customType of the message `/recall` puts into the conversation (not history: recall never finds it). */
export const RECALL_MESSAGE = RECALL_MESSAGE_TYPE;

export interface RecallArgs {
  readonly query: string;
  readonly scope?: string;
  readonly page?: number;
}

/** `/recall`'s own way to ask for a page, named in the results' "More:" hint. */
const COMMAND_PAGE = (page: number): string => `page:${String(page)}`;

/** `<query words…> [scope:<scope>] [page:<n>]`, in any order. */
export function parseRecallArgs(args: string): RecallArgs {
  const words: string[] = [];
  let scope: string | undefined;
  let page: number | undefined;
  for (const word of args.split(/\s+/)) {
    if (word.length === 0) continue;
    if (word.startsWith("scope:") && word.length > 6) scope = word.slice(6);
    else if (word.startsWith("page:") && /^[1-9][0-9]{0,6}$/.test(word.slice(5))) page = Number(word.slice(5));
    else words.push(word);
  }
  return { query: words.join(" "), ...(scope === undefined ? {} : { scope }), ...(page === undefined ? {} : { page }) };
}

/** `/recall` (and `/pi-vcc-recall`, which names itself in its messages). */
export async function recallCommand(pi: ExtensionAPI, registry: RuntimeRegistry, args: string, ctx: ExtensionCommandContext, name = "recall"): Promise<void> {
  const runtime = await registry.get(ctx);
  if (runtime.recall === undefined) {
    ctx.ui.notify(`/${name}: this session has no session file, so there is nothing to recall.`, "warning");
    return;
  }
  if (!runtime.recall.written()) {
    ctx.ui.notify(`/${name}: nothing to recall yet: Pi writes this session to disk with its first reply.`, "warning");
    return;
  }
  const request = parseRecallArgs(args);
  const results = await runtime.recall.search({ ...request, pageSyntax: COMMAND_PAGE });
  ctx.ui.notify(results, "info");
  // In the conversation too, so the agent reads what the user just looked up.
  pi.sendMessage({ customType: RECALL_MESSAGE, content: `Recall results the user asked for (/${name} ${args.trim()}):\n${results}`, display: true });
}

async function foldCommand(pi: ExtensionAPI, registry: RuntimeRegistry, args: string, ctx: ExtensionCommandContext): Promise<void> {
  const runtime = await registry.get(ctx);
  const [verb, code] = args.trim().split(/\s+/);
  if (verb === "unfold") {
    if (code === undefined || code.length === 0) {
      ctx.ui.notify("Usage: /context-fold unfold <code>", "warning");
      return;
    }
    const span = runtime.folder.state.unfold(code);
    if (span === undefined) {
      ctx.ui.notify(`/context-fold: no folded block has code ${code}.`, "warning");
      return;
    }
    // Recorded in the session so a restart keeps it unfolded (the seed index itself is append-only).
    pi.appendEntry(UNFOLD_ENTRY, { code: span.code, blockId: span.blockId });
    showFooter(ctx, runtime);
    ctx.ui.notify(`Unfolded ${span.code} (${span.blockId}): it goes to the model verbatim from the next call on.`, "info");
    return;
  }
  if (verb === "compact") {
    compactCommand(ctx);
    return;
  }
  if (verb !== undefined && verb !== "" && verb !== "status") {
    ctx.ui.notify("Usage: /context-fold [status | unfold <code> | compact]", "warning");
    return;
  }
  ctx.ui.notify(statusText(runtime), "info");
}

export function registerCommands(pi: ExtensionAPI, registry: RuntimeRegistry): void {
  pi.registerMessageRenderer(RECALL_MESSAGE, renderRecallMessage);
  pi.registerCommand("recall", {
    description: "Search this session (also folded output): /recall <words | regex like fail.*build or hook|inject | /regex/> [scope:lineage|all|compaction:N] [page:N]",
    handler: async (args, commandCtx) => {
      const ctx = outputContext(commandCtx);
      try {
        await recallCommand(pi, registry, args, ctx);
      } catch (error) {
        notifier(ctx, "error")(`/recall failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    },
  });
  pi.registerCommand("context-fold", {
    description: "context-fold status (folds, tokens masked, next fold), `/context-fold unfold <code>` or `/context-fold compact`",
    getArgumentCompletions: (prefix) => foldCompletions(prefix, registry.opened()?.folder.state.spans() ?? []),
    handler: async (args, commandCtx) => {
      const ctx = outputContext(commandCtx);
      try {
        await foldCommand(pi, registry, args, ctx);
      } catch (error) {
        notifier(ctx, "error")(`/context-fold failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    },
  });
}
