// Memory across sessions: at each compaction, the session's durable artifacts are retained to a Hindsight
// bank — fire-and-forget. Pi's `session_compact` handler returns at once; the work (reading the session,
// the HTTP call with its timeout) runs afterwards, so a slow or dead bank never delays or blocks a
// compaction. A failure is reported once per session and otherwise changes nothing. What was retained is
// remembered beside the seed index (memory-retained.json), so neither a later compaction nor a restart
// sends an item twice.
import { readFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { HindsightClient } from "@context-fold/memory-gardener-client";
import { writeFileAtomically } from "@context-fold/summary-formatter";
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

/** File beside the seed index listing the documentIds retained per bank, so a restart sends nothing twice. */
export const RETAINED_FILE = "memory-retained.json";

interface RetainedDocument {
  readonly v: 1;
  /** `<url> <bankId>` → documentIds retained there. */
  readonly banks: Readonly<Record<string, readonly string[]>>;
}

async function readRetained(file: string): Promise<RetainedDocument> {
  try {
    const value = JSON.parse(await readFile(file, "utf8")) as Partial<RetainedDocument>;
    if (value.v === 1 && typeof value.banks === "object" && value.banks !== null) return { v: 1, banks: value.banks };
  } catch {
    // Missing or damaged: at worst items are retained again (the bank keys them by documentId).
  }
  return { v: 1, banks: {} };
}

/** The project tag: the configured one, else the session cwd's basename. */
export function projectOf(options: MemoryOptions, cwd: string): string {
  return options.tag ?? (basename(cwd) || "unknown");
}

export class MemoryRetention {
  readonly options: MemoryOptions;
  readonly #client: HindsightClient;
  /** documentIds already retained, per session runtime (a later compaction sends only new ones). */
  readonly #sent = new WeakMap<SessionRuntime, Promise<Set<string>>>();
  readonly #told = new WeakSet<SessionRuntime>();
  #bankReady: Promise<unknown> | undefined;
  #queue: Promise<void> = Promise.resolve();

  constructor(options: MemoryOptions) {
    this.options = options;
    // One attempt per request, bounded by the timeout: a retry would only hold the work longer.
    this.#client = new HindsightClient({ baseUrl: options.url, timeoutMs: options.timeoutMs, retries: 0, ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }) });
  }

  /** Start retaining the session's artifacts; returns at once. `tell` reports the first failure of the session. */
  start(runtime: Promise<SessionRuntime>, cwd: string, tell: (text: string) => void): Promise<RetentionOutcome> {
    // One retention at a time: two compactions in quick succession must not both send the same items.
    const run = this.#queue.then(() => this.#retain(runtime, cwd, tell));
    this.#queue = run.then(() => undefined);
    return run;
  }

  async #retain(runtimePromise: Promise<SessionRuntime>, cwd: string, tell: (text: string) => void): Promise<RetentionOutcome> {
    let runtime: SessionRuntime | undefined;
    try {
      runtime = await runtimePromise;
      const handoff = await runtimeHandoff(runtime);
      if (handoff === undefined) return { sessionId: runtime.sessionId, sent: 0, error: undefined };
      const retainedFile = runtime.seedIndex === undefined ? undefined : join(dirname(runtime.seedIndex), RETAINED_FILE);
      const bankKey = `${this.options.url} ${this.options.bankId}`;
      let loading = this.#sent.get(runtime);
      if (loading === undefined) {
        loading = retainedFile === undefined ? Promise.resolve(new Set<string>()) : readRetained(retainedFile).then((doc) => new Set(doc.banks[bankKey] ?? []));
        this.#sent.set(runtime, loading);
      }
      const sent = await loading;
      const items = retainItems(handoff.doc, projectOf(this.options, cwd)).filter((item) => item.documentId === undefined || !sent.has(item.documentId));
      if (items.length === 0) return { sessionId: runtime.sessionId, sent: 0, error: undefined };
      // The bank is created once per process (PUT is idempotent); a failure is retried at the next compaction.
      this.#bankReady ??= this.#client.createBank(this.options.bankId, { name: this.options.bankId }).catch((error: unknown) => {
        this.#bankReady = undefined;
        throw error;
      });
      await this.#bankReady;
      await this.#client.retain(this.options.bankId, items);
      for (const item of items) if (item.documentId !== undefined) sent.add(item.documentId);
      if (retainedFile !== undefined) {
        const doc = await readRetained(retainedFile);
        await writeFileAtomically(retainedFile, `${JSON.stringify({ v: 1, banks: { ...doc.banks, [bankKey]: [...sent].sort() } }, null, 1)}\n`);
      }
      return { sessionId: runtime.sessionId, sent: items.length, error: undefined };
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
      return { sessionId: runtime?.sessionId ?? "", sent: 0, error: message };
    }
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
