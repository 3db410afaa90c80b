// Memory across sessions, wired into Pi from one place (extension.ts calls `registerMemory`): the
// tools at session start, auto-recall before each prompt, auto-retain after each agent run, /memory, and a
// bounded outbox flush at shutdown. Off (nothing registered) until a bank URL is configured.
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { ExtensionSettings } from "../config/settings.js";
import type { RuntimeRegistry } from "../runtime-registry.js";
import type { SessionRuntime } from "../session-runtime.js";
import { registerAutoRecall, type SessionOf } from "./auto-recall.js";
import { registerAutoRetain } from "./auto-retain.js";
import { registerMemoryCommand } from "./memory-command.js";
import { MemoryService, type MemorySession } from "./memory-service.js";
import { registerMemoryTools } from "./memory-tools.js";

export function registerMemory(pi: ExtensionAPI, registry: RuntimeRegistry, settings: Pick<ExtensionSettings, "memory">): MemoryService | undefined {
  // Validated with every other option (settings.ts); its warnings are among settingsNotices'.
  const memory = settings.memory;
  if (memory === undefined) return undefined;
  const service = new MemoryService(memory);
  // The session last used: shutdown flushes it (the registry is reset by then, and a fresh outbox
  // object for the same file would race the one still flushing).
  let last: { runtime: SessionRuntime; memory: MemorySession } | undefined;
  const sessionOf: SessionOf = async (ctx: ExtensionContext) => {
    const runtime = await registry.get(ctx);
    last = { runtime, memory: await service.session(runtime, ctx.cwd, () => ctx.sessionManager.getEntries()) };
    return last;
  };
  let tools: { registered: string[]; skipped: string[] } = { registered: [], skipped: [] };
  let toolsDone = false;
  pi.on("session_start", (_event, ctx) => {
    try {
      if (!toolsDone) {
        toolsDone = true;
        tools = registerMemoryTools(pi, service, sessionOf, memory.tools);
        if (tools.skipped.length > 0) ctx.ui.notify(`context-fold: memory tool(s) ${tools.skipped.join(", ")} not registered: another extension already provides ${tools.skipped.length === 1 ? "that name" : "those names"}.`, "info");
      }
    } catch {
      // nothing of ours reaches Pi
    }
  });
  if (memory.autoRecall) registerAutoRecall(pi, registry, service, sessionOf);
  const drain = memory.autoRetain ? registerAutoRetain(pi, service, sessionOf) : undefined;
  registerMemoryCommand(pi, service, sessionOf, () => tools);
  pi.on("session_shutdown", async () => {
    try {
      if (last === undefined) return;
      const { runtime, memory: session } = last;
      const deadline = memory.shutdownFlushMs;
      const started = performance.now();
      if (drain !== undefined) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([drain(runtime), new Promise((resolve) => (timer = setTimeout(resolve, deadline)))]);
        clearTimeout(timer);
      }
      await service.flushWithin(session, deadline - (performance.now() - started));
    } catch {
      // whatever is unsent stays in the outbox for the next session
    }
  });
  return service;
}
