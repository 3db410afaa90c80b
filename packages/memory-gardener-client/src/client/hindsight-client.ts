// A typed fetch client for the Hindsight API subset the gardener uses: per-attempt timeouts, bounded
// retries with exponential backoff (honouring Retry-After), optional bearer auth, and the API's traps
// absorbed (shapes normalized, state=valid sent explicitly, paging deduped, PATCH gated on /version).
import { PATCH_MIN_VERSION, versionAtLeast } from "@context-fold/hindsight-api";
import { normalizeMemory } from "./normalize-memory.js";
import {
  HindsightError,
  type HindsightApi,
  type ListPage,
  type ListQuery,
  type Memory,
  type PatchBody,
  type RecallHit,
  type RecallQuery,
  type DocumentInfo,
  type ReflectAnswer,
  type ReflectQuery,
  type RetainItem,
  type ServerVersion,
} from "./types.js";

export interface HindsightClientOptions {
  readonly baseUrl: string;
  readonly apiKey?: string;
  /** Per attempt; default 30 000 ms. */
  readonly timeoutMs?: number;
  /** Extra attempts after the first; default 3. */
  readonly retries?: number;
  /** First backoff; doubles each retry; default 200 ms. */
  readonly backoffMs?: number;
  /** Longest wait between attempts, Retry-After included; default 10 000 ms. */
  readonly maxBackoffMs?: number;
  readonly fetch?: typeof fetch;
}

/** Page size `listAll` uses when the query names none. */
export const LIST_ALL_PAGE = 500;

/** Which failures a request may retry: reads and idempotent writes retry all; retain only when nothing was stored. */
type RetryPolicy = "idempotent" | "not-processed";

interface RequestSpec {
  readonly method: "GET" | "PUT" | "POST" | "PATCH";
  readonly path: string;
  readonly query?: URLSearchParams;
  readonly body?: unknown;
  readonly retry: RetryPolicy;
}

function retryAfterMs(header: string | null, nowMs: number): number | null {
  if (header === null) return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.max(0, at - nowMs);
}

function detailText(detail: unknown): string {
  if (typeof detail === "string") return detail;
  if (Array.isArray(detail)) {
    return detail
      .map((d: unknown) => {
        if (typeof d !== "object" || d === null) return String(d);
        const { loc, msg } = d as { loc?: unknown; msg?: unknown };
        return `${Array.isArray(loc) ? loc.join(".") : "?"}: ${String(msg)}`;
      })
      .join("; ");
  }
  return JSON.stringify(detail);
}

export class HindsightClient implements HindsightApi {
  private readonly baseUrl: string;
  private readonly apiKey: string | undefined;
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly backoffMs: number;
  private readonly maxBackoffMs: number;
  private readonly fetchImpl: typeof fetch;
  private versionCache: Promise<ServerVersion> | null = null;

  constructor(options: HindsightClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.apiKey = options.apiKey;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.retries = Math.max(0, Math.floor(options.retries ?? 3));
    this.backoffMs = Math.max(0, options.backoffMs ?? 200);
    this.maxBackoffMs = Math.max(0, options.maxBackoffMs ?? 10_000);
    this.fetchImpl = options.fetch ?? fetch;
  }

  private bankPath(bankId: string, rest = ""): string {
    return `/v1/default/banks/${encodeURIComponent(bankId)}${rest}`;
  }

  private async request(spec: RequestSpec): Promise<unknown> {
    const url = `${this.baseUrl}${spec.path}${spec.query === undefined || spec.query.size === 0 ? "" : `?${spec.query.toString()}`}`;
    const headers: Record<string, string> = { accept: "application/json" };
    if (spec.body !== undefined) headers["content-type"] = "application/json";
    if (this.apiKey !== undefined) headers["authorization"] = `Bearer ${this.apiKey}`;
    const body = spec.body === undefined ? undefined : JSON.stringify(spec.body);
    let lastError: HindsightError | null = null;
    for (let attempt = 0; attempt <= this.retries; attempt++) {
      let wait = Math.min(this.maxBackoffMs, this.backoffMs * 2 ** attempt);
      let response: Response;
      try {
        response = await this.fetchImpl(url, { method: spec.method, headers, signal: AbortSignal.timeout(this.timeoutMs), ...(body === undefined ? {} : { body }) });
      } catch (error) {
        const timedOut = error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");
        const reason = timedOut ? `no answer within ${this.timeoutMs} ms` : `network error: ${error instanceof Error ? error.message : String(error)}`;
        lastError = new HindsightError(`${spec.method} ${url} failed: ${reason}`, { status: 0, detail: reason, method: spec.method, url, cause: error });
        // A write that timed out may have been applied; only reads and idempotent writes try again.
        if (spec.retry === "not-processed" && timedOut) throw lastError;
        if (attempt < this.retries) await sleep(wait);
        continue;
      }
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = text === "" ? null : JSON.parse(text);
      } catch {
        // Not JSON (a proxy's HTML page, say): keep the text as the detail.
      }
      if (response.ok) return parsed;
      const detail = typeof parsed === "object" && parsed !== null && "detail" in parsed ? (parsed as { detail: unknown }).detail : parsed;
      lastError = new HindsightError(`${spec.method} ${url} answered ${response.status}: ${detailText(detail)}`, { status: response.status, detail, method: spec.method, url });
      const retryable =
        response.status === 429 ||
        (response.status >= 500 && (spec.retry === "idempotent" || response.status === 502 || response.status === 503 || response.status === 504));
      if (!retryable || attempt === this.retries) throw lastError;
      const hinted = retryAfterMs(response.headers.get("retry-after"), Date.now());
      if (hinted !== null) wait = Math.min(this.maxBackoffMs, hinted);
      await sleep(wait);
    }
    throw lastError ?? new HindsightError(`${spec.method} ${url} failed`, { status: 0, detail: null, method: spec.method, url });
  }

  /** GET /version (cached): `supportsPatch` is false before 0.8.2. */
  version(): Promise<ServerVersion> {
    this.versionCache ??= this.request({ method: "GET", path: "/version", retry: "idempotent" }).then(
      (raw) => {
        const r = (raw ?? {}) as { api_version?: unknown; features?: unknown };
        const apiVersion = typeof r.api_version === "string" ? r.api_version : "0.0.0";
        const features = typeof r.features === "object" && r.features !== null ? (r.features as Record<string, unknown>) : {};
        return { apiVersion, features, supportsPatch: versionAtLeast(apiVersion, PATCH_MIN_VERSION) };
      },
      (error: unknown) => {
        this.versionCache = null;
        throw error;
      },
    );
    return this.versionCache;
  }

  health(): Promise<unknown> {
    return this.request({ method: "GET", path: "/health", retry: "idempotent" });
  }

  createBank(bankId: string, body: Readonly<Record<string, unknown>> = {}): Promise<unknown> {
    return this.request({ method: "PUT", path: this.bankPath(bankId), body, retry: "idempotent" });
  }

  async listMemories(bankId: string, query: ListQuery = {}): Promise<ListPage> {
    const params = new URLSearchParams();
    params.set("state", query.state ?? "valid");
    if (query.type !== undefined) params.set("type", query.type);
    if (query.q !== undefined) params.set("q", query.q);
    for (const tag of query.tags ?? []) params.append("tags", tag);
    if (query.tagsMatch !== undefined) params.set("tags_match", query.tagsMatch);
    params.set("limit", String(query.limit ?? 100));
    params.set("offset", String(query.offset ?? 0));
    const raw = (await this.request({ method: "GET", path: this.bankPath(bankId, "/memories/list"), query: params, retry: "idempotent" })) as {
      items?: unknown;
      total?: unknown;
      limit?: unknown;
      offset?: unknown;
    } | null;
    const items = Array.isArray(raw?.items) ? (raw.items as unknown[]).map(normalizeMemory) : [];
    return {
      items,
      total: typeof raw?.total === "number" ? raw.total : items.length,
      limit: typeof raw?.limit === "number" ? raw.limit : (query.limit ?? 100),
      offset: typeof raw?.offset === "number" ? raw.offset : (query.offset ?? 0),
    };
  }

  /**
   * Every memory matching `query`, page by page. Retains during the walk push rows to later offsets,
   * so a row may come twice: ids already yielded are skipped. Rows leaving the list during the walk
   * (e.g. invalidated by the caller between pages) pull later rows to earlier offsets: when `total`
   * shrinks, the next page starts that many rows earlier. Stops on a short page.
   */
  async *listAll(bankId: string, query: Omit<ListQuery, "offset"> = {}): AsyncIterable<Memory> {
    const limit = Math.max(1, query.limit ?? LIST_ALL_PAGE);
    const seen = new Set<string>();
    let offset = 0;
    let lastTotal: number | null = null;
    for (;;) {
      const page = await this.listMemories(bankId, { ...query, limit, offset });
      const shrunk = lastTotal === null ? 0 : Math.max(0, lastTotal - page.total);
      if (shrunk > 0 && offset > 0) {
        // Rows vanished since the last page: re-read from earlier so none slips past (dupes are skipped).
        offset = Math.max(0, offset - shrunk);
        lastTotal = page.total;
        continue;
      }
      lastTotal = page.total;
      for (const memory of page.items) {
        if (seen.has(memory.id)) continue;
        seen.add(memory.id);
        yield memory;
      }
      if (page.items.length < limit) return;
      offset += limit;
    }
  }

  async getMemory(bankId: string, memoryId: string): Promise<Memory> {
    return normalizeMemory(await this.request({ method: "GET", path: this.bankPath(bankId, `/memories/${encodeURIComponent(memoryId)}`), retry: "idempotent" }));
  }

  /** PATCH a memory; on a server older than 0.8.2 (read from /version first) raise a 405 that says so. */
  async patchMemory(bankId: string, memoryId: string, body: PatchBody): Promise<Memory> {
    const path = this.bankPath(bankId, `/memories/${encodeURIComponent(memoryId)}`);
    const url = `${this.baseUrl}${path}`;
    const lacksPatch = (v: string): HindsightError =>
      new HindsightError(
        `Hindsight server ${v} lacks PATCH /memories/{id} (added in ${PATCH_MIN_VERSION}): it cannot invalidate or edit memories; upgrade the server to ${PATCH_MIN_VERSION} or later`,
        { status: 405, detail: `server version ${v} has no PATCH (needs >= ${PATCH_MIN_VERSION})`, method: "PATCH", url },
      );
    const version = await this.version();
    if (!version.supportsPatch) throw lacksPatch(version.apiVersion);
    try {
      return normalizeMemory(await this.request({ method: "PATCH", path, body, retry: "idempotent" }));
    } catch (error) {
      if (error instanceof HindsightError && error.status === 405) throw lacksPatch(version.apiVersion);
      throw error;
    }
  }

  async recall(bankId: string, query: RecallQuery): Promise<readonly RecallHit[]> {
    const body: Record<string, unknown> = { query: query.query };
    if (query.types !== undefined) body["types"] = [...query.types];
    if (query.budget !== undefined) body["budget"] = query.budget;
    if (query.maxTokens !== undefined) body["max_tokens"] = query.maxTokens;
    if (query.tags !== undefined) body["tags"] = [...query.tags];
    if (query.tagsMatch !== undefined) body["tags_match"] = query.tagsMatch;
    const raw = (await this.request({ method: "POST", path: this.bankPath(bankId, "/memories/recall"), body, retry: "idempotent" })) as { results?: unknown } | null;
    const results = Array.isArray(raw?.results) ? (raw.results as unknown[]) : [];
    return results.map((result) => {
      const scores = (result as { scores?: { final?: unknown } | null }).scores;
      return { memory: normalizeMemory(result), score: typeof scores?.final === "number" ? scores.final : 0 };
    });
  }

  /** POST /reflect with include.facts, so the answer names the memories it used. */
  async reflect(bankId: string, query: ReflectQuery): Promise<ReflectAnswer> {
    const body: Record<string, unknown> = { query: query.query, include: { facts: {} } };
    if (query.budget !== undefined) body["budget"] = query.budget;
    if (query.maxTokens !== undefined) body["max_tokens"] = query.maxTokens;
    if (query.tags !== undefined) body["tags"] = [...query.tags];
    if (query.tagsMatch !== undefined) body["tags_match"] = query.tagsMatch;
    const raw = (await this.request({ method: "POST", path: this.bankPath(bankId, "/reflect"), body, retry: "idempotent" })) as {
      text?: unknown;
      based_on?: { memories?: unknown } | null;
    } | null;
    const memories = Array.isArray(raw?.based_on?.memories) ? (raw.based_on.memories as unknown[]) : [];
    const nullable = (v: unknown): string | null => (typeof v === "string" ? v : null);
    return {
      text: typeof raw?.text === "string" ? raw.text : "",
      basedOn: memories.flatMap((m) => {
        const r = (m ?? {}) as Record<string, unknown>;
        return typeof r["text"] === "string" ? [{ id: nullable(r["id"]), text: r["text"], type: nullable(r["type"]), context: nullable(r["context"]) }] : [];
      }),
    };
  }

  /**
   * GET /documents/{document_id}: the document, or null when the bank has none with that id (404).
   * Decides whether a retain whose answer was lost reached the bank.
   */
  async getDocument(bankId: string, documentId: string): Promise<DocumentInfo | null> {
    let raw: unknown;
    try {
      raw = await this.request({ method: "GET", path: this.bankPath(bankId, `/documents/${encodeURIComponent(documentId)}`), retry: "idempotent" });
    } catch (error) {
      if (error instanceof HindsightError && error.status === 404) return null;
      throw error;
    }
    const r = (raw ?? {}) as Record<string, unknown>;
    const text = (v: unknown, fallback: string): string => (typeof v === "string" ? v : fallback);
    return {
      id: text(r["id"], documentId),
      bankId: text(r["bank_id"], bankId),
      memoryUnitCount: typeof r["memory_unit_count"] === "number" ? r["memory_unit_count"] : 0,
      tags: Array.isArray(r["tags"]) ? (r["tags"] as unknown[]).filter((t): t is string => typeof t === "string") : [],
      createdAt: text(r["created_at"], ""),
      updatedAt: text(r["updated_at"], ""),
    };
  }

  async retain(bankId: string, items: readonly RetainItem[]): Promise<{ success: boolean; itemsCount: number }> {
    const body = {
      items: items.map((item) => ({
        content: item.content,
        ...(item.timestamp === undefined ? {} : { timestamp: item.timestamp }),
        ...(item.context === undefined ? {} : { context: item.context }),
        ...(item.metadata === undefined ? {} : { metadata: { ...item.metadata } }),
        ...(item.documentId === undefined ? {} : { document_id: item.documentId }),
        ...(item.entities === undefined ? {} : { entities: item.entities.map((e) => (e.type === undefined ? { text: e.text } : { text: e.text, type: e.type })) }),
        ...(item.tags === undefined ? {} : { tags: [...item.tags] }),
      })),
      async: false,
    };
    // Retain is not idempotent (each call stores new memories): retried only when the server surely stored nothing.
    const raw = (await this.request({ method: "POST", path: this.bankPath(bankId, "/memories"), body, retry: "not-processed" })) as {
      success?: unknown;
      items_count?: unknown;
    } | null;
    return { success: raw?.success === true, itemsCount: typeof raw?.items_count === "number" ? raw.items_count : 0 };
  }
}

function sleep(ms: number): Promise<void> {
  return ms <= 0 ? Promise.resolve() : new Promise((resolve) => setTimeout(resolve, ms));
}
