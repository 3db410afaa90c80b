// Contract test: the official @vectorize-io/hindsight-client (generated from the OpenAPI document)
// runs against the local bank. Every request it sends must be an operation of the official subset
// (path, query names, body valid against the request schema) and be served with a 200.
import { readFileSync } from "node:fs";
import { Ajv2020 } from "ajv/dist/2020.js";
import { HindsightClient as OfficialClient, createClient, createConfig, sdk } from "@vectorize-io/hindsight-client";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { describeShared, sharedFixture } from "@context-fold/test-support";
import { startLocalBank, type LocalBank } from "@context-fold/hindsight-local";
import { HindsightClient } from "@context-fold/memory-gardener-client";

interface Operation {
  parameters?: { in: string; name: string }[];
  requestBody?: { content: Record<string, unknown> };
}
interface OpenApiDoc {
  paths: Record<string, Record<string, Operation>>;
}
interface Sent {
  method: string;
  url: URL;
  body: string;
  status: number;
}

describeShared("the official hindsight-client against the local bank", () => {
  let bank: LocalBank;
  let doc: OpenApiDoc;
  let ajv: Ajv2020;
  const sent: Sent[] = [];
  const realFetch = globalThis.fetch;

  beforeAll(async () => {
    doc = JSON.parse(readFileSync(sharedFixture("hindsight", "openapi.subset.json"), "utf8")) as OpenApiDoc;
    ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
    ajv.addSchema(doc, "openapi");
    bank = await startLocalBank();
    vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
      const request = new Request(input, init);
      const body = request.body === null ? "" : await request.clone().text();
      const response = await realFetch(request);
      sent.push({ method: request.method, url: new URL(request.url), body, status: response.status });
      return response;
    });
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await bank.close();
  });

  /** The subset operation a request hits, by matching its path against the templates. */
  function operationOf(method: string, pathname: string): { template: string; op: Operation } | null {
    for (const [template, ops] of Object.entries(doc.paths)) {
      const pattern = new RegExp(`^${template.replace(/\{[a-z_]+\}/g, "[^/]+")}$`);
      const op = ops[method.toLowerCase()];
      // "/memories/list" and "/memories/recall" also fit "{memory_id}": prefer the literal template.
      if (op !== undefined && pattern.test(pathname) && !(template.endsWith("{memory_id}") && /\/memories\/(list|recall)$/.test(pathname))) return { template, op };
    }
    return null;
  }

  function checkSent(): void {
    expect(sent.length).toBeGreaterThan(0);
    for (const request of sent.splice(0)) {
      const label = `${request.method} ${request.url.pathname}${request.url.search}`;
      const hit = operationOf(request.method, request.url.pathname);
      expect(hit, `${label} is an operation of the subset`).not.toBeNull();
      if (hit === null) continue;
      const names = new Set((hit.op.parameters ?? []).filter((p) => p.in === "query").map((p) => p.name));
      for (const key of request.url.searchParams.keys()) expect(names.has(key), `${label}: query parameter ${key}`).toBe(true);
      if (hit.op.requestBody !== undefined) {
        const pointer = `openapi#/paths/${hit.template.replaceAll("/", "~1")}/${request.method.toLowerCase()}/requestBody/content/application~1json/schema`;
        const validate = ajv.compile({ $ref: pointer });
        expect(validate(JSON.parse(request.body)), `${label} body: ${JSON.stringify(validate.errors)}`).toBe(true);
      }
      expect(request.status, label).toBe(200);
    }
  }

  it("version, createBank, retain, retainBatch, listMemories, recall", async () => {
    const official = new OfficialClient({ baseUrl: bank.url });
    const version = await official.getVersion();
    expect(version.api_version).toBe("0.9.1");
    const profile = await official.createBank("contract", { name: "Contract", reflectMission: "test", dispositionEmpathy: 4 });
    expect(profile.bank_id).toBe("contract");
    const one = await official.retain("contract", "Alice maintains the billing service", { timestamp: new Date("2025-03-01T00:00:00Z"), context: "team", tags: ["billing"], entities: [{ text: "Alice", type: "PERSON" }], metadata: { source: "chat" } });
    expect(one).toMatchObject({ success: true, bank_id: "contract", items_count: 1 });
    const batch = await official.retainBatch("contract", [{ content: "Bob owns the search cluster" }, { content: "Deploys freeze on Fridays", timestamp: "2025-04-01T00:00:00Z", metadata: { fact_type: "experience" } }], { documentId: "doc-7" });
    expect(batch.items_count).toBe(2);
    const list = await official.listMemories("contract", { limit: 2, offset: 0, state: "valid", type: "world", q: "a" });
    expect(list.total).toBe(2);
    const recall = await official.recall("contract", "who maintains billing", { types: ["world"], budget: "low", maxTokens: 1024, tags: ["billing"], tagsMatch: "any" });
    expect(recall.results[0]?.text).toBe("Alice maintains the billing service");
    checkSent();
  });

  it("the low-level sdk: health, get and update (PATCH) a memory", async () => {
    const client = createClient(createConfig({ baseUrl: bank.url }));
    const health = await sdk.healthEndpointHealthGet({ client });
    expect(health.response.status).toBe(200);
    const list = await sdk.listMemories({ client, path: { bank_id: "contract" }, query: { limit: 10, state: "valid" } });
    const id = String((list.data?.items[0] as { id: string } | undefined)?.id);
    const got = await sdk.getMemory({ client, path: { bank_id: "contract", memory_id: id } });
    expect((got.data as { id: string }).id).toBe(id);
    const patched = await sdk.updateMemory({ client, path: { bank_id: "contract", memory_id: id }, body: { state: "invalidated", reason: "contract test" } });
    expect((patched.data as { state: string }).state).toBe("invalidated");
    checkSent();
  });

  it("our client's requests are operations of the subset too", async () => {
    const ours = new HindsightClient({ baseUrl: bank.url });
    await ours.version();
    await ours.health();
    await ours.createBank("ours", { name: "Ours" });
    await ours.retain("ours", [{ content: "Carol runs the on-call rota", timestamp: "2025-05-01T00:00:00Z", entities: [{ text: "Carol" }], tags: ["ops"], metadata: { k: "v" }, documentId: "d", context: "c" }]);
    const page = await ours.listMemories("ours", { type: "world", q: "carol", tags: ["ops"], tagsMatch: "any", limit: 5 });
    const id = page.items[0]?.id ?? "";
    await ours.getMemory("ours", id);
    await ours.recall("ours", { query: "on-call", types: ["world"], budget: "mid", maxTokens: 512, tags: ["ops"] });
    await ours.patchMemory("ours", id, { state: "invalidated", reason: "rota changed" });
    checkSent();
  });
});
