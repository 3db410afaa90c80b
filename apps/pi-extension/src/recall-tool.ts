// The `context_recall` tool: search the session, expand `#N` entries, or bring back a folded block by
// its code — text verified by sha256 against the session file. Failures come back as tool errors.
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { type Static, Type } from "typebox";
import { renderRecallResult } from "./render/recall-render.js";
import type { RuntimeRegistry } from "./runtime-registry.js";

export const RECALL_TOOL = "context_recall";

export const RecallParams = Type.Object({
  code: Type.Optional(Type.String({ description: "Fold code from a `[context-fold <code>]` stub: returns that block's full text, verified." })),
  query: Type.Optional(
    Type.String({
      description:
        "Words, identifiers (a prefix or a piece of one finds it), an error line, a path, or a regex: `/regex/`, or bare regex syntax as in pi-vcc (`fail.*build`, `hook|inject`, `\\d`, `[0-9]+`, `^…`, `…$`). Empty or absent with no code/expand: the latest entries.",
    }),
  ),
  scope: Type.Optional(
    Type.String({ description: "`lineage` (default: the current branch), `all` (every branch), `compaction:N`, `compaction:latest`, or `sessions` (every session of this project; each hit names its session)." }),
  ),
  session: Type.Optional(Type.String({ description: "With `expand` or `code`: the session a `scope: \"sessions\"` hit names (default: this session)." })),
  page: Type.Optional(Type.Integer({ minimum: 1, description: "Result page (1-based) when a search has more pages." })),
  expand: Type.Optional(Type.Array(Type.Integer({ minimum: 0 }), { description: "`#N` entry numbers from search results to show in full." })),
});
export type RecallParamsType = Static<typeof RecallParams>;

export const RECALL_DESCRIPTION = [
  "Recall earlier parts of this session that are no longer shown in full.",
  "Old tool outputs and thinking are folded into stubs like `[context-fold k3f9a2b7qx] folded tool output of bash: …`; pass that code as `code` to get the exact original text back (checked against the session file).",
  "To find something whose code you do not know (an error message, an identifier, a file path, a decision), pass `query`; results list `#N` entry numbers — pass them as `expand` to read those entries in full.",
  "Prefer one precise recall over re-running a command whose output was folded.",
].join(" ");

/** The tool's own way to ask for a page, named in the results' "More:" hint. */
const TOOL_PAGE = (page: number): string => `page: ${String(page)}`;

type ToolResult = { content: { type: "text"; text: string }[]; details: { ok: boolean }; isError?: boolean };

function text(value: string, ok = true): ToolResult {
  return ok ? { content: [{ type: "text", text: value }], details: { ok } } : { content: [{ type: "text", text: value }], details: { ok }, isError: true };
}

export function registerRecallTool(pi: ExtensionAPI, registry: RuntimeRegistry): void {
  pi.registerTool({
    name: RECALL_TOOL,
    label: "Context recall",
    description: RECALL_DESCRIPTION,
    promptSnippet: "Recall folded tool output by code, or search earlier parts of this session",
    promptGuidelines: [
      "When a tool result shows a `[context-fold <code>]` stub and you need its content, call context_recall with that code instead of re-running the tool.",
    ],
    parameters: RecallParams,
    renderResult: (result, options, theme) => renderRecallResult(result, options, theme),
    async execute(_toolCallId, params: RecallParamsType, _signal, _onUpdate, ctx): Promise<ToolResult> {
      try {
        const runtime = await registry.get(ctx);
        if (runtime.recall === undefined) return text("context_recall: this session has no session file, so there is nothing to recall from.", false);
        if (params.code !== undefined && params.code.trim().length > 0) {
          const recalled = await runtime.recall.byCode(params.code.trim(), params.session);
          return text(recalled.text, recalled.verified);
        }
        if (params.expand !== undefined && params.expand.length > 0) return text(await runtime.recall.expand(params.expand, params.session));
        return text(await runtime.recall.search({ query: params.query, scope: params.scope, page: params.page, pageSyntax: TOOL_PAGE }));
      } catch (error) {
        return text(`context_recall failed: ${error instanceof Error ? error.message : String(error)}`, false);
      }
    },
  });
}
