// Our Hindsight client against the real local bank over HTTP: shapes normalized, paging under
// concurrent retains, faults retried, timeouts, bearer auth, and the pre-0.8.2 PATCH gate.
import { afterEach, describe, expect, it } from "vitest";
import { LINEAR_TIME_MS } from "@context-fold/test-support";
import { startLocalBank, type LocalBank } from "@context-fold/hindsight-local";
import { HindsightClient, HindsightError, HindsightShapeError, normalizeMemory, parseEntities } from "@context-fold/memory-gardener-client";

const open: LocalBank[] = [];
async function bankWith(options: Parameters<typeof startLocalBank>[0] = {}): Promise<LocalBank> {
  const bank = await startLocalBank(options);
  open.push(bank);
  return bank;
}
afterEach(async () => {
  await Promise.all(open.splice(0).map((b) => b.close()));
});

/** A fetch that records every request it forwards. */
function recordingFetch(log: { method: string; url: string; body: string | undefined; auth: string | null }[]): typeof fetch {
  return async (input, init) => {
    const headers = new Headers(init?.headers);
    log.push({ method: init?.method ?? "GET", url: String(input), body: typeof init?.body === "string" ? init.body : undefined, auth: headers.get("authorization") });
    return fetch(input, init);
  };
}

describe("normalizeMemory", () => {
  it("maps list, get and recall shapes onto one Memory", () => {
    const list = normalizeMemory({ id: "a", text: "t", fact_type: "world", entities: "Alice (PERSON), Google (ORGANIZATION)", date: "2024-01-01T00:00:00Z", context: "", state: "valid" });
    const get = normalizeMemory({ id: "a", text: "t", type: "world", entities: ["Alice", "Google"], mentioned_at: "2024-01-01T00:00:00Z", state: "invalidated", invalidation_reason: "r" });
    expect(list.entities).toEqual(["Alice", "Google"]);
    expect(get.entities).toEqual(["Alice", "Google"]);
    expect(list.factType).toBe("world");
    expect(get.factType).toBe("world");
    expect(list.date).toBe("2024-01-01T00:00:00Z");
    expect(get.date).toBe("2024-01-01T00:00:00Z");
    expect(list.context).toBeNull();
    expect(get).toMatchObject({ state: "invalidated", invalidationReason: "r" });
    expect(() => normalizeMemory({ id: "a", text: "t", type: "opinion" })).toThrow(HindsightShapeError);
    expect(() => normalizeMemory(null)).toThrow(HindsightShapeError);
  });

  it("parses a 1 MB entity string in linear time", { timeout: LINEAR_TIME_MS }, () => {
    const started = performance.now();
    expect(parseEntities(`${"A".repeat(1 << 20)} (`)).toHaveLength(1);
    expect(parseEntities("(".repeat(1 << 20))).toHaveLength(1);
    expect(performance.now() - started).toBeLessThan(10_000);
  });
});

describe("HindsightClient against the local bank", () => {
  it("creates a bank, retains, lists (state=valid sent explicitly), gets, patches, recalls", async () => {
    const bank = await bankWith();
    const log: Parameters<typeof recordingFetch>[0] = [];
    const client = new HindsightClient({ baseUrl: bank.url, fetch: recordingFetch(log) });
    expect(await client.health()).toMatchObject({ status: "healthy" });
    expect(await client.version()).toMatchObject({ apiVersion: "0.9.1", supportsPatch: true });
    await client.createBank("c1", { name: "C1" });
    const retained = await client.retain("c1", [
      { content: "Alice deploys on Fridays", timestamp: "2025-01-01T00:00:00Z", entities: [{ text: "Alice", type: "PERSON" }], tags: ["team"], metadata: { fact_type: "experience" } },
      { content: "The API server is api-1", context: "ops", documentId: "doc-1" },
    ]);
    expect(retained).toEqual({ success: true, itemsCount: 2 });
    const page = await client.listMemories("c1", { limit: 10 });
    expect(log.some((r) => r.url.includes("/memories/list?state=valid&limit=10&offset=0"))).toBe(true);
    expect(page.total).toBe(2);
    const alice = page.items.find((m) => m.text.startsWith("Alice"));
    expect(alice).toMatchObject({ factType: "experience", entities: ["Alice"], tags: ["team"], date: "2025-01-01T00:00:00.000Z" });
    const got = await client.getMemory("c1", alice?.id ?? "");
    expect(got).toEqual(alice);
    const patched = await client.patchMemory("c1", alice?.id ?? "", { state: "invalidated", reason: "left the team" });
    expect(patched).toMatchObject({ state: "invalidated", invalidationReason: "left the team" });
    expect((await client.listMemories("c1")).items.map((m) => m.id)).not.toContain(alice?.id);
    expect((await client.listMemories("c1", { state: "invalidated" })).items.map((m) => m.id)).toEqual([alice?.id]);
    const hits = await client.recall("c1", { query: "api server", types: ["world"] });
    expect(hits.map((h) => h.memory.text)).toEqual(["The API server is api-1"]);
    expect(hits[0]?.score).toBeGreaterThan(0);
    await expect(client.getMemory("c1", "00000000-0000-4000-8000-000000000000")).rejects.toMatchObject({
      status: 404,
      detail: "Memory unit '00000000-0000-4000-8000-000000000000' not found",
    });
    await expect(client.recall("c1", { query: "!!" })).rejects.toMatchObject({ status: 422 });
  });

  it("listAll loses and duplicates nothing while retains land between pages", async () => {
    const bank = await bankWith();
    const client = new HindsightClient({ baseUrl: bank.url });
    const before = Array.from({ length: 250 }, (_, i) => ({ content: `memory ${i}`, timestamp: new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString() }));
    await client.retain("pg", before);
    const seen: string[] = [];
    let page = 0;
    for await (const memory of client.listAll("pg", { limit: 40 })) {
      seen.push(memory.text);
      if (seen.length % 40 === 0) {
        page += 1;
        // Newer rows land at the front (shifting every offset) and older ones in the middle.
        await client.retain("pg", [
          { content: `concurrent new ${page}`, timestamp: "2030-01-01T00:00:00Z" },
          { content: `concurrent mid ${page}`, timestamp: "2024-01-01T01:00:30Z" },
        ]);
      }
    }
    expect(new Set(seen).size).toBe(seen.length);
    for (const item of before) expect(seen).toContain(item.content);
    expect(page).toBeGreaterThan(3);
  });

  it("listAll skips nothing when the caller invalidates rows between pages", async () => {
    const bank = await bankWith();
    const client = new HindsightClient({ baseUrl: bank.url });
    await client.retain("inv", Array.from({ length: 95 }, (_, i) => ({ content: `row ${i}`, timestamp: new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString() })));
    const seen: string[] = [];
    for await (const memory of client.listAll("inv", { limit: 10 })) {
      seen.push(memory.text);
      if (seen.length % 3 === 0) await client.patchMemory("inv", memory.id, { state: "invalidated", reason: "gardened" });
    }
    expect(new Set(seen).size).toBe(95);
    expect(seen).toHaveLength(95);
  });

  it("retries 429 (honouring Retry-After) and 500s, and survives slow answers", async () => {
    const bank = await bankWith({ faults: { status429: 2, retryAfterSeconds: 0.05 } });
    const client = new HindsightClient({ baseUrl: bank.url, retries: 3, backoffMs: 5 });
    await client.retain("f", [{ content: "survives 429s" }]);
    expect(bank.faults.counters().injected429).toBe(2);
    bank.faults.set({ status500: 3 });
    expect((await client.listMemories("f")).items.map((m) => m.text)).toEqual(["survives 429s"]);
    expect(bank.faults.counters().injected500).toBe(3);
    bank.faults.set({ delayMs: 100 });
    expect((await client.listMemories("f")).total).toBe(1);
    bank.faults.set({ status500: 10 });
    const error = await client.listMemories("f").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HindsightError);
    expect(error).toMatchObject({ status: 500, detail: "Internal Server Error (injected fault)" });
  });

  it("retain is not retried on a 500 (it may have stored the items), only on 429/502/503/504", async () => {
    const bank = await bankWith({ faults: { status500: 1 } });
    const client = new HindsightClient({ baseUrl: bank.url, retries: 3, backoffMs: 1 });
    await expect(client.retain("r", [{ content: "x" }])).rejects.toMatchObject({ status: 500 });
    expect(bank.faults.counters().requests).toBe(1);
  });

  it("times out a slow answer per attempt, retries, then reports status 0", async () => {
    const bank = await bankWith({ faults: { delayMs: 400 } });
    const client = new HindsightClient({ baseUrl: bank.url, timeoutMs: 100, retries: 1, backoffMs: 1 });
    const error = await client.health().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HindsightError);
    expect(error).toMatchObject({ status: 0 });
    expect((error as HindsightError).message).toContain("no answer within 100 ms");
    bank.faults.set({ delayMs: 150 });
    const patient = new HindsightClient({ baseUrl: bank.url, timeoutMs: 2_000 });
    expect(await patient.health()).toMatchObject({ status: "healthy" });
  });

  it("retries a refused connection and then reports it", async () => {
    const bank = await startLocalBank();
    const url = bank.url;
    await bank.close();
    const client = new HindsightClient({ baseUrl: url, retries: 2, backoffMs: 1 });
    await expect(client.health()).rejects.toMatchObject({ status: 0, code: "HINDSIGHT_HTTP" });
  });

  it("sends the bearer key and surfaces a 401", async () => {
    const bank = await bankWith({ apiKey: "sekret" });
    const log: Parameters<typeof recordingFetch>[0] = [];
    const good = new HindsightClient({ baseUrl: bank.url, apiKey: "sekret", fetch: recordingFetch(log) });
    await good.createBank("auth");
    expect(log[0]?.auth).toBe("Bearer sekret");
    const bad = new HindsightClient({ baseUrl: bank.url, apiKey: "wrong", retries: 0 });
    await expect(bad.listMemories("auth")).rejects.toMatchObject({ status: 401 });
  });

  it("reports a pre-0.8.2 server's missing PATCH clearly, before sending it", async () => {
    const bank = await bankWith({ version: "0.8.1" });
    const log: Parameters<typeof recordingFetch>[0] = [];
    const client = new HindsightClient({ baseUrl: bank.url, fetch: recordingFetch(log) });
    await client.retain("old", [{ content: "x" }]);
    const id = (await client.listMemories("old")).items[0]?.id ?? "";
    const error = await client.patchMemory("old", id, { state: "invalidated", reason: "r" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HindsightError);
    expect(error).toMatchObject({ status: 405 });
    expect((error as HindsightError).message).toMatch(/0\.8\.1 lacks PATCH.*0\.8\.2/);
    expect(log.filter((r) => r.method === "PATCH")).toHaveLength(0);
  });

  it("a PATCH that answers 200 but does not stick is visible to verify-after-write", async () => {
    const bank = await bankWith();
    const client = new HindsightClient({ baseUrl: bank.url });
    await client.retain("v", [{ content: "x" }]);
    const id = (await client.listMemories("v")).items[0]?.id ?? "";
    bank.faults.set({ patchNoop: 1 });
    expect((await client.patchMemory("v", id, { state: "invalidated", reason: "r" })).state).toBe("invalidated");
    expect((await client.getMemory("v", id)).state).toBe("valid");
  });

  it("keeps every retained memory across a bank restart mid-run", async () => {
    const { tempDir } = await import("@context-fold/test-support");
    const dataDir = tempDir();
    let bank = await startLocalBank({ dataDir });
    const port = bank.port;
    const client = new HindsightClient({ baseUrl: bank.url, retries: 5, backoffMs: 20 });
    for (let i = 0; i < 5; i++) await client.retain("rs", [{ content: `before ${i}` }]);
    await bank.close();
    bank = await bankWith({ dataDir, port });
    for (let i = 0; i < 5; i++) await client.retain("rs", [{ content: `after ${i}` }]);
    const texts: string[] = [];
    for await (const m of client.listAll("rs", { limit: 3 })) texts.push(m.text);
    expect(texts.sort()).toEqual([...Array.from({ length: 5 }, (_, i) => `after ${i}`), ...Array.from({ length: 5 }, (_, i) => `before ${i}`)].sort());
  });
});
