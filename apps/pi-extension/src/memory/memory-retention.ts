// Memory across sessions: at each compaction, the session's durable artifacts are retained to a Hindsight
// bank — fire-and-forget. Pi's `session_compact` handler returns at once; the work (reading the session,
// the HTTP call with its timeout) runs afterwards, so a slow or dead bank never delays or blocks a
// compaction. A failure is reported once per session and otherwise changes nothing.
import { basename } from "node:path";
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { HindsightClient } from "@context-fold/memory-gardener-client";
import type { MemoryOptions } from "../config/settings.js";
import { runtimeHandoff } from "../handoff/runtime-handoff.js";
import type { RuntimeRegistry } from "../runtime-registry.js";
import type { SessionRuntime } from "../session-runtime.js";
import { retainItems } from "./retain-items.js";

/** The outcome of one retention (for tests and status). */
export interface RetentionOutcome {
  readonly sessionId: string;
  /** Items sent in this retention (0: nothing new). */
  readonly sent: number;
  readonly error: string | undefined;
}

/** The project tag: the configured one, else the session cwd's basename. */
export function projectOf(options: MemoryOptions, cwd: string): string {
  return options.tag ?? (basename(cwd) || "unknown");
}

export class MemoryRetention {
  readonly options: MemoryOptions;
  readonly #client: HindsightClient;
  /** documentIds already retained, per session runtime (a later compaction sends only new ones). */
  readonly #sent = new WeakMap<SessionRuntime, Set<string>>();
  readonly #told = new WeakSet<SessionRuntime>();
  #bankReady: Promise<unknown> | undefined;
  #pending = new Set<Promise<RetentionOutcome>>();
  readonly outcomes: RetentionOutcome[] = [];

  constructor(options: MemoryOptions) {
    this.options = options;
    // One attempt per request, bounded by the timeout: a retry would only hold the work longer.
    this.#client = new HindsightClient({ baseUrl: options.url, timeoutMs: options.timeoutMs, retries: 0, ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }) });
  }

  /** Retentions still running (tests wait on them; Pi never does). */
  settled(): Promise<void> {
    return Promise.allSettled([...this.#pending]).then(() => undefined);
  }

  /** Start retaining the session's artifacts; returns at once. `tell` reports the first failure of the session. */
  start(runtime: Promise<SessionRuntime>, cwd: string, tell: (text: string) => void): Promise<RetentionOutcome> {
    const run = this.#retain(runtime, cwd, tell);
    this.#pending.add(run);
    void run.finally(() => this.#pending.delete(run));
    return run;
  }

  async #retain(runtimePromise: Promise<SessionRuntime>, cwd: string, tell: (text: string) => void): Promise<RetentionOutcome> {
    let runtime: SessionRuntime | undefined;
    try {
      runtime = await runtimePromise;
      const handoff = await runtimeHandoff(runtime);
      if (handoff === undefined) return this.#done({ sessionId: runtime.sessionId, sent: 0, error: undefined });
      const sent = this.#sent.get(runtime) ?? new Set<string>();
      this.#sent.set(runtime, sent);
      const items = retainItems(handoff.doc, projectOf(this.options, cwd)).filter((item) => item.documentId === undefined || !sent.has(item.documentId));
      if (items.length === 0) return this.#done({ sessionId: runtime.sessionId, sent: 0, error: undefined });
      // The bank is created once per process (PUT is idempotent); a failure is retried at the next compaction.
      this.#bankReady ??= this.#client.createBank(this.options.bankId, { name: this.options.bankId }).catch((error: unknown) => {
        this.#bankReady = undefined;
        throw error;
      });
      await this.#bankReady;
      await this.#client.retain(this.options.bankId, items);
      for (const item of items) if (item.documentId !== undefined) sent.add(item.documentId);
      return this.#done({ sessionId: runtime.sessionId, sent: items.length, error: undefined });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (runtime === undefined || !this.#told.has(runtime)) {
        if (runtime !== undefined) this.#told.add(runtime);
        try {
          tell(`context-fold: retaining this session's artifacts to the memory bank ${this.options.bankId} at ${this.options.url} failed (${message}). Compaction is unaffected; retried at the next compaction.`);
        } catch {
          // The session may be gone by now (the ctx is stale): the failure is still recorded.
        }
      }
      return this.#done({ sessionId: runtime?.sessionId ?? "", sent: 0, error: message });
    }
  }

  #done(outcome: RetentionOutcome): RetentionOutcome {
    this.outcomes.push(outcome);
    return outcome;
  }
}

/** Retain at every compaction Pi completes (ours or Pi's own); never awaited by Pi. */
export function registerMemoryRetention(pi: ExtensionAPI, registry: RuntimeRegistry, retention: MemoryRetention): void {
  pi.on("session_compact", (_event, ctx: ExtensionContext) => {
    try {
      const ui = ctx.ui;
      void retention.start(registry.get(ctx), ctx.cwd, (text) => ui.notify(text, "warning"));
    } catch {
      // nothing of ours reaches Pi
    }
  });
}
