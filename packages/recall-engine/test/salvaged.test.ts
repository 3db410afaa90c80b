// Salvaged text (lines Pi drops, no #N) is reached by the same query reading as the index.
import { parseSessionText } from "@context-fold/ledger-reader";
import { parseQuery, renderSalvaged, searchSalvaged } from "@context-fold/recall-engine";
import { describe, expect, it } from "vitest";

const header = JSON.stringify({ type: "session", version: 3, id: "s1", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/p" });
const ok = JSON.stringify({ type: "message", id: "a0000001", parentId: null, timestamp: "2026-01-01T00:00:01.000Z", message: { role: "user", content: "hello", timestamp: 1 } });
// The real masking damage: a lone backslash before `*` breaks the JSON string.
const broken = '{"type":"message","id":"a0000002","parentId":"a0000001","message":{"role":"user","content":"send the report to \\***@***.*** before Friday"}}';
const session = parseSessionText(`${header}\n${ok}\n${broken}\n`);

describe("searchSalvaged", () => {
  it("words: a salvaged line holding a query term is found with its line, id and role", () => {
    const hits = searchSalvaged(session.damaged, parseQuery("report friday"));
    expect(hits).toEqual([{ line: 3, byteOffset: Buffer.byteLength(`${header}\n${ok}\n`), id: "a0000002", role: "user", matched: 2, text: "send the report to ***@***.*** before Friday" }]);
    expect(renderSalvaged(hits)).toContain("line 3 (salvaged) user: send the report to");
  });

  it("no match: other words, stopwords only, or a phrase the text does not hold", () => {
    expect(searchSalvaged(session.damaged, parseQuery("invoice"))).toEqual([]);
    expect(searchSalvaged(session.damaged, parseQuery("the to"))).toEqual([]);
    expect(searchSalvaged(session.damaged, parseQuery('"report before"'))).toEqual([]);
    expect(searchSalvaged(session.damaged, parseQuery('"the report"'))).toHaveLength(1);
    expect(renderSalvaged([])).toBe("");
  });

  it("regex: a match anywhere in the salvaged text", () => {
    expect(searchSalvaged(session.damaged, parseQuery("/\\*{3}@/")).map((h) => h.line)).toEqual([3]);
    expect(searchSalvaged(session.damaged, parseQuery("/^report/")).map((h) => h.line)).toEqual([]);
  });
});
