// Auto-retain: after every turn, what the session added that is worth remembering (retain-items.ts)
// goes into the outbox and the outbox is flushed — off Pi's path (the handler returns at once; the
// work is queued per session, so two turns never extract at the same time).
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { createFactsAccumulator } from "@context-fold/extractors";
import { lineageBlocks } from "@context-fold/ledger-reader";
import { runtimeSession } from "../handoff/runtime-handoff.js";
import type { SessionRuntime } from "../session-runtime.js";
import { type SessionOf, tellerOf } from "./auto-recall.js";
import type { MemoryService, MemorySession, Tell } from "./memory-service.js";
import { blockRefs, retainItems } from "./retain-items.js";

/** Extract and enqueue the session's memories, then flush. Returns the number of new items. */
export async function retainSession(service: MemoryService, runtime: SessionRuntime, memory: MemorySession, cwd: string, tell?: Tell): Promise<number> {
  if (service.off(memory)) return 0;
  const session = await runtimeSession(runtime);
  if (session === undefined) return 0;
  const blocks = lineageBlocks(session);
  const facts = createFactsAccumulator({ cwd: session.header.cwd ?? cwd });
  facts.add(blocks);
  const items = retainItems({ facts: facts.facts(), artifacts: facts.artifacts(), blocks: blockRefs(blocks), sessionId: memory.sessionId, project: memory.project.name });
  const added = await service.enqueue(memory, items, memory.bankId, tell);
  if (memory.outbox.items.length > 0) await service.flush(memory, tell);
  return added;
}

/** Registers the turn hook; returns how to wait for a session's queued retains (shutdown). */
export function registerAutoRetain(pi: ExtensionAPI, service: MemoryService, sessionOf: SessionOf): (runtime: SessionRuntime) => Promise<unknown> {
  const queues = new WeakMap<SessionRuntime, Promise<unknown>>();
  const run = (ctx: ExtensionContext): void => {
    void (async () => {
      const { runtime, memory } = await sessionOf(ctx);
      const tell = tellerOf(ctx);
      const next = (queues.get(runtime) ?? Promise.resolve())
        .then(() => retainSession(service, runtime, memory, ctx.cwd, tell))
        .catch((error: unknown) => {
          service.lastError = `auto-retain: ${error instanceof Error ? error.message : String(error)}`;
        });
      queues.set(runtime, next);
      await next;
    })().catch(() => undefined);
  };
  pi.on("turn_end", (_event, ctx) => {
    try {
      run(ctx);
    } catch {
      // nothing of ours reaches Pi
    }
    return undefined;
  });
  return (runtime) => queues.get(runtime) ?? Promise.resolve();
}
