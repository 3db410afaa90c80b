// `/memory`: status (project, bank, outbox, last error), `recall <query>`, `forget <id>` (soft-
// invalidate, reversible) and `restore <id>`. Every failure is told to the user, never thrown to Pi.
import type { ExtensionAPI, ExtensionCommandContext } from "@earendil-works/pi-coding-agent";
import { type SessionOf, tellerOf } from "./auto-recall.js";
import type { MemoryService, MemorySession } from "./memory-service.js";

export const MEMORY_USAGE = "Usage: /memory [status | recall <query> | forget <memory id> | restore <memory id>]";

export function memoryStatus(service: MemoryService, memory: MemorySession, tools: { registered: readonly string[]; skipped: readonly string[] }): string {
  const s = service.settings;
  const outbox = memory.outbox;
  const waiting = outbox.items.filter((i) => i.state === "pending").length;
  const unsure = outbox.items.length - waiting;
  return [
    `Memory: ${service.off(memory) ? "off for this project (opt-out)" : "on"}; bank ${memory.bankId} at ${s.url}${s.sharedBank === undefined ? "" : `; shared bank ${s.sharedBank}`}.`,
    `Project: ${memory.project.name} (from ${memory.project.source}); recall limited to ${s.recallAllProjects ? "no project (all projects)" : `tag project:${memory.project.name}`}.`,
    `Bank: ${service.down ? "unreachable" : "reachable (as of the last call)"}; last error: ${service.lastError ?? "none"}.`,
    `Outbox: ${String(waiting)} waiting, ${String(unsure)} sent without an answer yet, ${String(outbox.sentCount)} sent, ${String(outbox.dropped)} dropped by the cap (${String(outbox.max)})${outbox.file === undefined ? " (in memory: this session has no file)" : ` — ${outbox.file}`}.`,
    `Auto-recall: ${s.autoRecall ? `on (${String(s.recallBudget)} tokens, ${String(s.recallTimeoutMs)} ms, ${s.recallPersist ? "persisted" : "ephemeral"}); last prompt got ${String(memory.lastRecalled)}` : "off"}. Auto-retain: ${s.autoRetain ? "on" : "off"}.`,
    `Tools: ${tools.registered.length === 0 ? "none" : tools.registered.join(", ")}${tools.skipped.length === 0 ? "" : `; skipped (name taken by another extension): ${tools.skipped.join(", ")}`}.`,
  ].join("\n");
}

export function registerMemoryCommand(pi: ExtensionAPI, service: MemoryService, sessionOf: SessionOf, tools: () => { registered: readonly string[]; skipped: readonly string[] }): void {
  pi.registerCommand("memory", {
    description: "Cross-session memory: /memory [status | recall <query> | forget <id> | restore <id>]",
    handler: async (args: string, ctx: ExtensionCommandContext) => {
      try {
        const { memory } = await sessionOf(ctx);
        const trimmed = args.trim();
        const space = trimmed.search(/\s/);
        const verb = space < 0 ? trimmed : trimmed.slice(0, space);
        const rest = space < 0 ? "" : trimmed.slice(space + 1).trim();
        if (verb === "" || verb === "status") {
          ctx.ui.notify(memoryStatus(service, memory, tools()), "info");
          return;
        }
        if (verb === "recall" && rest !== "") {
          const outcome = await service.recall(memory, rest, { maxTokens: 2000 }, tellerOf(ctx));
          if (!outcome.ok) ctx.ui.notify(`/memory recall: the bank is unreachable (${outcome.error}).`, "warning");
          else if (outcome.memories.length === 0) ctx.ui.notify(`/memory recall: nothing matched "${rest}".`, "info");
          else ctx.ui.notify(outcome.memories.map(({ hit, bankId }) => `${hit.memory.id} [${bankId}] ${hit.memory.text}`).join("\n"), "info");
          return;
        }
        if ((verb === "forget" || verb === "restore") && rest !== "" && !rest.includes(" ")) {
          const state = await service.setValid(memory, rest, verb === "restore");
          ctx.ui.notify(verb === "forget" ? `/memory: ${rest} is now ${state} (reversible: /memory restore ${rest}).` : `/memory: ${rest} is ${state} again.`, "info");
          return;
        }
        ctx.ui.notify(MEMORY_USAGE, "warning");
      } catch (error) {
        ctx.ui.notify(`/memory failed: ${error instanceof Error ? error.message : String(error)}`, "error");
      }
    },
  });
}
