// The normalized Hindsight shapes the gardener works with. The client absorbs the API's traps
// (list's `fact_type` + comma-joined `entities` vs get's `type` + array) and always returns these.

export type FactType = "world" | "experience" | "observation";
export type MemoryState = "valid" | "invalidated";

/** One memory, normalized from either the list or the get shape. */
export interface Memory {
  readonly id: string;
  readonly text: string;
  readonly context: string | null;
  /** The memory's date (ISO) — list `date`/`mentioned_at`, get `mentioned_at`/`occurred_start`. */
  readonly date: string | null;
  readonly factType: FactType;
  readonly entities: readonly string[];
  readonly tags: readonly string[];
  readonly metadata: Readonly<Record<string, string>>;
  readonly state: MemoryState;
  readonly invalidationReason: string | null;
  readonly invalidatedAt: string | null;
  readonly mentionedAt: string | null;
  readonly occurredStart: string | null;
  readonly occurredEnd: string | null;
  readonly documentId: string | null;
}

export interface ListQuery {
  readonly type?: FactType;
  readonly q?: string;
  /** Sent explicitly; defaults to "valid". */
  readonly state?: MemoryState;
  readonly tags?: readonly string[];
  readonly tagsMatch?: "any" | "all" | "any_strict" | "all_strict";
  readonly limit?: number;
  readonly offset?: number;
}

export interface ListPage {
  readonly items: readonly Memory[];
  readonly total: number;
  readonly limit: number;
  readonly offset: number;
}

export interface RecallQuery {
  readonly query: string;
  readonly types?: readonly FactType[];
  readonly budget?: "low" | "mid" | "high";
  readonly maxTokens?: number;
  readonly tags?: readonly string[];
  /** How `tags` match; the server's default is "any" (which lets untagged memories through). */
  readonly tagsMatch?: "any" | "all" | "any_strict" | "all_strict" | "exact";
}

export interface RecallHit {
  readonly memory: Memory;
  readonly score: number;
}

export interface RetainItem {
  readonly content: string;
  readonly timestamp?: string;
  readonly context?: string;
  readonly metadata?: Readonly<Record<string, string>>;
  readonly documentId?: string;
  readonly entities?: readonly { text: string; type?: string }[];
  readonly tags?: readonly string[];
}

/** `POST …/reflect` body (the fields we send). */
export interface ReflectQuery {
  readonly query: string;
  readonly budget?: "low" | "mid" | "high";
  readonly maxTokens?: number;
  readonly tags?: readonly string[];
  readonly tagsMatch?: "any" | "all" | "any_strict" | "all_strict" | "exact";
}

/** One memory a reflect answer says it used (`based_on.memories[]`). */
export interface ReflectFact {
  readonly id: string | null;
  readonly text: string;
  readonly type: string | null;
  readonly context: string | null;
}

/** The reflect answer: markdown `text`, and the memories it was based on (asked for with include.facts). */
export interface ReflectAnswer {
  readonly text: string;
  readonly basedOn: readonly ReflectFact[];
}

/** `GET …/documents/{document_id}`: what the bank holds for one retained document. */
export interface DocumentInfo {
  readonly id: string;
  readonly bankId: string;
  readonly memoryUnitCount: number;
  readonly tags: readonly string[];
  readonly createdAt: string;
  readonly updatedAt: string;
}

export interface PatchBody {
  readonly state?: MemoryState;
  readonly reason?: string;
  readonly text?: string;
  readonly context?: string;
}

export interface ServerVersion {
  readonly apiVersion: string;
  readonly features: Readonly<Record<string, unknown>>;
  /** false on servers older than 0.8.2 (no PATCH). */
  readonly supportsPatch: boolean;
}

/** What the gardener needs from a Hindsight server. `HindsightClient` implements it over HTTP. */
export interface HindsightApi {
  version(): Promise<ServerVersion>;
  health(): Promise<unknown>;
  createBank(bankId: string, body?: Readonly<Record<string, unknown>>): Promise<unknown>;
  listMemories(bankId: string, query?: ListQuery): Promise<ListPage>;
  /** Walk every page (offset paging), deduping ids that shift under concurrent retains. */
  listAll(bankId: string, query?: Omit<ListQuery, "offset">): AsyncIterable<Memory>;
  getMemory(bankId: string, memoryId: string): Promise<Memory>;
  patchMemory(bankId: string, memoryId: string, body: PatchBody): Promise<Memory>;
  recall(bankId: string, query: RecallQuery): Promise<readonly RecallHit[]>;
  retain(bankId: string, items: readonly RetainItem[]): Promise<{ success: boolean; itemsCount: number }>;
}

/** A non-2xx answer (or a network failure after retries). `detail` is the server's `detail` field. */
export class HindsightError extends Error {
  readonly code = "HINDSIGHT_HTTP" as const;
  readonly status: number;
  readonly detail: unknown;
  readonly method: string;
  readonly url: string;
  constructor(message: string, init: { status: number; detail: unknown; method: string; url: string; cause?: unknown }) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = "HindsightError";
    this.status = init.status;
    this.detail = init.detail;
    this.method = init.method;
    this.url = init.url;
  }
}
