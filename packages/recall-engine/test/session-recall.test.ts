// Recall over real session files: generated sessions with planted facts, the shared Pi fixtures,
// and the on-disk cache lifecycle (stale, truncated, foreign, corrupt, appended).
import { appendFileSync, copyFileSync, existsSync, mkdirSync, readFileSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { readSession } from "@context-fold/ledger-reader";
import { generateSession, type Manifest } from "@context-fold/session-gen";
import { describeShared, sharedFixture, tempDir } from "@context-fold/test-support";
import { cacheKeyFor, openRecall, RecallIndex, renderResults, searchSessions, tailLogPath, TermIndex } from "@context-fold/recall-engine";

describe("planted facts in a generated session", () => {
  const dir = tempDir("recall-gen-");
  const file = join(dir, "s.jsonl");
  let manifest: Manifest;
  it("generates", async () => {
    manifest = await generateSession(file, { seed: 31, turns: 80 });
    expect(manifest.needles.length).toBeGreaterThan(5);
    expect(manifest.needles.some((n) => !n.onLineage)).toBe(true);
  });
  it("each lineage needle ranks first for a query naming it (default scope)", async () => {
    const index = RecallIndex.build(await readSession(file));
    for (const needle of manifest.needles.filter((n) => n.onLineage)) {
      const result = index.search(needle.value);
      expect(result.hits[0]?.entryId, `${needle.kind} ${needle.value}`).toBe(needle.entryId);
    }
  });
  it("a needle only on an abandoned branch: found with scope all, not with the default", async () => {
    const index = RecallIndex.build(await readSession(file));
    for (const needle of manifest.needles.filter((n) => !n.onLineage)) {
      expect(index.search(needle.value, { scope: "all" }).hits[0]?.entryId).toBe(needle.entryId);
      expect(index.search(needle.value).hits.map((h) => h.entryId)).not.toContain(needle.entryId);
    }
  });
  it("deterministic: two builds, and a build grown in 12 appends (sparse segments, merged), give identical bytes and hits", async () => {
    const session = await readSession(file);
    const a = RecallIndex.build(session);
    const b = RecallIndex.build(session);
    expect(a.serialize({ k: 1 }).equals(b.serialize({ k: 1 }))).toBe(true);
    const texts = session.blocks.map((block) => block.text);
    const grown = new TermIndex();
    const step = Math.ceil(texts.length / 12);
    grown.addDocuments(0, texts.slice(0, step * 4));
    for (let at = step * 4; at < texts.length; at += Math.ceil(step / 3)) grown.addDocuments(at, texts.slice(at, Math.min(texts.length, at + Math.ceil(step / 3))));
    const whole = new TermIndex();
    whole.addDocuments(0, texts);
    expect(grown.serialize({}).equals(whole.serialize({}))).toBe(true);
    const queries = [...manifest.needles.map((n) => n.value), "why did we drop the cache?", "src/ledger/reader.ts", "refreshToken"];
    for (const term of ["the", "src/ledger/reader.ts", "reader.ts", "refreshtoken"]) {
      expect(Array.from(grown.postings(term) ?? []), term).toEqual(Array.from(whole.postings(term) ?? []));
    }
    const half = RecallIndex.build({ ...session, blocks: session.blocks.slice(0, Math.floor(session.blocks.length / 2)) });
    half.update(session);
    for (const q of queries) expect(half.search(q, { scope: "all" }), q).toEqual(a.search(q, { scope: "all" }));
  });
  it("abandoned-branch facts: no block holding them under the default scope, found under all", async () => {
    const session = await readSession(file);
    const index = RecallIndex.build(session);
    expect(manifest.abandonedBranchFacts.length).toBeGreaterThan(0);
    for (const fact of manifest.abandonedBranchFacts) {
      const all = index.search(`"${fact}"`, { scope: "all" });
      expect(all.total, fact).toBeGreaterThan(0);
      const hit = all.hits[0];
      expect(hit === undefined ? "" : session.blocks[hit.index]?.text).toContain(fact);
      expect(index.search(`"${fact}"`).total, fact).toBe(0);
    }
  });
});

describeShared("compaction scopes on pi-mono__before-compaction.jsonl", () => {
  it("compaction:N returns only entries of that compaction's segment", async () => {
    const session = await readSession(sharedFixture("sessions", "pi-mono__before-compaction.jsonl"));
    expect(session.compactions.length).toBe(2);
    const index = RecallIndex.build(session);
    for (const c of session.compactions) {
      const ids = new Set(c.entryIds);
      const scope = `compaction:${String(c.number)}`;
      for (const query of ["the", "file", "error", "/./"]) {
        const result = index.search(query, { scope, pageSize: 1000 });
        expect(result.scope).toBe(scope);
        expect(result.total).toBeGreaterThan(0);
        for (const hit of result.hits) expect(ids.has(hit.entryId), `${scope} ${query} #${String(hit.index)}`).toBe(true);
      }
    }
    const latest = index.search("the", { scope: "compaction:latest" });
    expect(latest.scope).toBe("compaction:2");
    const one = new Set(session.compactions[0]?.entryIds);
    const two = index.search("/./", { scope: "compaction:2", pageSize: 1000 });
    expect(two.hits.some((h) => one.has(h.entryId))).toBe(false);
  });
  it("marks user !cmd output and shows thinking as thinking", async () => {
    const session = await readSession(sharedFixture("sessions", "pi-mono__before-compaction.jsonl"));
    const index = RecallIndex.build(session);
    const bash = session.blocks.find((b) => b.kind === "bash");
    expect(bash).toBeDefined();
    const browse = index.search("/./", { scope: "all", pageSize: 5000 });
    const lines = browse.segments.flatMap((s) => s.lines);
    expect(lines.find((l) => l.index === bash?.index)?.label).toMatch(/^!cmd output/);
    expect(lines.some((l) => l.kind === "thinking" && l.label === "thinking")).toBe(true);
  });
});

describe("index cache lifecycle", () => {
  it("built, loaded, grown by appended bytes, and matches a fresh build", async () => {
    const dir = tempDir("recall-cache-");
    const file = join(dir, "s.jsonl");
    const manifest = await generateSession(file, { seed: 5, turns: 60 });
    const cacheDir = join(dir, "cache");
    const first = await openRecall(file, { cacheDir });
    expect(first.cache.status).toBe("built");
    const again = await openRecall(file, { cacheDir });
    expect(again.cache.status).toBe("loaded");
    const needle = manifest.needles.find((n) => n.onLineage);
    expect(again.search(needle?.value ?? "").hits[0]?.entryId).toBe(needle?.entryId);

    // Append a copy of real entries (new ids) as Pi would: the cache is grown, not rebuilt.
    const lines = readFileSync(file, "utf8").trimEnd().split("\n");
    const leaf = (JSON.parse(lines[lines.length - 1] ?? "{}") as { id: string }).id;
    const entry = { type: "message", id: "feedf00d", parentId: leaf, timestamp: "2026-03-02T00:00:00.000Z", message: { role: "user", content: "appended zanzibarQuokka fact", timestamp: 1 } };
    appendFileSync(file, `${JSON.stringify(entry)}\n`);
    const grown = await openRecall(file, { cacheDir });
    expect(grown.cache.status).toBe("updated");
    expect(grown.cache.indexed).toBe(1);
    expect(grown.search("zanzibarQuokka").hits[0]?.entryId).toBe("feedf00d");
    const fresh = RecallIndex.build(await readSession(file));
    expect(grown.search("shard index window", { pageSize: 50 }).hits).toEqual(fresh.search("shard index window", { pageSize: 50 }).hits);

    // refresh() reads further appends incrementally.
    appendFileSync(file, `${JSON.stringify({ ...entry, id: "feedf00e", parentId: "feedf00d", message: { ...entry.message, content: "later ocelotPlinth" } })}\n`);
    const report = await grown.refresh();
    expect(report.status).toBe("updated");
    expect(grown.search("ocelotPlinth").hits[0]?.entryId).toBe("feedf00e");
    expect((await openRecall(file, { cacheDir })).cache.status).toBe("loaded");
  });

  it("refresh() appends a tail record instead of rewriting the cache; base + tail load as a fresh build", async () => {
    const dir = tempDir("recall-tail-");
    const file = join(dir, "s.jsonl");
    await generateSession(file, { seed: 12, turns: 60 });
    const cachePath = join(dir, "c.recall");
    const recall = await openRecall(file, { cachePath });
    expect(recall.cache.status).toBe("built");
    const base = readFileSync(cachePath);
    const lines = readFileSync(file, "utf8").trimEnd().split("\n");
    let parent = (JSON.parse(lines[lines.length - 1] ?? "{}") as { id: string }).id;
    const append = (id: string, content: string): void => {
      appendFileSync(file, `${JSON.stringify({ type: "message", id, parentId: parent, timestamp: "2026-03-02T00:00:00.000Z", message: { role: "user", content, timestamp: 1 } })}\n`);
      parent = id;
    };
    append("a0000001", "first appended marmotQuill fact");
    expect((await recall.refresh()).status).toBe("updated");
    append("a0000002", "second appended this.editor.addToHistory(text) call");
    await recall.refresh();
    expect(readFileSync(cachePath).equals(base)).toBe(true);
    const tailSize = statSync(tailLogPath(cachePath)).size;
    expect(tailSize).toBeGreaterThan(0);
    const reopened = await openRecall(file, { cachePath });
    expect(reopened.cache.status).toBe("loaded");
    expect(reopened.cache.indexed).toBe(0);
    const fresh = RecallIndex.build(await readSession(file));
    for (const q of ["marmotQuill", "addToHistory", "shard index window", "the"]) {
      expect(reopened.search(q, { scope: "all", pageSize: 50 }), q).toEqual(fresh.search(q, { scope: "all", pageSize: 50 }));
    }
    expect(reopened.index.serialize({}).equals(fresh.serialize({}))).toBe(true);

    // A flipped byte in the tail: the record is refused, its blocks are indexed from the ledger, and the
    // next save writes the base whole (the tail is dropped).
    const tail = readFileSync(tailLogPath(cachePath));
    tail[tail.length - 5] = (tail[tail.length - 5] ?? 0) ^ 0xff;
    writeFileSync(tailLogPath(cachePath), tail);
    const afterFlip = await openRecall(file, { cachePath });
    expect(afterFlip.cache.status).toBe("updated");
    expect(afterFlip.cache.reason).toMatch(/tail refused.*checksum/);
    expect(afterFlip.cache.indexed).toBe(1);
    expect(afterFlip.search("addToHistory").hits[0]?.entryId).toBe("a0000002");
    expect(existsSync(tailLogPath(cachePath))).toBe(false);
    expect((await openRecall(file, { cachePath })).cache.status).toBe("loaded");

    // A torn tail (a crash mid-append): the good records are kept, the torn one refused.
    const again = await openRecall(file, { cachePath });
    append("a0000003", "third appended wombatSpline");
    await again.refresh();
    append("a0000004", "fourth appended quokkaRibbon");
    await again.refresh();
    truncateSync(tailLogPath(cachePath), statSync(tailLogPath(cachePath)).size - 7);
    const torn = await openRecall(file, { cachePath });
    expect(torn.cache.status).toBe("updated");
    expect(torn.cache.indexed).toBe(1);
    expect(torn.cache.reason).toMatch(/torn/);
    expect(torn.search("quokkaRibbon").hits[0]?.entryId).toBe("a0000004");
    expect(torn.search("wombatSpline").hits[0]?.entryId).toBe("a0000003");

    // A tail outweighing half the base: the base is rewritten and the tail dropped.
    const big = await openRecall(file, { cachePath });
    append("a0000005", `bulk ${Array.from({ length: 40000 }, (_, i) => `w${String(i)}x`).join(" ")}`);
    await big.refresh();
    expect(existsSync(tailLogPath(cachePath))).toBe(false);
    expect(readFileSync(cachePath).equals(base)).toBe(false);
    expect((await openRecall(file, { cachePath })).cache.status).toBe("loaded");
  });

  it("a cache of an older index format (without piece terms) is rebuilt", async () => {
    const dir = tempDir("recall-format-");
    const file = join(dir, "s.jsonl");
    await generateSession(file, { seed: 14, turns: 30 });
    const cachePath = join(dir, "c.recall");
    const session = await readSession(file);
    writeFileSync(cachePath, RecallIndex.build(session).serialize({ ...cacheKeyFor(file, session), format: 2 }));
    const opened = await openRecall(file, { cachePath });
    expect(opened.cache.status).toBe("rebuilt");
    expect(opened.cache.reason).toMatch(/index format 2/);
    expect((await openRecall(file, { cachePath })).cache.status).toBe("loaded");
  });

  it("a format-3 cache file (the magic before this format) is refused as corrupt and rebuilt", async () => {
    const dir = tempDir("recall-format3-");
    const file = join(dir, "s.jsonl");
    await generateSession(file, { seed: 15, turns: 20 });
    const cachePath = join(dir, "c.recall");
    const session = await readSession(file);
    const bytes = RecallIndex.build(session).serialize({ ...cacheKeyFor(file, session), format: 3 });
    // What a format-3 writer put first: its magic carried the container digit 2.
    bytes.write("CFRECALL2\n", 0, "latin1");
    writeFileSync(cachePath, bytes);
    const opened = await openRecall(file, { cachePath });
    expect(opened.cache.status).toBe("rebuilt");
    expect(opened.cache.reason).toMatch(/bad magic/);
    expect((await openRecall(file, { cachePath })).cache.status).toBe("loaded");
  });

  it("a format-4 cache file (postings checked by one whole-file hash, read whole) is refused and rebuilt", async () => {
    const dir = tempDir("recall-format4-");
    const file = join(dir, "s.jsonl");
    await generateSession(file, { seed: 16, turns: 20 });
    const cachePath = join(dir, "c.recall");
    const session = await readSession(file);
    const bytes = RecallIndex.build(session).serialize({ ...cacheKeyFor(file, session), format: 4 });
    bytes.write("CFRECALL4\n", 0, "latin1");
    writeFileSync(cachePath, bytes);
    const opened = await openRecall(file, { cachePath });
    expect(opened.cache.status).toBe("rebuilt");
    expect(opened.cache.reason).toMatch(/bad magic/);
    expect((await openRecall(file, { cachePath })).cache.status).toBe("loaded");
  });

  it("a truncated ledger is detected and the index rebuilt", async () => {
    const dir = tempDir("recall-trunc-");
    const file = join(dir, "s.jsonl");
    await generateSession(file, { seed: 6, turns: 40 });
    const cacheDir = join(dir, "cache");
    await openRecall(file, { cacheDir });
    const text = readFileSync(file, "utf8");
    const cut = text.lastIndexOf("\n", text.length - 2) + 1;
    truncateSync(file, Buffer.byteLength(text.slice(0, cut)));
    const reopened = await openRecall(file, { cacheDir });
    expect(reopened.cache.status).toBe("rebuilt");
    expect(reopened.cache.reason).toMatch(/truncated/);
    expect(reopened.index.blockCount).toBe(reopened.session.blocks.length);
    // A long-lived handle notices the truncation on refresh and rebuilds.
    const now = readFileSync(file, "utf8");
    truncateSync(file, Buffer.byteLength(now.slice(0, now.lastIndexOf("\n", now.length - 2) + 1)));
    const report = await reopened.refresh();
    expect(report.status).toBe("rebuilt");
    expect(reopened.index.blockCount).toBe(reopened.session.blocks.length);
    expect(reopened.session.blocks.length).toBeLessThan(reopened.index.blockCount + 1);
  });

  it("a replaced ledger (same id, other bytes) and a foreign ledger are detected", async () => {
    const dir = tempDir("recall-replace-");
    const file = join(dir, "s.jsonl");
    await generateSession(file, { seed: 8, turns: 40 });
    const cachePath = join(dir, "one.recall");
    await openRecall(file, { cachePath });
    // Same header, first user message changed in place at the same length.
    const text = readFileSync(file, "utf8");
    const lines = text.split("\n");
    const at = lines.findIndex((l) => l.includes('"role":"user"'));
    lines[at] = (lines[at] ?? "").replace(/"content":"(.)/, (_m, c: string) => `"content":"${c === "X" ? "Y" : "X"}`);
    writeFileSync(file, lines.join("\n"));
    expect(statSync(file).size).toBe(Buffer.byteLength(text));
    const replaced = await openRecall(file, { cachePath });
    expect(replaced.cache.status).toBe("rebuilt");
    expect(replaced.cache.reason).toMatch(/changed/);

    const other = join(dir, "other.jsonl");
    await generateSession(other, { seed: 9, turns: 40 });
    copyFileSync(other, file);
    const foreign = await openRecall(file, { cachePath });
    expect(foreign.cache.status).toBe("rebuilt");
    expect(foreign.cache.reason).toMatch(/built for session/);
  });

  it("a corrupt cache is rebuilt, never trusted", async () => {
    const dir = tempDir("recall-corrupt-");
    const file = join(dir, "s.jsonl");
    const manifest = await generateSession(file, { seed: 10, turns: 40 });
    const cachePath = join(dir, "c.recall");
    await openRecall(file, { cachePath });
    const bytes = readFileSync(cachePath);
    bytes[Math.floor(bytes.length / 2)] = (bytes[Math.floor(bytes.length / 2)] ?? 0) ^ 0xff;
    writeFileSync(cachePath, bytes);
    const reopened = await openRecall(file, { cachePath });
    expect(reopened.cache.status).toBe("rebuilt");
    expect(reopened.cache.reason).toMatch(/corrupt/);
    const needle = manifest.needles.find((n) => n.onLineage);
    expect(reopened.search(needle?.value ?? "").hits[0]?.entryId).toBe(needle?.entryId);
    writeFileSync(cachePath, "garbage");
    expect((await openRecall(file, { cachePath })).cache.status).toBe("rebuilt");
    expect((await openRecall(file, { cachePath })).cache.status).toBe("loaded");
  });
});

describe("expand", () => {
  it("returns full text verified against the hash recorded when first indexed; a changed ledger is flagged, never re-certified", async () => {
    const dir = tempDir("recall-expand-");
    const file = join(dir, "s.jsonl");
    const cachePath = join(dir, "cache.bin");
    const manifest = await generateSession(file, { seed: 12, turns: 40 });
    const recall = await openRecall(file, { cachePath });
    const needle = manifest.needles.find((n) => n.onLineage && n.anchor !== undefined);
    const user = manifest.needles.find((n) => n.onLineage && n.where === "user-text");
    const n1 = recall.search(needle?.value ?? "").hits[0]?.index ?? -1;
    const n2 = recall.search(user?.value ?? "").hits[0]?.index ?? -1;
    const [a, b] = recall.expand([n1, n2]);
    expect(a).toMatchObject({ verified: true, verifiedAgainst: "block-table" });
    expect(a?.text).toContain(needle?.value);
    expect(a?.text).toBe(recall.session.blocks[n1]?.text);
    expect(b).toMatchObject({ verified: true, verifiedAgainst: "block-table" });
    expect(b?.text).toContain(user?.value);
    expect(() => recall.expand([999_999])).toThrow(/not a block/);
    // Rewrite the needle in the file (same length), read it again: the text is the tampered one and fails.
    const text = readFileSync(file, "utf8");
    const value = needle?.value ?? "";
    const swapped = value.slice(0, -1) + (value.endsWith("Z") ? "Q" : "Z");
    writeFileSync(file, text.split(value).join(swapped));
    const again = await openRecall(file, { cachePath });
    const [stale] = again.expand([n1]);
    expect(stale?.text).toContain(swapped);
    expect(stale).toMatchObject({ verified: false, verifiedAgainst: "block-table" });
    expect(stale?.problem).toMatch(/changed since it was first indexed/);
    // The block table was rewritten for the new bytes, but kept the first hash: still flagged.
    const third = await openRecall(file, { cachePath });
    expect(third.expand([n1])[0]).toMatchObject({ verified: false, verifiedAgainst: "block-table" });
  });

  it("with nothing recorded (no seed index, no cache): not verified, against none", async () => {
    const dir = tempDir("recall-expand-");
    const file = join(dir, "s.jsonl");
    await generateSession(file, { seed: 3, turns: 6 });
    const recall = await openRecall(file, { cache: false });
    expect(recall.expand([0])[0]).toMatchObject({ verified: false, verifiedAgainst: "none" });
  });
});

describe("searchSessions across a sessions directory", () => {
  it("finds a fact in whichever session holds it and names that session; reports progress", async () => {
    const dir = tempDir("recall-many-");
    mkdirSync(join(dir, "--home-dev-a--"));
    mkdirSync(join(dir, "--home-dev-b--"));
    const m1 = await generateSession(join(dir, "--home-dev-a--", "one.jsonl"), { seed: 41, turns: 30 });
    const m2 = await generateSession(join(dir, "--home-dev-b--", "two.jsonl"), { seed: 42, turns: 30 });
    writeFileSync(join(dir, "broken.jsonl"), "not json\n");
    const progress: number[] = [];
    const needle = m2.needles.find((n) => n.onLineage && n.kind === "identifier");
    const result = await searchSessions(dir, needle?.value ?? "", { cacheDir: join(dir, ".cache"), onProgress: (done) => progress.push(done) });
    expect(progress).toEqual([1, 2, 3]);
    expect(result.sessions).toBe(2);
    expect(result.skipped.map((s) => s.file)).toEqual([join(dir, "broken.jsonl")]);
    expect(result.hits[0]?.session).toBe(join("--home-dev-b--", "two.jsonl"));
    expect(result.hits[0]?.entryId).toBe(needle?.entryId);
    expect(result.segments[0]?.session).toBe(join("--home-dev-b--", "two.jsonl"));
    expect(renderResults(result)).toContain(`--- ${join("--home-dev-b--", "two.jsonl")} #`);
    const other = m1.needles.find((n) => n.onLineage && n.kind === "hex");
    const r1 = await searchSessions(dir, other?.value ?? "", { cacheDir: join(dir, ".cache") });
    expect(r1.hits[0]?.session).toBe(join("--home-dev-a--", "one.jsonl"));
  });

  it("a page holding several hits of one session shows each of them once, as that session's own search shows it", async () => {
    const dir = tempDir("recall-page-");
    mkdirSync(join(dir, "--home-dev-a--"));
    mkdirSync(join(dir, "--home-dev-b--"));
    const files = [join(dir, "--home-dev-a--", "one.jsonl"), join(dir, "--home-dev-b--", "two.jsonl")];
    await generateSession(files[0] as string, { seed: 43, turns: 30 });
    await generateSession(files[1] as string, { seed: 44, turns: 30 });
    const result = await searchSessions(dir, "error", { cacheDir: join(dir, ".cache"), pageSize: 12 });
    expect(result.hits.map((h) => h.rank)).toEqual(result.hits.map((_, k) => k + 1));
    const perSession = new Map<string, number>();
    for (const h of result.hits) perSession.set(h.session ?? "", (perSession.get(h.session ?? "") ?? 0) + 1);
    expect(Math.max(...perSession.values())).toBeGreaterThan(1);
    expect(new Set(result.hits.map((h) => `${h.session ?? ""}#${String(h.index)}`)).size).toBe(result.hits.length);
    for (const file of files) {
      const label = relative(dir, file);
      const own = RecallIndex.build(await readSession(file)).search("error", { pageSize: 1000 }).hits;
      for (const h of result.hits.filter((x) => x.session === label)) {
        const same = own.find((o) => o.index === h.index);
        expect({ ...h, rank: 0, session: undefined }, `${label} #${String(h.index)}`).toEqual({ ...same, rank: 0, session: undefined });
      }
    }
  });
});
