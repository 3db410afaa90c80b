// Auto-recall: before each user prompt reaches the model, this project's best memories for it go along
// in a fenced block — for that prompt's model calls only (ephemeral, the default), or persisted once
// as a message (a memory is never persisted twice in a session). The prompt never waits longer than
// the recall timeout: past it, it goes without memories, and the user is told once per session.
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { setFooterPart, showFooter } from "../footer-status.js";
import type { RuntimeRegistry } from "../runtime-registry.js";
import type { SessionRuntime } from "../session-runtime.js";
import { MEMORY_MESSAGE, type MemoryService, type MemorySession, type RecalledMemory, type Tell } from "./memory-service.js";
import { renderRecallBlock } from "./recall-block.js";

/** Name of our part of the footer (footer-status.ts). */
export const MEMORY_FOOTER_PART = "memory";

/** The footer's memory part: how many memories the last prompt got, or why it got none. */
export function memoryFooterText(memory: Pick<MemorySession, "lastRecalled" | "recallProblem">): string {
  if (memory.recallProblem !== undefined) return `memory ${memory.recallProblem}`;
  return `${String(memory.lastRecalled)} ${memory.lastRecalled === 1 ? "memory" : "memories"} recalled`;
}

interface Ephemeral {
  readonly prompt: string;
  readonly block: string;
}

export function tellerOf(ctx: Pick<ExtensionContext, "ui">): Tell {
  return (text, level) => ctx.ui.notify(text, level);
}

function textOf(message: Record<string, unknown>): string | undefined {
  const content = message["content"];
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return undefined;
  return content.map((p: { type?: string; text?: string }) => (p.type === "text" ? (p.text ?? "") : "")).join("\n");
}

/** `messages` with `block` put in front of the last user message that is `prompt` (undefined: not found). */
export function injectBlock(messages: readonly unknown[], prompt: string, block: string): unknown[] | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i] as Record<string, unknown>;
    if (message["role"] !== "user" || textOf(message)?.trim() !== prompt.trim()) continue;
    const content = message["content"];
    const parts = typeof content === "string" ? [{ type: "text", text: content }] : Array.isArray(content) ? content : [];
    const out = [...messages];
    out[i] = { ...message, content: [{ type: "text", text: block }, ...parts] };
    return out;
  }
  return undefined;
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T | "timeout"> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), ms)));
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

export type SessionOf = (ctx: ExtensionContext) => Promise<{ runtime: SessionRuntime; memory: MemorySession }>;

export function registerAutoRecall(pi: ExtensionAPI, registry: RuntimeRegistry, service: MemoryService, sessionOf: SessionOf): void {
  const settings = service.settings;
  const ephemeral = new WeakMap<SessionRuntime, Ephemeral>();
  pi.on("before_agent_start", async (event, ctx) => {
    try {
      if (event.messageType !== "user" || typeof event.prompt !== "string" || event.prompt.trim() === "") return undefined;
      const { runtime, memory } = await sessionOf(ctx);
      ephemeral.delete(runtime);
      if (service.off(memory)) return undefined;
      setFooterPart(runtime, MEMORY_FOOTER_PART, () => (service.off(memory) ? undefined : memoryFooterText(memory)));
      const tell = tellerOf(ctx);
      const outcome = await withTimeout(service.recallForPrompt(memory, event.prompt, tell), settings.recallTimeoutMs);
      if (outcome === "timeout") {
        if (!memory.recallTimeoutTold) {
          memory.recallTimeoutTold = true;
          tell(`context-fold: memory recall took longer than ${String(settings.recallTimeoutMs)} ms; this prompt went without memories (told once per session).`, "warning");
        }
        memory.recallProblem = "recall timed out";
        showFooter(ctx, runtime);
        return undefined;
      }
      if (!outcome.ok) {
        memory.recallProblem = "bank unreachable";
        showFooter(ctx, runtime);
        return undefined;
      }
      // The bank answered: anything waiting in the outbox can go now (not awaited by the prompt).
      if (memory.outbox.items.length > 0) void service.flush(memory, tell);
      void service.flushOrphans(memory, tell);
      const fresh: RecalledMemory[] = settings.recallPersist ? outcome.memories.filter((m) => !memory.persisted.has(m.hit.memory.id)) : [...outcome.memories];
      const block = renderRecallBlock(fresh, settings.recallBudget);
      memory.lastRecalled = block?.ids.length ?? 0;
      memory.recallProblem = undefined;
      showFooter(ctx, runtime);
      if (block === undefined) return undefined;
      if (!settings.recallPersist) {
        ephemeral.set(runtime, { prompt: event.prompt, block: block.text });
        return undefined;
      }
      for (const id of block.ids) memory.persisted.add(id);
      return { message: { customType: MEMORY_MESSAGE, content: block.text, display: true, details: { ids: [...block.ids] } } };
    } catch {
      return undefined; // auto-recall is best effort: the prompt goes on unchanged
    }
  });
  if (settings.recallPersist) return;
  pi.on("context", async (event, ctx) => {
    try {
      const runtime = await registry.get(ctx);
      const pending = ephemeral.get(runtime);
      if (pending === undefined) return undefined;
      const messages = injectBlock(event.messages, pending.prompt, pending.block);
      return messages === undefined ? undefined : { messages: messages as typeof event.messages };
    } catch {
      return undefined;
    }
  });
}
