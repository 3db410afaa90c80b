// pi-vcc's names for what we already do, so a pi-vcc user keeps their habits: the `vcc_recall` tool
// (pi-vcc's parameters: query, scope, page, expand), `/pi-vcc` (compact now, through our hook) and
// `/pi-vcc-recall <query> [scope:…] [page:…]`. They are registered at session start, once every extension
// has loaded, so a name another extension (pi-vcc itself, say) already holds is left to it: Pi keeps the
// first tool of a name and renames clashing commands (`/pi-vcc:1`, `/pi-vcc:2`), both worse than one owner.
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { type Static, Type } from "typebox";
import { outputContext } from "../command-output.js";
import { compactCommand } from "../compaction/compaction-events.js";
import { recallCommand } from "../commands.js";
import { renderRecallResult } from "../render/recall-render.js";
import { notifier, type RuntimeRegistry } from "../runtime-registry.js";

export const VCC_RECALL_TOOL = "vcc_recall";
export const VCC_COMPACT_COMMAND = "pi-vcc";
export const VCC_RECALL_COMMAND = "pi-vcc-recall";

export const VccRecallParams = Type.Object({
  query: Type.Optional(Type.String({ description: "Words, identifiers, an error line, a path, or a regex (`hook|inject`). Empty: the latest entries." })),
  scope: Type.Optional(Type.String({ description: "`lineage` (default: the active branch), `all` (every branch), `compaction:N` or `compaction:latest`." })),
  page: Type.Optional(Type.Integer({ minimum: 1, description: "Result page (1-based) when a search has more pages." })),
  expand: Type.Optional(Type.Array(Type.Integer({ minimum: 0 }), { description: "`#N` entry numbers from search results to show in full, untruncated." })),
});
export type VccRecallParamsType = Static<typeof VccRecallParams>;

type ToolResult = { content: { type: "text"; text: string }[]; details: { ok: boolean }; isError?: boolean };

function result(text: string, ok: boolean): ToolResult {
  return ok ? { content: [{ type: "text", text }], details: { ok } } : { content: [{ type: "text", text }], details: { ok }, isError: true };
}

/** Names of ours another extension already registered (a tool or a command of that name exists). */
export function takenNames(pi: Pick<ExtensionAPI, "getAllTools" | "getCommands">): string[] {
  const tools = new Set(pi.getAllTools().map((t) => t.name));
  // A clashing command is listed as `name:N`; any of them means the name is taken.
  const commands = new Set(pi.getCommands().map((c) => c.name.replace(/:[0-9]{1,6}$/, "")));
  const taken: string[] = [];
  if (tools.has(VCC_RECALL_TOOL)) taken.push(VCC_RECALL_TOOL);
  for (const name of [VCC_COMPACT_COMMAND, VCC_RECALL_COMMAND]) if (commands.has(name)) taken.push(`/${name}`);
  return taken;
}

function registerVccRecallTool(pi: ExtensionAPI, registry: RuntimeRegistry): void {
  pi.registerTool({
    name: VCC_RECALL_TOOL,
    label: "vcc recall",
    description:
      "Search this session's full history, also what compaction or folding removed from view (pi-vcc's tool, served by context-fold). Pass `query`; results list `#N` entries — pass them as `expand` to read them in full. For a `[context-fold <code>]` stub, context_recall takes the code.",
    promptSnippet: "Search earlier parts of this session across compactions",
    parameters: VccRecallParams,
    renderResult: (result, options, theme) => renderRecallResult(result, options, theme),
    async execute(_toolCallId, params: VccRecallParamsType, _signal, _onUpdate, ctx): Promise<ToolResult> {
      try {
        const runtime = await registry.get(ctx);
        if (runtime.recall === undefined) return result(`${VCC_RECALL_TOOL}: this session has no session file, so there is nothing to recall from.`, false);
        if (!runtime.recall.written()) return result(`${VCC_RECALL_TOOL}: nothing to recall yet: this session has not been written to disk.`, false);
        if (params.expand !== undefined && params.expand.length > 0) return result(await runtime.recall.expand(params.expand), true);
        return result(await runtime.recall.search({ query: params.query, scope: params.scope, page: params.page }), true);
      } catch (error) {
        return result(`${VCC_RECALL_TOOL} failed: ${error instanceof Error ? error.message : String(error)}`, false);
      }
    },
  });
}

/**
 * Register the pi-vcc names not already taken. Call at session start (all extensions loaded); registers
 * at most once per extension instance. Returns the names skipped (told to the user in one notice).
 */
export function registerVccNames(pi: ExtensionAPI, registry: RuntimeRegistry): (ctx: ExtensionContext) => string[] {
  let done = false;
  return (ctx) => {
    if (done) return [];
    done = true;
    const taken = takenNames(pi);
    if (!taken.includes(VCC_RECALL_TOOL)) registerVccRecallTool(pi, registry);
    if (!taken.includes(`/${VCC_COMPACT_COMMAND}`)) {
      pi.registerCommand(VCC_COMPACT_COMMAND, {
        description: "Compact now (pi-vcc's command, served by context-fold's compaction; same as /context-fold compact)",
        handler: (_args, rawCtx) => {
          const commandCtx = outputContext(rawCtx);
          try {
            compactCommand(commandCtx);
          } catch (error) {
            notifier(commandCtx, "error")(`/${VCC_COMPACT_COMMAND} failed: ${error instanceof Error ? error.message : String(error)}`);
          }
          return Promise.resolve();
        },
      });
    }
    if (!taken.includes(`/${VCC_RECALL_COMMAND}`)) {
      pi.registerCommand(VCC_RECALL_COMMAND, {
        description: "Search this session (pi-vcc's command; same as /recall): /pi-vcc-recall <query> [scope:lineage|all|compaction:N] [page:N]",
        handler: async (args, rawCtx) => {
          const commandCtx = outputContext(rawCtx);
          try {
            await recallCommand(pi, registry, args, commandCtx, VCC_RECALL_COMMAND);
          } catch (error) {
            notifier(commandCtx, "error")(`/${VCC_RECALL_COMMAND} failed: ${error instanceof Error ? error.message : String(error)}`);
          }
        },
      });
    }
    if (taken.length > 0) {
      notifier(ctx, "info")(
        `context-fold: ${taken.join(", ")} ${taken.length === 1 ? "is" : "are"} already registered by another extension (pi-vcc?), so context-fold's ${taken.length === 1 ? "one is" : "are"} skipped; context_recall, /recall and /context-fold compact do the same.`,
      );
    }
    return taken;
  };
}
