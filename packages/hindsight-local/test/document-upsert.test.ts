// Hindsight's retain is an upsert by document_id: a document retained again replaces the memories
// stored under it. Without it a re-sent item (an outbox retry, a later session retaining the same
// commit) would count twice in the bank.
import { describe, expect, it } from "vitest";
import { tempDir } from "@context-fold/test-support";
import { startLocalBank } from "@context-fold/hindsight-local";

async function call(url: string, method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${url}${path}`, { method, headers: { "content-type": "application/json" }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  expect(res.status).toBe(200);
  return res.json();
}

interface ListJson {
  items: { id: string; text: string; document_id: string | null; state: string }[];
  total: number;
}

const list = async (url: string, state: "valid" | "invalidated"): Promise<ListJson> =>
  (await call(url, "GET", `/v1/default/banks/u/memories/list?state=${state}`)) as ListJson;

describe("retain with a known document_id", () => {
  it("replaces the document's memories (kept in the archive), leaves other documents and items without one alone, and holds across a restart", async () => {
    const data = tempDir();
    const bank = await startLocalBank({ dataDir: data });
    try {
      await call(bank.url, "POST", "/v1/default/banks/u/memories", {
        items: [
          { content: "first take", document_id: "doc-a" },
          { content: "second unit of the same document", document_id: "doc-a" },
          { content: "another document", document_id: "doc-b" },
          { content: "no document" },
          { content: "no document" },
        ],
      });
      expect((await list(bank.url, "valid")).total).toBe(5);
      await call(bank.url, "POST", "/v1/default/banks/u/memories", { items: [{ content: "second take", document_id: "doc-a" }] });
      const valid = await list(bank.url, "valid");
      expect(valid.items.map((i) => i.text).sort()).toEqual(["another document", "no document", "no document", "second take"]);
      const archived = await list(bank.url, "invalidated");
      expect(archived.items.map((i) => i.text).sort()).toEqual(["first take", "second unit of the same document"]);
    } finally {
      await bank.close();
    }
    const again = await startLocalBank({ dataDir: data });
    try {
      expect((await list(again.url, "valid")).items.map((i) => i.text).sort()).toEqual(["another document", "no document", "no document", "second take"]);
      // The index by document survives the replay: a third take replaces the second.
      await call(again.url, "POST", "/v1/default/banks/u/memories", { items: [{ content: "third take", document_id: "doc-a" }] });
      const valid = await list(again.url, "valid");
      expect(valid.items.filter((i) => i.document_id === "doc-a").map((i) => i.text)).toEqual(["third take"]);
    } finally {
      await again.close();
    }
  });
});
