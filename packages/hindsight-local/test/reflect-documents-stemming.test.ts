// What the Pi extension's memory needs from the local bank: recall that meets inflected forms (light
// stemming), reflect in the official shape without a model, GET documents/{id} (did a retain land?),
// and a fault that carries a write out but loses its answer.
import { describe, expect, it } from "vitest";
import { LINEAR_TIME_MS } from "@context-fold/test-support";
import { HindsightClient } from "@context-fold/memory-gardener-client";
import { NO_MODEL_LINE, stem, startLocalBank, tokenize } from "@context-fold/hindsight-local";

describe("light stemming", () => {
  it("brings plural and verb forms together", () => {
    for (const group of [
      ["decide", "decides", "decided", "deciding"],
      ["store", "stores", "stored", "storing"],
      ["cache", "caches", "cached", "caching"],
      ["test", "tests", "tested", "testing"],
      ["stop", "stops", "stopped", "stopping"],
      ["story", "stories"],
      ["index", "indexes"],
      ["branch", "branches"],
      ["uses", "used", "using"],
    ]) {
      expect(new Set(group.map(stem)).size, group.join(",")).toBe(1);
    }
  });

  it("leaves short words, non-letters and words that only look inflected alone", () => {
    for (const word of ["is", "was", "bus", "this", "class", "status", "sing", "red", "v2s", "x86_64", "ffs"]) {
      const once = stem(word);
      expect(stem(once)).toBe(once);
    }
    expect(stem("class")).toBe("class");
    expect(stem("status")).toBe("status");
    expect(stem("this")).toBe("this");
    expect(stem("red")).toBe("red");
    expect(stem("sing")).toBe("sing");
    expect(stem("v2s")).toBe("v2s");
    expect(stem("called")).toBe("call");
    expect(stem("passed")).toBe("pass");
    // Different words stay apart.
    expect(stem("stored")).not.toBe(stem("started"));
    expect(stem("decision")).not.toBe(stem("decide"));
  });

  it("is linear on adversarial input", { timeout: LINEAR_TIME_MS }, () => {
    const long = `${"s".repeat(200_000)}ing ${"e".repeat(200_000)}d`;
    const start = performance.now();
    expect(tokenize(long)).toHaveLength(2);
    expect(performance.now() - start).toBeLessThan(2000);
  });
});

describe("recall, reflect and documents on the local bank", () => {
  it("recall finds a memory asked in other inflections, and tag isolation holds", async () => {
    const bank = await startLocalBank();
    const client = new HindsightClient({ baseUrl: bank.url, retries: 0 });
    try {
      await client.retain("b", [
        { content: "Always store the session cache in SQLite, never in JSON files.", tags: ["project:alpha"], documentId: "d1" },
        { content: "The build runs on Node 22.", tags: ["project:alpha"], documentId: "d2" },
        { content: "Always store the session cache in Redis.", tags: ["project:beta"], documentId: "d3" },
      ]);
      const hits = await client.recall("b", { query: "where are we storing caches for sessions?", tags: ["project:alpha"], tagsMatch: "all_strict" });
      expect(hits.map((h) => h.memory.text)).toEqual(["Always store the session cache in SQLite, never in JSON files."]);
      const none = await client.recall("b", { query: "kubernetes deployment", tags: ["project:alpha"], tagsMatch: "all_strict" });
      expect(none).toEqual([]);
    } finally {
      await bank.close();
    }
  });

  it("reflect answers in the official shape: the no-model line, the memories grouped by kind, based_on with include.facts", async () => {
    const bank = await startLocalBank();
    const client = new HindsightClient({ baseUrl: bank.url, retries: 0 });
    try {
      await client.retain("b", [
        { content: "The cache lives in SQLite.", tags: ["project:alpha"] },
        { content: "We debugged the cache eviction yesterday.", tags: ["project:alpha"], metadata: { fact_type: "experience" } },
        { content: "Unrelated: the logo is blue.", tags: ["project:alpha"] },
      ]);
      const answer = await client.reflect("b", { query: "what do we know about caching?", tags: ["project:alpha"], tagsMatch: "all_strict" });
      expect(answer.text.split("\n")[0]).toBe(NO_MODEL_LINE);
      expect(answer.text).toContain("## World facts (1)\n- The cache lives in SQLite.");
      expect(answer.text).toContain("## Experiences (1)\n- We debugged the cache eviction yesterday.");
      expect(answer.text).not.toContain("logo");
      expect(answer.basedOn.map((f) => f.text).sort()).toEqual(["The cache lives in SQLite.", "We debugged the cache eviction yesterday."]);
      const raw = (await (await fetch(`${bank.url}/v1/default/banks/b/reflect`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query: "cache" }) })).json()) as Record<string, unknown>;
      expect(raw["based_on"]).toBeNull();
      expect(typeof raw["text"]).toBe("string");
      const empty = await client.reflect("b", { query: "kubernetes" });
      expect(empty.text).toContain("No memory matched the query.");
      expect(empty.basedOn).toEqual([]);
      const bad = await fetch(`${bank.url}/v1/default/banks/b/reflect`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({}) });
      expect(bad.status).toBe(422);
    } finally {
      await bank.close();
    }
  });

  it("GET documents/{id}: 200 with the unit count and tags when retained, 404 (null) when not", async () => {
    const bank = await startLocalBank();
    const client = new HindsightClient({ baseUrl: bank.url, retries: 0 });
    try {
      await client.retain("b", [{ content: "first", documentId: "ctx:1", tags: ["project:alpha"] }]);
      const doc = await client.getDocument("b", "ctx:1");
      expect(doc).toMatchObject({ id: "ctx:1", bankId: "b", memoryUnitCount: 1, tags: ["project:alpha"] });
      expect(await client.getDocument("b", "ctx:2")).toBeNull();
      expect(await client.getDocument("other", "ctx:1")).toBeNull();
      const raw = await fetch(`${bank.url}/v1/default/banks/b/documents/${encodeURIComponent("ctx:1")}`);
      expect(Object.keys((await raw.json()) as object)).toEqual(expect.arrayContaining(["id", "bank_id", "original_text", "content_hash", "created_at", "updated_at", "memory_unit_count"]));
    } finally {
      await bank.close();
    }
  });

  it("the lose-answer fault stores the write but drops the connection unanswered", async () => {
    const bank = await startLocalBank({ faults: { loseAnswer: 1 } });
    const client = new HindsightClient({ baseUrl: bank.url, retries: 0, timeoutMs: 2000 });
    try {
      await expect(client.retain("b", [{ content: "landed", documentId: "lost-1" }])).rejects.toMatchObject({ status: 0 });
      expect(await client.getDocument("b", "lost-1")).toMatchObject({ memoryUnitCount: 1 });
      expect(bank.faults.counters().answersLost).toBe(1);
      // The next write is answered normally.
      await expect(client.retain("b", [{ content: "answered", documentId: "ok-1" }])).resolves.toMatchObject({ success: true });
    } finally {
      await bank.close();
    }
  });
});
