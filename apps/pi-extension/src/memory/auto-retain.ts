// Auto-retain: after every agent run (`agent_end`: the user's prompt answered), what the session added
// that is worth remembering (retain-items.ts) goes into the outbox and the outbox is flushed — off
// Pi's path (the handler returns at once; the work is queued per session, so two runs never extract at
// the same time). Each run feeds only the lineage blocks it added to the facts kept for the session; a
// branch switch starts them again. Not `turn_end`: in Pi 1.6 that is an actionable boundary, and while
// any extension handles it Pi copies the whole branch into a preview session and projects it before
// and after each handler, on every model turn of every run (issue 29).
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { createFactsAccumulator, type FactsAccumulator } from "@context-fold/extractors";
import { lineageBlocks, lineageBlocksAfter, type Session } from "@context-fold/ledger-reader";
import { runtimeSession } from "../handoff/runtime-handoff.js";
import type { SessionRuntime } from "../session-runtime.js";
import { type SessionOf, tellerOf } from "./auto-recall.js";
import type { MemoryService, MemorySession, Tell } from "./memory-service.js";
import { BlockRefs, retainItems } from "./retain-items.js";

/** What auto-retain has taken in for one session: facts and block refs, grown turn by turn. */
interface RetainFeed {
  readonly session: Session;
  readonly facts: FactsAccumulator;
  readonly refs: BlockRefs;
  /** The lineage leaf when last fed: while it stays on the lineage, only entries after it are new. */
  readonly leafId: string | null;
}

const feeds = new WeakMap<object, RetainFeed>();

/**
 * The facts and refs of `owner`'s session (a runtime), fed with what the lineage gained since the last
 * call; from the start on a new branch or a session read again from scratch (its block list is new).
 */
export function retainFeed(owner: object, session: Session, cwd: string): Pick<RetainFeed, "facts" | "refs"> {
  const previous = feeds.get(owner);
  const fresh = previous !== undefined && previous.session.blocks === session.blocks && previous.leafId !== null ? lineageBlocksAfter(session, previous.leafId) : undefined;
  const feed: RetainFeed =
    previous !== undefined && fresh !== undefined
      ? { ...previous, session, leafId: session.leafId }
      : { session, facts: createFactsAccumulator({ cwd: session.header.cwd ?? cwd }), refs: new BlockRefs(), leafId: session.leafId };
  const blocks = fresh !== undefined && previous !== undefined ? fresh : lineageBlocks(session);
  feed.facts.add(blocks);
  feed.refs.add(blocks);
  feeds.set(owner, feed);
  return feed;
}

/** Extract and enqueue the session's memories, then flush. Returns the number of new items. */
export async function retainSession(service: MemoryService, runtime: SessionRuntime, memory: MemorySession, cwd: string, tell?: Tell): Promise<number> {
  if (service.off(memory)) return 0;
  const session = await runtimeSession(runtime);
  if (session === undefined) return 0;
  const { facts, refs } = retainFeed(runtime, session, cwd);
  const items = retainItems({ facts: facts.facts(), artifacts: facts.artifacts(), blocks: refs.refs, sessionId: memory.sessionId, project: memory.project.name });
  const added = await service.enqueue(memory, items, memory.bankId, tell);
  if (memory.outbox.items.length > 0) await service.flush(memory, tell);
  return added;
}

/** Registers the run's-end hook; returns how to wait for a session's queued retains (shutdown). */
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
  pi.on("agent_end", (_event, ctx) => {
    try {
      run(ctx);
    } catch {
      // nothing of ours reaches Pi
    }
    return undefined;
  });
  return (runtime) => queues.get(runtime) ?? Promise.resolve();
}
