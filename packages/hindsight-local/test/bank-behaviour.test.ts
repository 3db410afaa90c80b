// The local bank's semantics: list order and total, the archive, recall, faults, persistence
// across restarts, and a crash that tears the journal's last line.
import { appendFileSync, readdirSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { LINEAR_TIME_MS, tempDir } from "@context-fold/test-support";
import { FAULT_HEADER, JOURNAL_FILE, LocalBankOptionError, SNAPSHOT_FILE, startLocalBank } from "@context-fold/hindsight-local";

async function call(url: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; json: unknown; headers: Headers }> {
  const res = await fetch(`${url}${path}`, { method, headers: { "content-type": "application/json", ...headers }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  return { status: res.status, json: await res.json(), headers: res.headers };
}

interface ListJson {
  items: { id: string; text: string; fact_type: string; entities: string; state: string; mentioned_at: string | null }[];
  total: number;
}

describe("list order, total and the archive", () => {
  it("orders by mentioned_at DESC NULLS LAST, then newest first; invalidated rows move to the archive", async () => {
    const bank = await startLocalBank();
    try {
      await call(bank.url, "POST", "/v1/default/banks/b/memories", {
        items: [
          { content: "old", timestamp: "2024-01-01T00:00:00Z" },
          { content: "undated", timestamp: "unset" },
          { content: "new", timestamp: "2025-01-01T00:00:00Z" },
          { content: "tie-first", timestamp: "2024-06-01T00:00:00Z" },
          { content: "tie-second", timestamp: "2024-06-01T00:00:00Z", metadata: { fact_type: "experience" } },
        ],
      });
      const list = (await call(bank.url, "GET", "/v1/default/banks/b/memories/list?state=valid")).json as ListJson;
      expect(list.items.map((i) => i.text)).toEqual(["new", "tie-second", "tie-first", "old", "undated"]);
      expect(list.total).toBe(5);
      const page = (await call(bank.url, "GET", "/v1/default/banks/b/memories/list?limit=2&offset=2")).json as ListJson;
      expect(page.items.map((i) => i.text)).toEqual(["tie-first", "old"]);
      expect(page.total).toBe(5);
      const typed = (await call(bank.url, "GET", "/v1/default/banks/b/memories/list?type=experience")).json as ListJson;
      expect(typed.items.map((i) => i.text)).toEqual(["tie-second"]);
      const q = (await call(bank.url, "GET", "/v1/default/banks/b/memories/list?q=TIE")).json as ListJson;
      expect(q.total).toBe(2);

      const oldId = list.items[3]?.id ?? "";
      const patched = await call(bank.url, "PATCH", `/v1/default/banks/b/memories/${oldId}`, { state: "invalidated", reason: "stale" });
      expect(patched.json).toMatchObject({ state: "invalidated", invalidation_reason: "stale", type: "world" });
      const after = (await call(bank.url, "GET", "/v1/default/banks/b/memories/list?state=valid")).json as ListJson;
      expect(after.items.map((i) => i.text)).not.toContain("old");
      expect(after.total).toBe(4);
      const archive = (await call(bank.url, "GET", "/v1/default/banks/b/memories/list?state=invalidated")).json as ListJson;
      expect(archive.items.map((i) => i.text)).toEqual(["old"]);
      const got = (await call(bank.url, "GET", `/v1/default/banks/b/memories/${oldId}`)).json as { state: string };
      expect(got.state).toBe("invalidated");
      const recall = (await call(bank.url, "POST", "/v1/default/banks/b/memories/recall", { query: "old new" })).json as { results: { text: string; scores: { final: number } }[] };
      expect(recall.results.map((r) => r.text)).toEqual(["new"]);
      expect(recall.results[0]?.scores.final).toBeGreaterThan(0);
    } finally {
      await bank.close();
    }
  });

  it("keeps list and get shapes apart (fact_type + joined entities vs type + array)", async () => {
    const bank = await startLocalBank();
    try {
      await call(bank.url, "POST", "/v1/default/banks/s/memories", { items: [{ content: "Alice works at Google", entities: [{ text: "Alice" }, { text: "Google" }] }] });
      const item = ((await call(bank.url, "GET", "/v1/default/banks/s/memories/list")).json as ListJson).items[0];
      expect(item).toMatchObject({ fact_type: "world", entities: "Alice, Google" });
      expect(item).not.toHaveProperty("type");
      const got = (await call(bank.url, "GET", `/v1/default/banks/s/memories/${item?.id ?? ""}`)).json as Record<string, unknown>;
      expect(got).toMatchObject({ type: "world", entities: ["Alice", "Google"] });
      expect(got).not.toHaveProperty("fact_type");
    } finally {
      await bank.close();
    }
  });

  it("ranks recall deterministically and keeps a 1 MB one-character query linear", { timeout: LINEAR_TIME_MS }, async () => {
    const bank = await startLocalBank();
    try {
      await call(bank.url, "POST", "/v1/default/banks/r/memories", { items: [{ content: "postgres runs on db-1" }, { content: "redis runs on cache-1" }, { content: "postgres backups nightly on db-1" }] });
      const a = (await call(bank.url, "POST", "/v1/default/banks/r/memories/recall", { query: "postgres db" })).json;
      const b = (await call(bank.url, "POST", "/v1/default/banks/r/memories/recall", { query: "postgres db" })).json;
      expect(a).toEqual(b);
      const texts = (a as { results: { text: string }[] }).results.map((r) => r.text);
      expect(texts).toHaveLength(2);
      expect(texts).not.toContain("redis runs on cache-1");
      const started = performance.now();
      const big = await call(bank.url, "POST", "/v1/default/banks/r/memories/recall", { query: "a".repeat(1 << 20) });
      expect(big.status).toBe(200);
      expect(performance.now() - started).toBeLessThan(10_000);
    } finally {
      await bank.close();
    }
  });
});

describe("faults", () => {
  it("injects 429 (with Retry-After), 500, delay and a PATCH that does not stick; via controller, admin route and header", async () => {
    const bank = await startLocalBank({ faults: { status429: 1, retryAfterSeconds: 0.01 }, faultRoutes: true });
    try {
      const first = await call(bank.url, "GET", "/health");
      expect(first.status).toBe(429);
      expect(first.headers.get("retry-after")).toBe("0.01");
      expect((await call(bank.url, "GET", "/health")).status).toBe(200);
      bank.faults.set({ status500: 2 });
      expect((await call(bank.url, "GET", "/version")).status).toBe(500);
      expect((await call(bank.url, "GET", "/version")).status).toBe(500);
      expect((await call(bank.url, "GET", "/version")).status).toBe(200);
      const admin = await call(bank.url, "PUT", "/_local/faults", { delayMs: 150 });
      expect(admin.json).toMatchObject({ plan: { delayMs: 150 } });
      const started = performance.now();
      await call(bank.url, "GET", "/health");
      expect(performance.now() - started).toBeGreaterThanOrEqual(140);
      bank.faults.clear();
      expect((await call(bank.url, "GET", "/health", undefined, { [FAULT_HEADER]: "500" })).status).toBe(500);

      await call(bank.url, "POST", "/v1/default/banks/f/memories", { items: [{ content: "keep me" }] });
      const id = ((await call(bank.url, "GET", "/v1/default/banks/f/memories/list")).json as ListJson).items[0]?.id ?? "";
      const noop = await call(bank.url, "PATCH", `/v1/default/banks/f/memories/${id}`, { state: "invalidated" }, { [FAULT_HEADER]: "patch-noop" });
      expect(noop.status).toBe(200);
      expect((noop.json as { state: string }).state).toBe("invalidated");
      expect(((await call(bank.url, "GET", `/v1/default/banks/f/memories/${id}`)).json as { state: string }).state).toBe("valid");
      expect(bank.faults.counters()).toMatchObject({ injected429: 1, injected500: 3, patchNoops: 1 });
    } finally {
      await bank.close();
    }
  });

  it("refuses a non-loopback host", async () => {
    await expect(startLocalBank({ host: "0.0.0.0" as "127.0.0.1" })).rejects.toBeInstanceOf(LocalBankOptionError);
  });
});

describe("persistence", () => {
  async function retainTexts(url: string, texts: string[]): Promise<void> {
    const res = await call(url, "POST", "/v1/default/banks/p/memories", { items: texts.map((content) => ({ content })) });
    expect(res.status).toBe(200);
  }
  async function texts(url: string, state = "valid"): Promise<string[]> {
    return ((await call(url, "GET", `/v1/default/banks/p/memories/list?state=${state}&limit=1000`)).json as ListJson).items.map((i) => i.text).sort();
  }

  it("survives a restart (journal + snapshot) with invalidations intact", async () => {
    const dataDir = tempDir();
    let bank = await startLocalBank({ dataDir });
    await retainTexts(bank.url, ["one", "two"]);
    const id = ((await call(bank.url, "GET", "/v1/default/banks/p/memories/list?q=two")).json as ListJson).items[0]?.id ?? "";
    await call(bank.url, "PATCH", `/v1/default/banks/p/memories/${id}`, { state: "invalidated", reason: "r" });
    await bank.close();
    expect(existsSync(join(dataDir, SNAPSHOT_FILE))).toBe(true);
    bank = await startLocalBank({ dataDir });
    await retainTexts(bank.url, ["three"]);
    expect(await texts(bank.url)).toEqual(["one", "three"]);
    expect(await texts(bank.url, "invalidated")).toEqual(["two"]);
    await bank.close();
    bank = await startLocalBank({ dataDir });
    expect(await texts(bank.url)).toEqual(["one", "three"]);
    await bank.close();
  });

  it("loses nothing acknowledged when a crash tears the journal's last line", async () => {
    const dataDir = tempDir();
    const bank = await startLocalBank({ dataDir });
    await retainTexts(bank.url, ["acked-1", "acked-2"]);
    // Simulate a crash: copy the journal as it was on disk while the server ran (before close snapshots it).
    const journal = readFileSync(join(dataDir, JOURNAL_FILE), "utf8");
    await bank.close();
    rmSync(join(dataDir, SNAPSHOT_FILE));
    writeFileSync(join(dataDir, JOURNAL_FILE), journal);
    appendFileSync(join(dataDir, JOURNAL_FILE), '{"n":4,"sum":"0123456789abcdef","rec":{"op":"memory","memory":{"id":"torn-wri');
    writeFileSync(join(dataDir, `${SNAPSHOT_FILE}.tmp`), "half a snapsh");
    writeFileSync(join(dataDir, `.${SNAPSHOT_FILE}.123.0123456789ab.tmp`), "half a snapsh");
    const again = await startLocalBank({ dataDir });
    try {
      expect(again.tornBytesDropped).toBeGreaterThan(0);
      // It cannot know whether the cut record was acknowledged (a crash mid-append) or not: it never says "nothing lost".
      expect(again.damage).toEqual([expect.objectContaining({ file: join(dataDir, JOURNAL_FILE), line: 4, lost: "unknown" })]);
      expect(readdirSync(dataDir).filter((n) => n.endsWith(".tmp"))).toEqual([]);
      expect(await texts(again.url)).toEqual(["acked-1", "acked-2"]);
      await retainTexts(again.url, ["after-crash"]);
      expect(readFileSync(join(dataDir, JOURNAL_FILE), "utf8").endsWith("\n")).toBe(true);
    } finally {
      await again.close();
    }
    const third = await startLocalBank({ dataDir });
    expect(await texts(third.url)).toEqual(["acked-1", "acked-2", "after-crash"]);
    await third.close();
  });

  it("keeps every intact record around a damaged line, names it, and keeps a copy of the damaged file", async () => {
    const dataDir = tempDir();
    const bank = await startLocalBank({ dataDir });
    await retainTexts(bank.url, ["first"]);
    await retainTexts(bank.url, ["second"]);
    await retainTexts(bank.url, ["third"]);
    const journal = readFileSync(join(dataDir, JOURNAL_FILE), "utf8");
    await bank.close();
    rmSync(join(dataDir, SNAPSHOT_FILE));
    // A byte flipped inside the text of the second memory, length unchanged: only its checksum tells.
    const lines = journal.split("\n");
    const flipped = lines.map((l) => l.replace('"text":"second"', '"text":"secOnd"'));
    expect(flipped).not.toEqual(lines);
    writeFileSync(join(dataDir, JOURNAL_FILE), flipped.join("\n"));
    const again = await startLocalBank({ dataDir });
    try {
      expect(await texts(again.url)).toEqual(["first", "third"]);
      const secondLine = lines.findIndex((l) => l.includes('"text":"second"'));
      const byteOffset = Buffer.byteLength(lines.slice(0, secondLine).join("\n")) + 1;
      expect(again.damage).toEqual([{ file: join(dataDir, JOURNAL_FILE), line: secondLine + 1, byteOffset, reason: expect.stringMatching(/checksum mismatch/), lost: 1 }]);
      expect(again.notices.join("\n")).toMatch(/journal\.jsonl\.damaged-1/);
      expect(readFileSync(join(dataDir, `${JOURNAL_FILE}.damaged-1`), "utf8")).toBe(flipped.join("\n"));
    } finally {
      await again.close();
    }
    // The rewrite means the next start reads clean.
    const third = await startLocalBank({ dataDir });
    expect(third.damage).toEqual([]);
    expect(await texts(third.url)).toEqual(["first", "third"]);
    await third.close();
  });
});
