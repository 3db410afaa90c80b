import { describe, expect, it } from "vitest";
import { LINEAR_TIME_MS } from "@context-fold/test-support";
import { CorruptIndexError, parseQuery, queryTerms, RecallError, RecallIndex, RecallPatternError, RecallScopeError, renderResults, TermIndex, tokenize } from "@context-fold/recall-engine";
import { fakeSession, type FakeBlock } from "./fake-session.js";

function terms(text: string): string[] {
  const out: string[] = [];
  tokenize(text, (t) => out.push(t));
  return out;
}

describe("tokenize", () => {
  it("keeps whole identifiers and adds path and camel/snake parts", () => {
    expect(terms("see src/db/pool.ts, now")).toEqual(["see", "src/db/pool.ts", "src", "db", "pool.ts", "pool", "ts", "now"]);
    expect(terms("refreshToken")).toEqual(["refreshtoken", "refresh", "token"]);
    expect(terms("MAX_RETRY_COUNT")).toEqual(["max_retry_count", "max", "retry", "count"]);
    expect(terms("XMLHttpRequest")).toEqual(["xmlhttprequest", "xml", "http", "request"]);
    expect(terms("drizzle-orm@0.30.1")).toEqual(["drizzle-orm@0.30.1", "drizzle-orm", "0.30.1", "drizzle", "orm", "0", "30", "1"]);
  });
  it("indexes every identifier-like piece of a compound whole (dots, dashes, ::, ->)", () => {
    expect(terms("this.editor.addToHistory(text);")).toEqual(["this.editor.addtohistory", "this", "editor", "addtohistory", "add", "to", "history", "text"]);
    expect(terms('combined_df.to_excel("extracted_tables.xlsx", index=False)')).toEqual(
      expect.arrayContaining(["combined_df.to_excel", "combined_df", "to_excel", "extracted_tables.xlsx", "extracted_tables", "xlsx", "extracted", "tables"]),
    );
    expect(terms("AsciinemaPlayer.create('/demo.cast')")).toEqual(expect.arrayContaining(["asciinemaplayer.create", "asciinemaplayer", "create", "demo.cast"]));
    expect(terms("this.ui.requestRender();")).toContain("requestrender");
    expect(terms("std::vector_ext")).toEqual(["std::vector_ext", "std", "vector_ext", "vector", "ext"]);
    expect(terms("self->next_node")).toEqual(["self", "next_node", "next", "node"]);
    expect(terms("drizzle-orm.config.ts")).toEqual(["drizzle-orm.config.ts", "drizzle-orm", "config", "ts", "drizzle", "orm"]);
    expect(terms("see src/db/pool.ts")).toContain("pool.ts");
    // Non-ASCII runs: lowered first; `İ` lowers to two code units (positions move: parts sliced apart).
    expect(terms("Ünïcode.naïveWert")).toEqual(["ünïcode.naïvewert", "ünïcode", "naïvewert", "naïve", "wert"]);
    expect(terms("İstanbul.kebabCase-x")).toEqual(["i̇stanbul.kebabcase-x", "i̇stanbul", "kebabcase-x", "kebabcase", "x", "kebab", "case"]);
    // The query side: the compound stays the required term, its pieces only parts.
    expect(queryTerms("this.editor.addToHistory")).toEqual([{ primary: "this.editor.addtohistory", parts: ["this", "editor", "addtohistory", "add", "to", "history"] }]);
  });
  it("strips question punctuation: a question is words", () => {
    expect(queryTerms("why did we drop the cache?").map((t) => t.primary)).toEqual(["why", "did", "we", "drop", "the", "cache"]);
    expect(parseQuery("why did we drop the cache? (really)").mode).toBe("words");
  });
  it("counts one run per token for document length", () => {
    expect(tokenize("a b-c d/e.f", () => undefined)).toBe(3);
  });
  it("is linear on a 1 MB run of one char and of joiners", { timeout: LINEAR_TIME_MS }, () => {
    expect(tokenize("a".repeat(1 << 20), () => undefined)).toBe(1);
    expect(tokenize("-".repeat(1 << 20), () => undefined)).toBe(0);
    expect(tokenize("aB".repeat(1 << 19), () => undefined)).toBe(1);
  });
});

const convo: FakeBlock[] = [
  { kind: "user", text: "set up the database pool with drizzle-orm" },
  { kind: "text", text: "I will edit src/db/pool.ts to create the pool." },
  { kind: "toolCall", toolName: "edit", text: '{"path":"src/db/pool.ts"}' },
  { kind: "toolResult", toolName: "edit", text: "Successfully replaced text in src/db/pool.ts" },
  { kind: "user", text: "now add the refreshToken rotation" },
  { kind: "thinking", text: "The token refresh needs a rotation counter; the cache holds old tokens." },
  { kind: "toolResult", toolName: "read", text: "export function refreshToken(t: string) { return rotate(t) }" },
  { kind: "text", text: "Refresh token rotation added. We drop the cache on logout." },
  { kind: "bash", text: "3 passed\n0 failed", args: { command: "npm test" }, exitCode: 0 },
  { kind: "user", text: "what about orm drizzle versions? the old one used drizzle" },
  { kind: "text", text: "The ORM is fine." },
];

describe("RecallIndex search over hand-built blocks", () => {
  const index = RecallIndex.build(fakeSession(convo));
  it("a compound query token matches whole; parts only add score", () => {
    const r = index.search("drizzle-orm");
    expect(r.hits.map((h) => h.index)).toEqual([0]);
    const path = index.search("src/db/pool.ts");
    expect(path.hits.map((h) => h.index).sort()).toEqual([1, 2, 3]);
    const camel = index.search("refreshToken");
    expect(camel.hits.map((h) => h.index).sort()).toEqual([4, 6]);
    expect(camel.hits.map((h) => h.index)).not.toContain(5);
  });
  it("documentFrequency counts the blocks holding a word as a whole token", () => {
    expect(index.documentFrequency("drizzle-orm")).toBe(1);
    expect(index.documentFrequency("src/db/pool.ts")).toBe(3);
    expect(index.documentFrequency("RefreshToken")).toBe(2);
    expect(index.documentFrequency("nowhere-in-the-session")).toBe(0);
    expect(index.documentFrequency("")).toBe(0);
  });
  it("finds an identifier written as one piece of a dotted call (real fixture lines)", () => {
    const lines: FakeBlock[] = [
      { kind: "user", text: "keep the prompt history" },
      { kind: "toolResult", toolName: "read", text: "\t\t\t\t// Add to history for up/down arrow navigation\n\t\t\t\tthis.editor.addToHistory(text);\n\t\t\t\tthis.ui.requestRender();" },
      { kind: "toolResult", toolName: "read", text: '    combined_df.to_excel("extracted_tables.xlsx", index=False)' },
      { kind: "toolResult", toolName: "read", text: "<script>\n    AsciinemaPlayer.create('/demo.cast', document.getElementById('demo'));\n</script>" },
      { kind: "text", text: "history is added to the list" },
      { kind: "text", text: "config in Ünïcode.naïveWert and İstanbul.kebabCase-x" },
    ];
    const small = RecallIndex.build(fakeSession(lines));
    expect(small.search("addToHistory").hits.map((h) => h.index)).toEqual([1]);
    expect(small.search("requestRender").hits.map((h) => h.index)).toEqual([1]);
    expect(small.search("extracted_tables").hits.map((h) => h.index)).toEqual([2]);
    expect(small.search("AsciinemaPlayer").hits.map((h) => h.index)).toEqual([3]);
    // A compound query still needs the whole compound.
    expect(small.search("this.editor.addToHistory").hits.map((h) => h.index)).toEqual([1]);
    expect(small.search("this.editor.clear").total).toBe(0);
    expect(small.search("naïveWert").hits.map((h) => h.index)).toEqual([5]);
    expect(small.search("İstanbul").hits.map((h) => h.index)).toEqual([5]);
    expect(small.search("kebabCase-x").hits.map((h) => h.index)).toEqual([5]);
  });
  it("plain questions with punctuation are word searches", () => {
    const r = index.search("why did we drop the cache?");
    expect(r.mode).toBe("words");
    expect(r.hits[0]?.index).toBe(7);
  });
  it("quoted phrases are required and exact", () => {
    expect(index.search('"drop the cache"').hits.map((h) => h.index)).toEqual([7]);
    expect(index.search('"cache drop"').total).toBe(0);
  });
  it("regex only when asked, through re2js", () => {
    expect(index.search("/pool\\.ts$/").hits.map((h) => h.index)).toEqual([3]);
    expect(index.search("rot.te", { regex: true }).hits.map((h) => h.index)).toEqual([6]);
    expect(() => index.search("/(a/")).toThrow(RecallPatternError);
    expect(() => index.search("/(?<=x)y/")).toThrow(RecallPatternError);
    expect(() => index.search("/(a)\\1/")).toThrow(RecallPatternError);
  });
  it("indexes thinking and marks it; marks !cmd output", () => {
    const r = index.search("counter");
    expect(r.hits[0]?.kind).toBe("thinking");
    const text = renderResults(r);
    expect(text).toContain("> #5 [thinking]");
    const bash = index.search("passed");
    expect(renderResults(bash)).toContain("> #8 [!cmd output] $ npm test → 3 passed 0 failed");
  });
  it("groups by segment with > marks, neighbours and (context) between", () => {
    // A page long enough for every hit (`rotation` also finds `rotate(t)`, through its stem `rotat`).
    const r = index.search("pool rotation", { pageSize: 10 });
    const text = renderResults(r);
    expect(text).toMatch(/--- #0-#3 turn 1 \(\d\/4 entries match\) ---/);
    expect(text).toMatch(/^> #1 \[assistant\]/m);
    // A user `!cmd` opens its own segment, like a user message.
    const ctx = index.search("database passed");
    expect(ctx.segments.map((s) => [s.from, s.to, s.context])).toEqual([
      [8, 8, false],
      [0, 3, false],
      [4, 7, true],
    ]);
    expect(renderResults(ctx)).toContain("--- #4-#7 turn 2 (context) ---");
  });
  it("pages with totals", () => {
    const all = index.search("the", { pageSize: 2 });
    expect(all.total).toBeGreaterThan(2);
    expect(all.pages).toBe(Math.ceil(all.total / 2));
    const p2 = index.search("the", { pageSize: 2, page: 2 });
    expect(p2.hits[0]?.rank).toBe(3);
    expect(renderResults(all)).toContain("More: --page 2");
  });
  it("browse shows the last 25 blocks", () => {
    const b = index.browse({ count: 3 });
    expect(b.segments.flatMap((s) => s.lines.map((l) => l.index))).toEqual([8, 9, 10]);
  });
  it("scopes: lineage by default, all on request, compaction:N by entries", () => {
    const s = fakeSession(
      [...convo, { kind: "user", text: "abandoned idea: use a zeppelin cache", entryId: "off1" }],
      { offLineage: ["off1"], compactions: [{ number: 1, segment: null, entryIds: ["e0000", "e0001"] }] },
    );
    const idx = RecallIndex.build(s);
    expect(idx.search("zeppelin").total).toBe(0);
    expect(idx.search("zeppelin", { scope: "all" }).hits[0]?.index).toBe(11);
    expect(idx.search("pool", { scope: "compaction:1" }).hits.map((h) => h.index).sort()).toEqual([0, 1]);
    expect(idx.search("pool", { scope: "compaction:latest" }).scope).toBe("compaction:1");
    expect(() => idx.search("pool", { scope: "compaction:2" })).toThrow(RecallScopeError);
    expect(() => idx.search("pool", { scope: "branch" })).toThrow(RecallScopeError);
  });
  it("incremental update equals a fresh build", () => {
    const half = RecallIndex.build(fakeSession(convo.slice(0, 5)));
    half.update(fakeSession(convo));
    expect(half.search("the cache").hits).toEqual(index.search("the cache").hits);
  });
  it("bulk build, one-by-one adds and a cache round trip plus appends give identical bytes", () => {
    const bulk = new TermIndex();
    bulk.addDocuments(0, convo.map((b) => b.text));
    const single = new TermIndex();
    convo.forEach((b, i) => single.addDocument(i, b.text));
    expect(bulk.serialize({})).toEqual(single.serialize({}));
    const half = new TermIndex();
    half.addDocuments(0, convo.slice(0, 4).map((b) => b.text));
    const back = TermIndex.deserialize(half.serialize({}));
    back.addDocuments(4, convo.slice(4).map((b) => b.text));
    expect(back.serialize({})).toEqual(bulk.serialize({}));
    expect(back.documentFrequency("pool")).toBe(bulk.documentFrequency("pool"));
  });
  it("appends to a large index (segment-local term table) equal a bulk build", () => {
    // Past 2^16 terms a segment answers repeats from its own table first: same bytes either way.
    const docs = Array.from({ length: 90 }, (_, d) => Array.from({ length: 900 }, (_, k) => `t${String(d * 900 + k)} shared${String(k % 7)} t${String(d * 900 + k)} word${String(d % 3)}`).join(" "));
    const bulk = new TermIndex();
    bulk.addDocuments(0, docs);
    expect(bulk.termCount).toBeGreaterThan(1 << 16);
    const grown = new TermIndex();
    grown.addDocuments(0, docs.slice(0, 80));
    for (let d = 80; d < 90; d++) grown.addDocument(d, docs[d] as string);
    expect(grown.serialize({}).equals(bulk.serialize({}))).toBe(true);
    expect(Array.from(grown.postings("t80001") ?? [])).toEqual([88, 2]);
    expect(grown.documentFrequency("shared3")).toBe(90);
  });
  it("tail records: base + tails read back equal the index; after a fold into the base only a whole save is allowed", () => {
    const texts = convo.map((b) => b.text);
    const t = new TermIndex();
    t.addDocuments(0, texts.slice(0, 6));
    const base = t.serialize({ k: 0 });
    const chain = base.subarray(base.length - 32);
    t.addDocuments(6, texts.slice(6, 8));
    const r1 = t.serializeTail({ k: 1 }, chain);
    t.addDocuments(8, texts.slice(8));
    const r2 = t.serializeTail({ k: 2 }, chain);
    expect(t.serializeTail({ k: 3 }, chain)).toBeNull();
    const log = Buffer.concat([r1 ?? Buffer.alloc(0), r2 ?? Buffer.alloc(0)]);
    const tail = TermIndex.readTail(log, chain);
    expect(tail.problem).toBeNull();
    expect(tail.records.map((r) => r.meta)).toEqual([{ k: 1 }, { k: 2 }]);
    const back = TermIndex.deserialize(base);
    for (const record of tail.records) expect(back.applyTail(record)).toBe(true);
    expect(back.serialize({}).equals(t.serialize({}))).toBe(true);
    // Another base's chain refuses the records.
    expect(TermIndex.readTail(log, Buffer.alloc(32)).records).toHaveLength(0);
    // Nine appends as large as the base fold into it: a tail record is no longer possible.
    const f = new TermIndex();
    f.addDocuments(0, ["alpha beta"]);
    f.serialize({});
    for (let d = 1; d <= 9; d++) f.addDocument(d, `alpha beta gamma${String(d)} delta epsilon`);
    expect(f.canSerializeTail).toBe(false);
    expect(() => f.serializeTail({}, Buffer.alloc(32))).toThrow(/whole index/);
    f.serialize({});
    expect(f.canSerializeTail).toBe(true);
  });
  it("serializes and reads back the same postings; a flipped byte is refused", () => {
    const t = new TermIndex();
    convo.forEach((b, i) => t.addDocument(i, b.text));
    const buf = t.serialize({ k: 1 });
    const back = TermIndex.deserialize(buf);
    expect(Array.from(back.postings("pool") ?? [])).toEqual(Array.from(t.postings("pool") ?? []));
    expect(TermIndex.readMeta(buf)).toEqual({ k: 1 });
    const bad = Buffer.from(buf);
    bad[bad.length - 40] = (bad[bad.length - 40] ?? 0) ^ 1;
    expect(() => TermIndex.deserialize(bad)).toThrow(/corrupt/);
    // One error family: the refusal is a RecallError with its own code (the caller rebuilds on it).
    expect(() => TermIndex.deserialize(bad)).toThrow(CorruptIndexError);
    expect(() => TermIndex.deserialize(bad)).toThrow(RecallError);
    expect(() => TermIndex.deserialize(bad)).toThrow(expect.objectContaining({ code: "CORRUPT_INDEX" }));
  });
});

describe("adversarial patterns over a 1 MB entry terminate", { timeout: LINEAR_TIME_MS }, () => {
  const big = RecallIndex.build(fakeSession([{ kind: "user", text: "start" }, { kind: "toolResult", toolName: "bash", text: "a".repeat(1 << 20) }]));
  for (const p of ["(a+)+$", "(.*a){20}", "(a|aa)+$", "(a*)*b"]) {
    it(p, () => {
      const r = big.search(`/${p}/`);
      expect(r.total).toBe(p === "(a*)*b" ? 0 : 1);
    });
  }
  it("word search over the same entry: the run begins with the word, so it is a prefix match", () => {
    expect(big.search("aaaa").hits.map((h) => h.index)).toEqual([1]);
    expect(big.search("aaab").total).toBe(0);
  });
});

describe("pi-vcc's regex convention", () => {
  const index = RecallIndex.build(
    fakeSession([
      { kind: "user", text: "why does the build fail" },
      { kind: "toolResult", toolName: "bash", text: "ls build\ndist" },
      { kind: "toolResult", toolName: "bash", text: "error: failed to build the bundle" },
      { kind: "text", text: "the pre-commit hook is installed" },
      { kind: "text", text: "we inject the digest after compaction" },
      { kind: "toolResult", toolName: "bash", text: "| name | size |\n| a | 12 |" },
      { kind: "user", text: "under $5 the dashboard shows 0 stocks; see [context-fold k3f9a2b7qx] and [ERROR] lines" },
    ]),
  );
  it("a bare query in regex syntax runs as a regex and says so", () => {
    const r = index.search("fail.*build");
    expect(r.mode).toBe("regex");
    expect(r.hits.map((h) => h.index)).toEqual([2]);
    expect(renderResults(r)).toContain("(regex)");
    expect(index.search("hook|inject").hits.map((h) => h.index).sort()).toEqual([3, 4]);
    expect(index.search("[0-9]+ stocks").hits.map((h) => h.index)).toEqual([6]);
    expect(index.search("^ls").hits.map((h) => h.index)).toEqual([1]);
    expect(index.search("bundle$").hits.map((h) => h.index)).toEqual([2]);
    expect(index.search("\\d+ \\w+").mode).toBe("regex");
  });
  it("prose and pasted text that only contain the marks stay words and say so", () => {
    for (const q of ["under $5", "[context-fold k3f9a2b7qx]", "[ERROR] lines", "| name | size |", "a.b", "see src/*.ts"]) {
      const r = index.search(q);
      expect(r.mode, q).toBe("words");
    }
    expect(renderResults(index.search("stocks dashboard"))).toContain("(words)");
    expect(renderResults(index.search("zzzz"))).toContain("(words, scope lineage)");
  });
  it("a regex-looking query the engine refuses is a word search with a notice; /…/ and --regex still refuse", () => {
    const r = index.search("build|(?<=x)fail");
    expect(r.mode).toBe("words");
    expect(r.notice).toMatch(/looks like a regex/);
    expect(r.total).toBeGreaterThan(0);
    expect(renderResults(r)).toContain("Note: ");
    expect(() => index.search("/(?<=x)fail/")).toThrow(RecallPatternError);
    expect(() => index.search("(?<=x)fail", { regex: true })).toThrow(RecallPatternError);
  });
  it("the paging hint names the asking surface's syntax", () => {
    const many = RecallIndex.build(fakeSession(Array.from({ length: 12 }, (_, k) => ({ kind: "text" as const, text: `common word ${String(k)}` }))));
    const r = many.search("common");
    expect(renderResults(r)).toContain("More: --page 2");
    expect(renderResults(r, { pageSyntax: (p) => `page: ${String(p)}` })).toContain("More: page: 2");
  });
  it("deciding stays linear on adversarial input", { timeout: LINEAR_TIME_MS }, () => {
    const started = Date.now();
    index.search(`${"[".repeat(200_000)}]`);
    index.search("[a".repeat(100_000));
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
