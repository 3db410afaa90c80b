// Every endpoint of the local bank, success and error cases, checked with Ajv against the official
// OpenAPI subset (../shared/fixtures/hindsight/openapi.subset.json, $refs resolved from the doc).
import { readFileSync } from "node:fs";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeShared, sharedFixture } from "@context-fold/test-support";
import { startLocalBank, type LocalBank } from "@context-fold/hindsight-local";

interface OpenApiDoc {
  paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>>;
}

// Statuses FastAPI answers with `{"detail": "<text>"}` (HTTPException) that the document leaves out.
const HTTP_EXCEPTION = { type: "object", required: ["detail"], properties: { detail: { type: "string" } } };

describeShared("local bank responses conform to the official OpenAPI subset", () => {
  let bank: LocalBank;
  let doc: OpenApiDoc;
  let ajv: Ajv2020;
  const seen = new Set<string>();

  beforeAll(async () => {
    doc = JSON.parse(readFileSync(sharedFixture("hindsight", "openapi.subset.json"), "utf8")) as OpenApiDoc;
    ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
    ajv.addSchema(doc, "openapi");
    bank = await startLocalBank({ now: () => new Date("2026-01-02T03:04:05.000Z") });
  });
  afterAll(() => bank.close());

  async function call(method: string, path: string, body?: unknown, raw?: string): Promise<{ status: number; json: unknown }> {
    const res = await fetch(`${bank.url}${path}`, {
      method,
      headers: { "content-type": "application/json" },
      ...(raw !== undefined ? { body: raw } : body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, json: await res.json() };
  }

  /** Validate `json` as the documented answer of `template` for `status`. */
  function conforms(method: string, template: string, status: number, json: unknown): void {
    const op = doc.paths[template]?.[method.toLowerCase()];
    expect(op, `${method} ${template} is in the document`).toBeDefined();
    const documented = op?.responses[String(status)];
    let schema: unknown;
    if (documented !== undefined) {
      const index = Object.keys(doc.paths).indexOf(template);
      expect(index).toBeGreaterThanOrEqual(0);
      const pointer = `openapi#/paths/${template.replaceAll("~", "~0").replaceAll("/", "~1")}/${method.toLowerCase()}/responses/${status}/content/application~1json/schema`;
      schema = { $ref: pointer };
    } else {
      expect([400, 401, 404, 405]).toContain(status);
      schema = HTTP_EXCEPTION;
    }
    const validate = ajv.compile(schema as object);
    const ok = validate(json);
    expect(ok, `${method} ${template} ${status}: ${JSON.stringify(validate.errors)}`).toBe(true);
    seen.add(`${method} ${template}`);
  }

  const B = "/v1/default/banks/{bank_id}";
  let worldId = "";
  let observationId = "";

  it("the validator is not vacuous: a list answer without total, or a 422 with a string detail, fails", () => {
    const pointer = (path: string, status: number): string => `openapi#/paths/${path.replaceAll("/", "~1")}/get/responses/${status}/content/application~1json/schema`;
    const list = ajv.compile({ $ref: pointer(`${B}/memories/list`, 200) });
    expect(list({ items: [], total: 0, limit: 1, offset: 0 })).toBe(true);
    expect(list({ items: [], limit: 1, offset: 0 })).toBe(false);
    const invalid = ajv.compile({ $ref: pointer(`${B}/memories/list`, 422) });
    expect(invalid({ detail: "nope" })).toBe(false);
  });

  it("health and version", async () => {
    const health = await call("GET", "/health");
    expect(health.status).toBe(200);
    conforms("GET", "/health", 200, health.json);
    const version = await call("GET", "/version");
    expect(version.status).toBe(200);
    conforms("GET", "/version", 200, version.json);
  });

  it("bank create (PUT), list banks, and their 422s", async () => {
    const created = await call("PUT", "/v1/default/banks/conf", { name: "Conformance", disposition: { skepticism: 4, literalism: 2, empathy: 3 } });
    expect(created.status).toBe(200);
    conforms("PUT", B, 200, created.json);
    const badTrait = await call("PUT", "/v1/default/banks/conf", { disposition_empathy: 9 });
    expect(badTrait.status).toBe(422);
    conforms("PUT", B, 422, badTrait.json);
    const badJson = await call("PUT", "/v1/default/banks/conf", undefined, "{nope");
    expect(badJson.status).toBe(422);
    conforms("PUT", B, 422, badJson.json);
    const banks = await call("GET", "/v1/default/banks?limit=10");
    expect(banks.status).toBe(200);
    conforms("GET", "/v1/default/banks", 200, banks.json);
    const badLimit = await call("GET", "/v1/default/banks?limit=-1");
    expect(badLimit.status).toBe(422);
    conforms("GET", "/v1/default/banks", 422, badLimit.json);
  });

  it("retain and its 422s", async () => {
    const ok = await call("POST", "/v1/default/banks/conf/memories", {
      items: [
        { content: "The deploy server is db-1", timestamp: "2025-06-01T00:00:00Z", context: "ops", entities: [{ text: "db-1", type: "HOST" }], tags: ["ops"] },
        { content: "Observed: deploys happen on Fridays", metadata: { fact_type: "observation" } },
      ],
      async: false,
    });
    expect(ok.status).toBe(200);
    conforms("POST", `${B}/memories`, 200, ok.json);
    for (const body of [{}, { items: [{}] }, { items: [{ content: "x", timestamp: "yesterday-ish" }] }, { items: "no" }]) {
      const bad = await call("POST", "/v1/default/banks/conf/memories", body);
      expect(bad.status, JSON.stringify(body)).toBe(422);
      conforms("POST", `${B}/memories`, 422, bad.json);
    }
  });

  it("list, both states, and its 400/422s", async () => {
    const list = await call("GET", "/v1/default/banks/conf/memories/list?state=valid&limit=10&offset=0");
    expect(list.status).toBe(200);
    conforms("GET", `${B}/memories/list`, 200, list.json);
    const items = (list.json as { items: { id: string; fact_type: string }[] }).items;
    worldId = items.find((i) => i.fact_type === "world")?.id ?? "";
    observationId = items.find((i) => i.fact_type === "observation")?.id ?? "";
    expect(worldId).not.toBe("");
    expect(observationId).not.toBe("");
    const archive = await call("GET", "/v1/default/banks/conf/memories/list?state=invalidated");
    conforms("GET", `${B}/memories/list`, 200, archive.json);
    for (const q of ["limit=abc", "offset=-3", "tags_match=some"]) {
      const bad = await call("GET", `/v1/default/banks/conf/memories/list?${q}`);
      expect(bad.status, q).toBe(422);
      conforms("GET", `${B}/memories/list`, 422, bad.json);
    }
    const badType = await call("GET", "/v1/default/banks/conf/memories/list?type=opinion");
    expect(badType.status).toBe(400);
    conforms("GET", `${B}/memories/list`, 400, badType.json);
  });

  it("get: 200, 400 bad UUID, 404 missing", async () => {
    const got = await call("GET", `/v1/default/banks/conf/memories/${worldId}`);
    expect(got.status).toBe(200);
    conforms("GET", `${B}/memories/{memory_id}`, 200, got.json);
    const bad = await call("GET", "/v1/default/banks/conf/memories/not-a-uuid");
    expect(bad.status).toBe(400);
    conforms("GET", `${B}/memories/{memory_id}`, 400, bad.json);
    const missing = await call("GET", "/v1/default/banks/conf/memories/00000000-0000-4000-8000-000000000000");
    expect(missing.status).toBe(404);
    expect(missing.json).toEqual({ detail: "Memory unit '00000000-0000-4000-8000-000000000000' not found" });
    conforms("GET", `${B}/memories/{memory_id}`, 404, missing.json);
  });

  it("patch: 200, idempotent re-invalidation, 400s and 422s", async () => {
    const path = `/v1/default/banks/conf/memories/${worldId}`;
    const ok = await call("PATCH", path, { state: "invalidated", reason: "superseded" });
    expect(ok.status).toBe(200);
    conforms("PATCH", `${B}/memories/{memory_id}`, 200, ok.json);
    const again = await call("PATCH", path, { state: "invalidated", reason: "superseded" });
    expect(again.status).toBe(200);
    const editInvalidated = await call("PATCH", path, { text: "changed" });
    expect(editInvalidated.status).toBe(400);
    conforms("PATCH", `${B}/memories/{memory_id}`, 400, editInvalidated.json);
    const observation = await call("PATCH", `/v1/default/banks/conf/memories/${observationId}`, { state: "invalidated" });
    expect(observation.status).toBe(400);
    conforms("PATCH", `${B}/memories/{memory_id}`, 400, observation.json);
    const badUuid = await call("PATCH", "/v1/default/banks/conf/memories/xyz", { state: "invalidated" });
    expect(badUuid.status).toBe(400);
    conforms("PATCH", `${B}/memories/{memory_id}`, 400, badUuid.json);
    const missing = await call("PATCH", "/v1/default/banks/conf/memories/00000000-0000-4000-8000-000000000000", { state: "valid" });
    expect(missing.status).toBe(404);
    conforms("PATCH", `${B}/memories/{memory_id}`, 404, missing.json);
    for (const body of [{}, { reason: "alone" }, { state: "deleted" }]) {
      const bad = await call("PATCH", path, body);
      expect(bad.status, JSON.stringify(body)).toBe(422);
      conforms("PATCH", `${B}/memories/{memory_id}`, 422, bad.json);
    }
    const revert = await call("PATCH", path, { state: "valid" });
    expect(revert.status).toBe(200);
    expect((revert.json as { state: string }).state).toBe("valid");
  });

  it("recall: 200 with scores, and 422 without a word character or query", async () => {
    const ok = await call("POST", "/v1/default/banks/conf/memories/recall", { query: "deploy server", types: ["world", "experience"], budget: "low", max_tokens: 4096 });
    expect(ok.status).toBe(200);
    conforms("POST", `${B}/memories/recall`, 200, ok.json);
    expect((ok.json as { results: unknown[] }).results.length).toBeGreaterThan(0);
    for (const body of [{ query: "?!" }, {}, { query: "x", budget: "huge" }]) {
      const bad = await call("POST", "/v1/default/banks/conf/memories/recall", body);
      expect(bad.status, JSON.stringify(body)).toBe(422);
      conforms("POST", `${B}/memories/recall`, 422, bad.json);
    }
  });

  it("405 for a PATCH on a pre-0.8.2 server, and every subset endpoint except reflect was exercised", async () => {
    const old = await startLocalBank({ version: "0.8.1" });
    try {
      const res = await fetch(`${old.url}/v1/default/banks/b/memories/00000000-0000-4000-8000-000000000000`, { method: "PATCH", headers: { "content-type": "application/json" }, body: '{"state":"invalidated"}' });
      expect(res.status).toBe(405);
      conforms("PATCH", `${B}/memories/{memory_id}`, 405, await res.json());
    } finally {
      await old.close();
    }
    const all = Object.entries(doc.paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`));
    expect(all.filter((op) => !seen.has(op))).toEqual([`POST ${B}/reflect`]);
  });
});
