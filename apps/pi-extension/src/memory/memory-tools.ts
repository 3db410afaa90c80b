// The seed's three memory tools — `retain`, `recall`, `reflect` — each on unless switched off. They
// are registered at session start, after every extension has loaded, so a name another extension
// already took (the seed's pi-hindsight) is left to it: ours is skipped with one notice.
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { type Static, Type } from "typebox";
import { type SessionOf, tellerOf } from "./auto-recall.js";
import type { MemoryService } from "./memory-service.js";
import { MEMORY_SOURCE_TAG, projectTag } from "./memory-service.js";

export const RetainParams = Type.Object({
  content: Type.String({ description: "What to remember, stated so it makes sense on its own in a later session." }),
  context: Type.Optional(Type.String({ description: "Where it comes from or when it applies." })),
  tags: Type.Optional(Type.Array(Type.String(), { description: "Extra tags (the project tag is always added)." })),
  shared: Type.Optional(Type.Boolean({ description: "Write to the shared cross-project bank (when one is configured) instead of this project's." })),
});
export const RecallParams = Type.Object({
  query: Type.String({ description: "What to look for, in words." }),
  tags: Type.Optional(Type.Array(Type.String(), { description: "Only memories carrying all of these tags (besides this project's)." })),
  budget: Type.Optional(Type.Union([Type.Literal("low"), Type.Literal("mid"), Type.Literal("high")], { description: "Search effort on a real Hindsight server." })),
  maxTokens: Type.Optional(Type.Integer({ minimum: 50, maximum: 20_000, description: "Most tokens of memories to return (default 2000)." })),
});
export const ReflectParams = Type.Object({
  query: Type.String({ description: "The question to answer from the memories." }),
  tags: Type.Optional(Type.Array(Type.String(), { description: "Only memories carrying all of these tags (besides this project's)." })),
});

type ToolResult = { content: { type: "text"; text: string }[]; details: Record<string, unknown>; isError?: boolean };

function result(text: string, details: Record<string, unknown>, ok = true): ToolResult {
  return ok ? { content: [{ type: "text", text }], details } : { content: [{ type: "text", text }], details, isError: true };
}

export interface ToolSwitch {
  readonly retain: boolean;
  readonly recall: boolean;
  readonly reflect: boolean;
}

/** Register the enabled tools whose names are free; returns the names registered and skipped. */
export function registerMemoryTools(pi: ExtensionAPI, service: MemoryService, sessionOf: SessionOf, enabled: ToolSwitch): { registered: string[]; skipped: string[] } {
  const taken = new Set(pi.getAllTools().map((t) => t.name));
  const registered: string[] = [];
  const skipped: string[] = [];
  const want = (name: keyof ToolSwitch): boolean => {
    if (!enabled[name]) return false;
    if (taken.has(name)) {
      skipped.push(name);
      return false;
    }
    registered.push(name);
    return true;
  };
  const off = "Memory is off for this project (opt-out file or config).";

  if (want("retain")) {
    pi.registerTool({
      name: "retain",
      label: "Retain memory",
      description: "Write a memory to the project's Hindsight memory bank, for later sessions (and teammates sharing the bank). Secrets are redacted before it leaves the machine.",
      promptSnippet: "Remember a durable fact, decision or lesson across sessions",
      parameters: RetainParams,
      async execute(toolCallId, params: Static<typeof RetainParams>, _signal, _onUpdate, ctx: ExtensionContext): Promise<ToolResult> {
        try {
          const { memory } = await sessionOf(ctx);
          if (service.off(memory)) return result(off, { ok: false }, false);
          const shared = params.shared === true && service.settings.sharedBank !== undefined;
          const bankId = shared ? (service.settings.sharedBank ?? memory.bankId) : memory.bankId;
          const documentId = `context-fold:${memory.sessionId}:tool:${toolCallId}`;
          const tags = [...(shared ? [] : [projectTag(memory.project.name)]), MEMORY_SOURCE_TAG, "kind:tool", ...(params.tags ?? [])];
          await service.enqueue(memory, [{ content: params.content, ...(params.context === undefined ? {} : { context: params.context }), documentId, tags, metadata: { session: memory.sessionId, kind: "tool", project: memory.project.name } }], bankId, tellerOf(ctx));
          await service.flush(memory, tellerOf(ctx));
          const waiting = memory.outbox.items.some((i) => i.documentId === documentId);
          return result(waiting ? `Queued for bank ${bankId} (the bank is unreachable now); it is sent when the bank is back. Document ${documentId}.` : `Retained to bank ${bankId} as document ${documentId}.`, { ok: true, bankId, documentId, queued: waiting });
        } catch (error) {
          return result(`retain failed: ${error instanceof Error ? error.message : String(error)}`, { ok: false }, false);
        }
      },
    });
  }
  if (want("recall")) {
    pi.registerTool({
      name: "recall",
      label: "Recall memories",
      description: "Search the project's Hindsight memory bank (memories from earlier sessions): fast, tag-filtered, no model involved. Memories are claims from when they were made.",
      promptSnippet: "Search memories from earlier sessions of this project",
      parameters: RecallParams,
      async execute(_id, params: Static<typeof RecallParams>, _signal, _onUpdate, ctx: ExtensionContext): Promise<ToolResult> {
        try {
          const { memory } = await sessionOf(ctx);
          if (service.off(memory)) return result(off, { ok: false }, false);
          const outcome = await service.recall(memory, params.query, { maxTokens: params.maxTokens ?? 2000, ...(params.tags === undefined ? {} : { tags: params.tags }), ...(params.budget === undefined ? {} : { budget: params.budget }) }, tellerOf(ctx));
          if (!outcome.ok) return result(`recall failed: the memory bank is unreachable (${outcome.error}).`, { ok: false }, false);
          if (outcome.memories.length === 0) return result(`No memory of project ${memory.project.name} matched "${params.query}".`, { ok: true, ids: [] });
          const lines = outcome.memories.map(({ hit, bankId }) => `- ${hit.memory.date === null ? "" : `[${hit.memory.date.slice(0, 10)}] `}${hit.memory.text} (memory ${hit.memory.id}, bank ${bankId}, score ${String(hit.score)})`);
          return result(`${String(lines.length)} memor${lines.length === 1 ? "y" : "ies"} for "${params.query}":\n${lines.join("\n")}`, { ok: true, ids: outcome.memories.map((m) => m.hit.memory.id) });
        } catch (error) {
          return result(`recall failed: ${error instanceof Error ? error.message : String(error)}`, { ok: false }, false);
        }
      },
    });
  }
  if (want("reflect")) {
    pi.registerTool({
      name: "reflect",
      label: "Reflect on memories",
      description: "Answer a question from the project's memories. A real Hindsight server synthesizes with its model; the local bank has none and lists the recalled memories grouped, saying so.",
      promptSnippet: "Answer a question from the project's memory bank",
      parameters: ReflectParams,
      async execute(_id, params: Static<typeof ReflectParams>, _signal, _onUpdate, ctx: ExtensionContext): Promise<ToolResult> {
        try {
          const { memory } = await sessionOf(ctx);
          if (service.off(memory)) return result(off, { ok: false }, false);
          const outcome = await service.reflect(memory, params.query, params.tags ?? [], tellerOf(ctx));
          if (!outcome.ok) return result(`reflect failed: the memory bank is unreachable (${outcome.error}).`, { ok: false }, false);
          return result(outcome.answer.text, { ok: true, basedOn: outcome.answer.basedOn.map((f) => f.id) });
        } catch (error) {
          return result(`reflect failed: ${error instanceof Error ? error.message : String(error)}`, { ok: false }, false);
        }
      },
    });
  }
  return { registered, skipped };
}
