// Contract with the official client's types (`@vectorize-io/hindsight-client`, imported as types
// only; no ../shared needed): every field our memory code sends in a retain, recall or reflect body is
// a field of the official request type, the required ones are there, and every field it reads from a
// recall, reflect or document answer is a field of the official response type. The key lists are
// typed against the official types (an editor or tsc flags a drift) and checked here at run time
// against the property names in the package's own declaration file.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { DocumentResponse, MemoryItemInput, RecallRequest, RecallResponse, RecallResult, ReflectRequest, ReflectResponse, RetainRequest } from "@vectorize-io/hindsight-client";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { startLocalBank, type LocalBank } from "@context-fold/hindsight-local";
import { tempDir } from "@context-fold/test-support";
import { MemoryService, type MemorySession } from "../../src/memory/memory-service.js";
import { loadSettings } from "../../src/config/settings.js";
import { Outbox } from "../../src/memory/outbox.js";

const RETAIN_KEYS = ["items", "async", "document_tags", "operation_id"] as const satisfies readonly (keyof RetainRequest)[];
const ITEM_KEYS = ["content", "timestamp", "context", "metadata", "document_id", "entities", "tags", "observation_scopes", "strategy", "update_mode"] as const satisfies readonly (keyof MemoryItemInput)[];
const RECALL_KEYS = ["query", "types", "budget", "max_tokens", "tags", "tags_match"] as const satisfies readonly (keyof RecallRequest)[];
const REFLECT_KEYS = ["query", "budget", "max_tokens", "include", "tags", "tags_match"] as const satisfies readonly (keyof ReflectRequest)[];
const RECALL_READ = ["results"] as const satisfies readonly (keyof RecallResponse)[];
const RESULT_READ = ["id", "text", "type", "context", "tags", "metadata", "document_id", "mentioned_at", "occurred_start", "occurred_end", "entities"] as const satisfies readonly (keyof RecallResult)[];
const REFLECT_READ = ["text", "based_on"] as const satisfies readonly (keyof ReflectResponse)[];
const DOCUMENT_READ = ["id", "bank_id", "memory_unit_count", "tags", "created_at", "updated_at"] as const satisfies readonly (keyof DocumentResponse)[];

/** Property names of `type <name> = { … };` in the official declaration file. */
function declaredKeys(dts: string, name: string): Set<string> {
  const start = dts.indexOf(`\ntype ${name} = {\n`);
  if (start < 0) throw new Error(`type ${name} not found in the official declarations`);
  const end = dts.indexOf("\n};", start);
  const body = dts.slice(start, end);
  return new Set([...body.matchAll(/^ {4}([a-z_]+)\??: /gm)].map((m) => m[1] ?? ""));
}

interface Sent {
  readonly path: string;
  readonly body: Record<string, unknown>;
}

describe("memory requests and answers against the official client's types", () => {
  let bank: LocalBank;
  let dts: string;
  const sent: Sent[] = [];
  const realFetch = globalThis.fetch;

  beforeAll(async () => {
    const require = createRequire(import.meta.url);
    dts = readFileSync(join(dirname(require.resolve("@vectorize-io/hindsight-client")), "index.d.ts"), "utf8");
    bank = await startLocalBank();
    vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
      const request = new Request(input, init);
      const text = request.body === null ? "" : await request.clone().text();
      if (text !== "") sent.push({ path: new URL(request.url).pathname, body: JSON.parse(text) as Record<string, unknown> });
      return realFetch(request);
    });
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await bank.close();
  });

  test("the typed key lists match the official declarations", () => {
    const check = (name: string, keys: readonly string[]): void => {
      const declared = declaredKeys(dts, name);
      for (const key of keys) expect(declared, `${name}.${key}`).toContain(key);
    };
    check("RetainRequest", RETAIN_KEYS);
    check("MemoryItem", ITEM_KEYS);
    check("RecallRequest", RECALL_KEYS);
    check("ReflectRequest", REFLECT_KEYS);
    check("RecallResponse", RECALL_READ);
    check("RecallResult", RESULT_READ);
    check("ReflectResponse", REFLECT_READ);
    check("DocumentResponse", DOCUMENT_READ);
    // Required request fields the official types name.
    expect(dts).toMatch(/\ntype RetainRequest = \{[^]*?\n {4}items: Array<MemoryItem>;/);
    expect(dts).toMatch(/\ntype MemoryItem = \{[^]*?\n {4}content: string;/);
  });

  test("what the memory service sends and reads stays inside those types", async () => {
    const settings = loadSettings({ CONTEXT_FOLD_CONFIG: "off", CONTEXT_FOLD_HINDSIGHT_URL: bank.url, CONTEXT_FOLD_HINDSIGHT_BANK: "contract" }, tempDir("cf-contract-agent-")).memory;
    if (settings === undefined) throw new Error("no settings");
    const service = new MemoryService(settings);
    const session: MemorySession = { sessionId: "s1", project: { name: "alpha", source: "config", root: "/", optedOut: false }, bankId: "contract", outbox: await Outbox.open(undefined, 10), persisted: new Set(), recallTimeoutTold: false, lastRecalled: 0 };
    await service.enqueue(session, [{ content: "The cache lives in SQLite.", context: "decision", documentId: "doc-1", tags: ["project:alpha"], metadata: { kind: "preference" }, timestamp: "2026-12-01T00:00:00Z", entities: [{ text: "SQLite" }] }]);
    await service.flush(session);
    const recalled = await service.recall(session, "where does the cache live?", { maxTokens: 500, budget: "low" });
    expect(recalled.ok && recalled.memories.map((m) => m.hit.memory.text)).toEqual(["The cache lives in SQLite."]);
    const reflected = await service.reflect(session, "cache?");
    expect(reflected.ok && reflected.answer.basedOn.length).toBe(1);

    const byPath = (suffix: string): Record<string, unknown>[] => sent.filter((s) => s.path.endsWith(suffix)).map((s) => s.body);
    const [retain] = byPath("/memories");
    expect(retain).toBeDefined();
    for (const key of Object.keys(retain ?? {})) expect(RETAIN_KEYS as readonly string[]).toContain(key);
    for (const item of (retain?.["items"] ?? []) as Record<string, unknown>[]) {
      expect(typeof item["content"]).toBe("string");
      for (const key of Object.keys(item)) expect(ITEM_KEYS as readonly string[]).toContain(key);
    }
    for (const body of byPath("/memories/recall")) {
      expect(typeof body["query"]).toBe("string");
      for (const key of Object.keys(body)) expect(RECALL_KEYS as readonly string[]).toContain(key);
    }
    for (const body of byPath("/reflect")) {
      expect(typeof body["query"]).toBe("string");
      for (const key of Object.keys(body)) expect(REFLECT_KEYS as readonly string[]).toContain(key);
    }
    expect(byPath("/reflect")).toHaveLength(1);
    // The answers carry the fields we read.
    const recallAnswer = (await (await realFetch(`${bank.url}/v1/default/banks/contract/memories/recall`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query: "cache" }) })).json()) as Record<string, unknown>;
    for (const key of RECALL_READ) expect(recallAnswer).toHaveProperty(key);
    const result = (recallAnswer["results"] as Record<string, unknown>[])[0] ?? {};
    for (const key of RESULT_READ) expect(result).toHaveProperty(key);
    const documentAnswer = (await (await realFetch(`${bank.url}/v1/default/banks/contract/documents/doc-1`)).json()) as Record<string, unknown>;
    for (const key of DOCUMENT_READ) expect(documentAnswer).toHaveProperty(key);
  });
});
