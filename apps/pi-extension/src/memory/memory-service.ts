// Everything memory does against the bank, for the tools, the hooks and /memory: one client per
// process, one MemorySession per Pi session (project, bank, outbox), recall scoped to the project's
// tag, retains through the outbox, and one notice per outage. Nothing here throws into Pi: callers
// get outcomes, and failures are remembered for /memory status.
import { readdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import { MEMORY_MESSAGE_TYPE } from "@context-fold/recall-engine";
import { HindsightClient, HindsightError, type RecallHit, type ReflectAnswer, type RetainItem } from "@context-fold/memory-gardener-client";
import type { SessionRuntime } from "../session-runtime.js";
import type { MemorySettings } from "../config/settings.js";
import { Outbox, OUTBOX_FILE, outboxKey, type OutboxItem } from "./outbox.js";
import { projectBankId, projectIdentity, type ProjectIdentity } from "./project-identity.js";
import { redactSecrets } from "./redact-secrets.js";

/** Tag every item we retain carries (besides `project:<name>`), so they are easy to find and to garden. */
export const MEMORY_SOURCE_TAG = "source:context-fold";
/** Items sent per retain request. */
const BATCH = 20;

export function projectTag(project: string): string {
  return `project:${project}`;
}

export type Tell = (text: string, level: "info" | "warning") => void;

export interface MemorySession {
  readonly sessionId: string;
  readonly project: ProjectIdentity;
  /** The project's bank (configured, else derived from the project). */
  readonly bankId: string;
  readonly outbox: Outbox;
  /** Memory ids already persisted into this session by auto-recall (persist mode). */
  readonly persisted: Set<string>;
  recallTimeoutTold: boolean;
  /** Memories the last prompt got from auto-recall. */
  lastRecalled: number;
  /** Why the last prompt got none: the footer says so instead of a count (undefined: it was answered). */
  recallProblem?: "recall timed out" | "bank unreachable" | undefined;
}

export interface RecalledMemory {
  readonly hit: RecallHit;
  readonly bankId: string;
}

export type RecallOutcome = { readonly ok: true; readonly memories: readonly RecalledMemory[] } | { readonly ok: false; readonly error: string };

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

const NOT_CONNECTED = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH"]);

/** What a failed send means for its items: never reached the bank, refused for good, or unknown (ask the bank). */
export function sendFailure(error: unknown): "not-sent" | "rejected" | "unknown" {
  if (!(error instanceof HindsightError)) return "unknown";
  if (error.status === 400 || error.status === 413 || error.status === 422) return "rejected";
  if (error.status === 401 || error.status === 403 || error.status === 404 || error.status === 405 || error.status === 429) return "not-sent";
  if (error.status === 0) {
    for (let cause: unknown = error.cause, depth = 0; cause !== undefined && cause !== null && depth < 4; cause = (cause as { cause?: unknown }).cause, depth++) {
      const code = (cause as { code?: unknown }).code;
      if (typeof code === "string" && NOT_CONNECTED.has(code)) return "not-sent";
    }
  }
  return "unknown";
}

export class MemoryService {
  readonly settings: MemorySettings;
  readonly #client: HindsightClient;
  readonly #recallClient: HindsightClient;
  readonly #sessions = new WeakMap<SessionRuntime, Promise<MemorySession>>();
  readonly #banks = new Map<string, Promise<unknown>>();
  readonly #flushing = new WeakMap<MemorySession, Promise<void>>();
  readonly #orphansChecked = new WeakSet<MemorySession>();
  #down = false;
  /** Requests started so far, and how many had started when the outage began: only a request started after that ends it. */
  #started = 0;
  #downSince = 0;
  lastError: string | undefined;

  constructor(settings: MemorySettings) {
    this.settings = settings;
    const auth = settings.apiKey === undefined ? {} : { apiKey: settings.apiKey };
    // One attempt per request: the outbox is the retry, and a prompt must not wait for backoffs.
    this.#client = new HindsightClient({ baseUrl: settings.url, timeoutMs: settings.timeoutMs, retries: 0, ...auth });
    this.#recallClient = new HindsightClient({ baseUrl: settings.url, timeoutMs: Math.max(settings.recallTimeoutMs * 4, 1000), retries: 0, ...auth });
  }

  get down(): boolean {
    return this.#down;
  }

  /** The memory side of a Pi session, opened once (its outbox read from disk). */
  session(runtime: SessionRuntime, cwd: string, entries: () => readonly unknown[]): Promise<MemorySession> {
    let opened = this.#sessions.get(runtime);
    if (opened === undefined) {
      opened = (async () => {
        const project = projectIdentity(cwd, this.settings.tag);
        const file = runtime.seedIndex === undefined ? undefined : join(dirname(runtime.seedIndex), OUTBOX_FILE);
        const outbox = await Outbox.open(file, this.settings.outboxMax);
        const persisted = new Set<string>();
        for (const entry of entries()) {
          const e = entry as { type?: unknown; customType?: unknown; details?: { ids?: unknown } };
          if (e.type === "custom_message" && e.customType === MEMORY_MESSAGE && Array.isArray(e.details?.ids)) {
            for (const id of e.details.ids) if (typeof id === "string") persisted.add(id);
          }
        }
        return { sessionId: runtime.sessionId, project, bankId: this.settings.bankId ?? projectBankId(project.name), outbox, persisted, recallTimeoutTold: false, lastRecalled: 0 };
      })();
      this.#sessions.set(runtime, opened);
    }
    return opened;
  }

  /** Memory is off for this session's project (opt-out file or config). */
  off(session: MemorySession): boolean {
    return this.settings.optOut || session.project.optedOut;
  }

  #noteFailure(error: unknown, tell: Tell | undefined, session: MemorySession): void {
    this.lastError = describe(error);
    if (this.#down) return;
    this.#down = true;
    this.#downSince = this.#started;
    const where = session.outbox.file === undefined ? "in memory" : `in ${session.outbox.file}`;
    try {
      tell?.(`context-fold: the memory bank at ${this.settings.url} is unreachable (${this.lastError}). Retains wait in the outbox (${where}) and are sent when it is back; Pi continues. (Said once per outage.)`, "warning");
    } catch {
      // a stale ctx: the failure is still recorded for /memory status
    }
  }

  /** A request is about to start; pass the returned ticket to #noteSuccess. */
  #begin(): number {
    this.#started += 1;
    return this.#started;
  }

  #noteSuccess(ticket: number): void {
    // An answer to a request sent before the outage began says nothing about the bank now.
    if (ticket > this.#downSince) this.#down = false;
  }

  /** Recall for `query`: this project's memories (its tag), plus the shared bank's. */
  async recall(session: MemorySession, query: string, options: { tags?: readonly string[]; maxTokens?: number; budget?: "low" | "mid" | "high"; forPrompt?: boolean } = {}, tell?: Tell): Promise<RecallOutcome> {
    const safe = redactSecrets(query).slice(0, 4000);
    const client = options.forPrompt === true ? this.#recallClient : this.#client;
    const scope = this.settings.recallAllProjects ? [] : [projectTag(session.project.name)];
    const tags = [...scope, ...(options.tags ?? [])];
    const ask = (bankId: string, tagged: readonly string[]): Promise<RecalledMemory[]> =>
      client
        .recall(bankId, {
          query: safe,
          ...(tagged.length === 0 ? {} : { tags: tagged, tagsMatch: "all_strict" as const }),
          ...(options.maxTokens === undefined ? {} : { maxTokens: options.maxTokens }),
          ...(options.budget === undefined ? {} : { budget: options.budget }),
        })
        .then((hits) => hits.map((hit) => ({ hit, bankId })));
    const ticket = this.#begin();
    try {
      const shared = this.settings.sharedBank;
      const [own, others] = await Promise.all([ask(session.bankId, tags), shared === undefined || shared === session.bankId ? Promise.resolve([]) : ask(shared, options.tags ?? [])]);
      this.#noteSuccess(ticket);
      return { ok: true, memories: [...own, ...others] };
    } catch (error) {
      this.#noteFailure(error, tell, session);
      return { ok: false, error: describe(error) };
    }
  }

  /** Auto-recall's query: the prompt, through the prompt client, asking for about twice the block's budget. */
  recallForPrompt(session: MemorySession, prompt: string, tell?: Tell): Promise<RecallOutcome> {
    return this.recall(session, prompt, { forPrompt: true, maxTokens: this.settings.recallBudget * 2 }, tell);
  }

  async reflect(session: MemorySession, query: string, tags: readonly string[] = [], tell?: Tell): Promise<{ ok: true; answer: ReflectAnswer } | { ok: false; error: string }> {
    const scope = this.settings.recallAllProjects ? [] : [projectTag(session.project.name)];
    const all = [...scope, ...tags];
    const ticket = this.#begin();
    try {
      const answer = await this.#client.reflect(session.bankId, { query: redactSecrets(query), ...(all.length === 0 ? {} : { tags: all, tagsMatch: "all_strict" as const }) });
      this.#noteSuccess(ticket);
      return { ok: true, answer };
    } catch (error) {
      this.#noteFailure(error, tell, session);
      return { ok: false, error: describe(error) };
    }
  }

  /** Soft-invalidate (or, with `restore`, make valid again) a memory of the session's bank. */
  async setValid(session: MemorySession, memoryId: string, valid: boolean, bankId = session.bankId): Promise<string> {
    const memory = await this.#client.patchMemory(bankId, memoryId, valid ? { state: "valid" } : { state: "invalidated", reason: "forgotten with /memory forget" });
    return memory.state;
  }

  /** Put items in the outbox (secrets redacted, known document ids skipped) and write it. */
  async enqueue(session: MemorySession, items: readonly RetainItem[], bankId = session.bankId, tell?: Tell): Promise<number> {
    const entries = items.flatMap((item) =>
      item.documentId === undefined
        ? []
        : [{ bankId, documentId: item.documentId, item: { ...item, content: redactSecrets(item.content), ...(item.context === undefined ? {} : { context: redactSecrets(item.context) }) } }],
    );
    const { added, dropped } = session.outbox.enqueue(entries);
    if (added > 0 || dropped > 0) await session.outbox.persist();
    if (dropped > 0) {
      try {
        tell?.(`context-fold: the memory outbox is full (${String(session.outbox.max)} items); dropped the ${String(dropped)} oldest unsent item(s).`, "warning");
      } catch {
        // recorded in the outbox's dropped count
      }
    }
    return added;
  }

  /** Send what the outbox holds, in order; serialized per session. Resolves when this flush is over. */
  flush(session: MemorySession, tell?: Tell): Promise<void> {
    const previous = this.#flushing.get(session) ?? Promise.resolve();
    const next = previous.then(() => this.#flush(session, tell)).catch((error: unknown) => {
      this.lastError = describe(error);
    });
    this.#flushing.set(session, next);
    return next;
  }

  async #ensureBank(bankId: string): Promise<void> {
    let ready = this.#banks.get(bankId);
    if (ready === undefined) {
      ready = this.#client.createBank(bankId, { name: bankId }).catch((error: unknown) => {
        this.#banks.delete(bankId);
        throw error;
      });
      this.#banks.set(bankId, ready);
    }
    await ready;
  }

  async #flush(session: MemorySession, tell: Tell | undefined): Promise<void> {
    const outbox = session.outbox;
    // Sends whose answer never came: the bank says whether they landed.
    const unsure = outbox.items.filter((i) => i.state === "sending");
    if (unsure.length > 0) {
      const landed = new Set<string>();
      const again = new Set<string>();
      try {
        for (const item of unsure) {
          const doc = await this.#client.getDocument(item.bankId, item.documentId);
          (doc === null ? again : landed).add(outboxKey(item.bankId, item.documentId));
        }
      } catch (error) {
        if (landed.size > 0 || again.size > 0) {
          outbox.markSent(landed);
          outbox.setState(again, "pending");
          await outbox.persist();
        }
        this.#noteFailure(error, tell, session);
        return;
      }
      outbox.markSent(landed);
      outbox.setState(again, "pending");
      await outbox.persist();
    }
    for (;;) {
      const first = outbox.items.find((i) => i.state === "pending");
      if (first === undefined) break;
      // A batch: consecutive pending items of one bank, in order.
      const batch: OutboxItem[] = [];
      for (const item of outbox.items) {
        if (item.state !== "pending") continue;
        if (item.bankId !== first.bankId || batch.length >= BATCH) break;
        batch.push(item);
      }
      const keys = new Set(batch.map((i) => outboxKey(i.bankId, i.documentId)));
      try {
        await this.#ensureBank(first.bankId);
      } catch (error) {
        this.#noteFailure(error, tell, session);
        return;
      }
      outbox.setState(keys, "sending");
      await outbox.persist();
      const ticket = this.#begin();
      try {
        await this.#client.retain(first.bankId, batch.map((i) => i.item));
      } catch (error) {
        const kind = sendFailure(error);
        if (kind === "rejected") outbox.discard(keys);
        else if (kind === "not-sent") outbox.setState(keys, "pending");
        await outbox.persist();
        if (kind === "rejected") {
          this.lastError = `the bank refused ${String(batch.length)} item(s): ${describe(error)}`;
          continue;
        }
        this.#noteFailure(error, tell, session);
        return;
      }
      outbox.markSent(keys);
      await outbox.persist();
      this.#noteSuccess(ticket);
    }
  }

  /**
   * Once per session, when the bank answers: send what other sessions of this project left in their
   * outboxes (Pi exited while the bank was down). Their session may still be running in another Pi,
   * so every item is first looked up (GET documents/{id}) and only sent when the bank lacks it.
   * Returns the number of outboxes with items found.
   */
  async flushOrphans(session: MemorySession, tell?: Tell): Promise<number> {
    const own = session.outbox.file;
    if (own === undefined || this.#orphansChecked.has(session)) return 0;
    this.#orphansChecked.add(session);
    const root = dirname(dirname(own));
    let names: string[];
    try {
      names = (await readdir(root)).sort();
    } catch {
      return 0;
    }
    let found = 0;
    for (const name of names) {
      const file = join(root, name, OUTBOX_FILE);
      if (file === own) continue;
      const box = await Outbox.open(file, this.settings.outboxMax);
      if (box.items.length === 0) continue;
      found += 1;
      box.setState(new Set(box.items.map((i) => outboxKey(i.bankId, i.documentId))), "sending");
      await box.persist();
      await this.flush({ ...session, outbox: box }, tell);
    }
    return found;
  }

  /** Flush for at most `ms` (shutdown): whatever is not acknowledged by then stays in the outbox. */
  async flushWithin(session: MemorySession, ms: number): Promise<void> {
    if (ms <= 0 || session.outbox.items.length === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.flush(session), new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
    if (timer !== undefined) clearTimeout(timer);
  }
}

/** customType of an auto-recall block persisted into the session (persist mode); recall never indexes it as history. */
export const MEMORY_MESSAGE = MEMORY_MESSAGE_TYPE;
