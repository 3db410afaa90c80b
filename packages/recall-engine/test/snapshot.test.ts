// The block table beside the cache: a one-shot search answered without parsing the ledger gives exactly
// the results of the full read, and any change to the ledger's bytes ends the fast path.
import { appendFileSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readSession } from "@context-fold/ledger-reader";
import { generateSession, type Manifest } from "@context-fold/session-gen";
import { describeShared, sharedFixture, tempDir } from "@context-fold/test-support";
import { openRecall, openRecallSnapshot, openSnapshot, RecallError, searchSessions, snapshotPath, SnapshotStaleError, TermIndex } from "@context-fold/recall-engine";
import { recallFromTable } from "@context-fold/recall-engine/one-shot";
import { PAGE_BYTES } from "../src/term-codec.js";

const QUERIES = ["checksum drift", "vitest", "\"Command exited with code 1\"", "src/ledger/reader.ts", "refreshToken", "shard lease", "zzzz-not-there"];
const SCOPES = [undefined, "all", "compaction:1", "compaction:latest"];

describe("recall from the snapshot, without parsing the ledger", () => {
  const dir = tempDir("recall-snapshot-");
  const file = join(dir, "s.jsonl");
  const cacheDir = join(dir, "cache");
  let manifest: Manifest;

  it("is absent until a full open writes the cache (which records the block table with it)", async () => {
    manifest = await generateSession(file, { seed: 41, turns: 90 });
    expect(openRecallSnapshot(file, { cacheDir })).toBeNull();
    const full = await openRecall(file, { cacheDir });
    expect(full.cachePath).not.toBeNull();
    expect(openRecallSnapshot(file, { cacheDir })).not.toBeNull();
    // The table `save` wrote for this read is not written again (every write replaces the file: a new inode).
    const written = statSync(snapshotPath(full.cachePath ?? "")).ino;
    expect(full.saveSnapshot()).toBe(true);
    expect(statSync(snapshotPath(full.cachePath ?? "")).ino).toBe(written);
    expect(existsSync(snapshotPath(full.cachePath ?? ""))).toBe(true);
  });

  it("a block table an earlier version kept as JSON beside the cache is removed when the table is written", async () => {
    const full = await openRecall(file, { cacheDir });
    const former = `${full.cachePath ?? ""}.blocks.json`;
    writeFileSync(former, JSON.stringify({ format: 1 }));
    expect(full.saveSnapshot()).toBe(true);
    expect(existsSync(former)).toBe(false);
    expect(openRecallSnapshot(file, { cacheDir })).not.toBeNull();
  });

  it("gives byte-identical results to the full read for words, phrases, paths, needles, browse, in every scope", async () => {
    const full = await openRecall(file, { cacheDir });
    const fast = openRecallSnapshot(file, { cacheDir });
    expect(fast).not.toBeNull();
    if (fast === null) return;
    expect(fast.session.blocks.length).toBe(full.session.blocks.length);
    const queries = [...QUERIES, ...manifest.needles.map((n) => n.value)];
    for (const scope of SCOPES) {
      for (const query of queries) {
        const options = scope === undefined ? {} : { scope };
        expect(JSON.stringify(fast.search(query, options)), `${query} in ${scope ?? "lineage"}`).toBe(JSON.stringify(full.search(query, options)));
      }
      for (const page of [1, 2]) expect(JSON.stringify(fast.search("error", { page, ...(scope === undefined ? {} : { scope }) }))).toBe(JSON.stringify(full.search("error", { page, ...(scope === undefined ? {} : { scope }) })));
      const browse = scope === undefined ? {} : { scope };
      expect(JSON.stringify(fast.browse(browse))).toBe(JSON.stringify(full.browse(browse)));
    }
    // Regex reads every block's text back: still the same.
    expect(JSON.stringify(fast.search("/checksum drift at seq \\d+/"))).toBe(JSON.stringify(full.search("/checksum drift at seq \\d+/")));
  });

  it("one search from the table checks only the postings pages it reads: a damaged page it reads sends it to the full read, one it never reads is never read", async () => {
    const dir2 = tempDir("recall-snapshot-pages-");
    const file2 = join(dir2, "s.jsonl");
    copyFileSync(file, file2);
    const full = await openRecall(file2, { cacheDir });
    full.saveSnapshot();
    const cachePath = full.cachePath ?? "";
    const ask = (query: string): string | null => {
      const answer = recallFromTable(file2, { query, open: { cacheDir } });
      return answer === null ? null : answer.kind === "search" ? JSON.stringify(answer.result) : answer.kind;
    };
    for (const query of ["checksum drift", "vitest", "zzzz-not-there"]) expect(ask(query), query).toBe(JSON.stringify(full.search(query)));
    // A rare term (one block holds it), and where its postings lie in the cache file: term t's words start
    // at the sum of the earlier terms' postings (term ids are the order of termTexts).
    const { index: terms, source } = TermIndex.openFile(cachePath);
    let rare = "";
    let words = 0;
    let rareAt = -1;
    for (const term of terms.termTexts()) {
      const length = terms.postings(term)?.length ?? 0;
      if (rareAt < 0 && length === 2 && /^[a-z]{6,}$/.test(term) && words * 4 > PAGE_BYTES) {
        rare = term;
        rareAt = words;
      }
      words += length;
    }
    source.close();
    expect(rareAt).toBeGreaterThan(0);
    const before = ask(rare);
    expect(before).toBe(JSON.stringify(full.search(rare)));
    // One byte of the rare term's page flipped in place (no cache writer does this: a tamper or a disk fault).
    const position = statSync(cachePath).size - 32 - 4 * words + 4 * rareAt;
    const bytes = readFileSync(cachePath);
    bytes[position] = (bytes[position] ?? 0) ^ 0xff;
    writeFileSync(cachePath, bytes);
    // The search that reads the page: the full read instead (which checks the whole cache and rebuilds it).
    expect(ask(rare)).toBeNull();
    // Searches that read no postings, or none on that page, answer as before (a load checked every page).
    expect(ask("zzzz-not-there")).toBe(JSON.stringify(full.search("zzzz-not-there")));
    expect(ask("")).toBe(JSON.stringify(full.browse()));
    // The full read's own load still checks every page, and refuses the file.
    expect(openRecallSnapshot(file2, { cacheDir })).toBeNull();
  });

  it("reads only the text a page shows: blocks off the page may change without the search noticing", async () => {
    const needle = manifest.needles.find((n) => n.onLineage && n.where === "tool-output");
    if (needle === undefined) throw new Error("no tool-output needle");
    const copy = join(dir, "off-page.jsonl");
    copyFileSync(file, copy);
    const full = await openRecall(copy, { cacheDir });
    full.saveSnapshot();
    const expected = full.search(needle.value);
    expect(expected.hits[0]?.entryId).toBe(needle.entryId);
    // Every block the page shows (hits and segment lines name blocks by `index`).
    const shown = new Set<number>();
    JSON.stringify(expected, (key, value: unknown) => {
      if (key === "index" && typeof value === "number") shown.add(value);
      return value;
    });
    // Rewrite a word (same length) in every other block away from the edges the snapshot's key pins:
    // reading any of those texts back would throw SnapshotStaleError.
    const bytes = readFileSync(copy);
    const session = await readSession(copy);
    const shownEntries = new Set(session.blocks.filter((b) => shown.has(b.index)).map((b) => b.entryId));
    let rewritten = 0;
    for (const b of session.blocks) {
      if (shownEntries.has(b.entryId) || b.byteOffset < 128 * 1024 || b.byteOffset + b.byteLength > bytes.length - 128 * 1024) continue;
      const word = /[a-z]{8}/.exec(b.text)?.[0];
      const at = word === undefined ? -1 : bytes.indexOf(word, b.byteOffset);
      if (word === undefined || at < 0 || at + word.length > b.byteOffset + b.byteLength) continue;
      bytes.write(word.toUpperCase(), at);
      rewritten += 1;
    }
    writeFileSync(copy, bytes);
    expect(rewritten).toBeGreaterThan(session.blocks.length / 3);
    const fast = openRecallSnapshot(copy, { cacheDir });
    if (fast === null) throw new Error("no snapshot");
    expect(JSON.stringify(fast.search(needle.value))).toBe(JSON.stringify(expected));
    // The rewritten blocks are caught once a page does show them.
    expect(() => fast.browse({ scope: "all", count: 1_000_000 })).toThrow(SnapshotStaleError);
  });

  it("an append makes it stale (null): the next full open and save serve the new bytes", async () => {
    const copy = join(dir, "appended.jsonl");
    copyFileSync(file, copy);
    const full = await openRecall(copy, { cacheDir });
    full.saveSnapshot();
    expect(openRecallSnapshot(copy, { cacheDir })).not.toBeNull();
    const session = await readSession(copy);
    appendFileSync(copy, `${JSON.stringify({ type: "message", id: "feedface", parentId: session.leafId, timestamp: "2026-03-01T00:00:00.000Z", message: { role: "user", content: "late question about quokkaPipeline", timestamp: 1 } })}\n`);
    expect(openRecallSnapshot(copy, { cacheDir })).toBeNull();
    const again = await openRecall(copy, { cacheDir });
    expect(again.saveSnapshot()).toBe(true);
    expect(openRecallSnapshot(copy, { cacheDir })?.search("quokkaPipeline").hits[0]?.entryId).toBe("feedface");
  });

  it("a block rewritten in the middle of the file (same length, edges untouched) is caught when its text is read", async () => {
    const copy = join(dir, "tampered.jsonl");
    copyFileSync(file, copy);
    const full = await openRecall(copy, { cacheDir });
    full.saveSnapshot();
    const bytes = readFileSync(copy);
    const session = await readSession(copy);
    const mid = session.blocks.find((b) => b.kind === "toolResult" && b.byteOffset > 128 * 1024 && b.byteOffset + b.byteLength < bytes.length - 128 * 1024 && /[a-z]{8}/.test(b.text));
    if (mid === undefined) throw new Error("no mid-file tool result");
    const word = /[a-z]{8}/.exec(mid.text)?.[0] ?? "";
    const at = bytes.indexOf(word, mid.byteOffset);
    expect(at).toBeGreaterThan(mid.byteOffset);
    expect(at).toBeLessThan(mid.byteOffset + mid.byteLength);
    bytes.write(word.toUpperCase(), at);
    writeFileSync(copy, bytes);
    const fast = openRecallSnapshot(copy, { cacheDir });
    expect(fast).not.toBeNull();
    // Untouched blocks still read back; the tampered one does not.
    expect(fast?.session.blocks[0]?.text).toBe(session.blocks[0]?.text);
    expect(() => fast?.session.blocks[mid.index]?.text).toThrow(SnapshotStaleError);
    // One error family: a stale snapshot is a RecallError with its code and the file it is about.
    const stale = (() => {
      try {
        return fast?.session.blocks[mid.index]?.text;
      } catch (error) {
        return error;
      }
    })();
    expect(stale).toBeInstanceOf(RecallError);
    expect(stale).toMatchObject({ code: "SNAPSHOT_STALE", file: copy });
    // A page that shows it (here: every block of every branch) ends the fast path.
    expect(() => fast?.browse({ scope: "all", count: 1_000_000 })).toThrow(SnapshotStaleError);
  });

  it("keeps only its latest texts read: one let go reads back the same, and is checked again when read back", async () => {
    const copy = join(dir, "texts-kept.jsonl");
    copyFileSync(file, copy);
    const full = await openRecall(copy, { cacheDir });
    full.saveSnapshot();
    const cachePath = full.cachePath ?? "";
    const session = await readSession(copy);
    // A limit of one character: every text read lets the one before go.
    const small = openSnapshot(cachePath, copy, 1);
    expect(small).not.toBeNull();
    for (const b of session.blocks) expect(small?.blocks[b.index]?.text).toBe(b.text);
    for (const b of session.blocks.slice(0, 20)) expect(small?.blocks[b.index]?.text).toBe(b.text);
    // The first block's text was let go: rewritten in the file since (same length, edges untouched), it
    // is read back and found changed; kept, it would be answered from memory unchecked.
    const first = session.blocks.find((b) => b.kind === "toolResult" && /[a-z]{8}/.test(b.text) && b.byteOffset > 128 * 1024);
    if (first === undefined) throw new Error("no tool result past the head");
    const kept = openSnapshot(cachePath, copy);
    expect(kept?.blocks[first.index]?.text).toBe(first.text);
    expect(small?.blocks[first.index]?.text).toBe(first.text);
    expect(small?.blocks[0]?.text).toBe(session.blocks[0]?.text);
    const bytes = readFileSync(copy);
    const word = /[a-z]{8}/.exec(first.text)?.[0] ?? "";
    bytes.write(word.toUpperCase(), bytes.indexOf(word, first.byteOffset));
    writeFileSync(copy, bytes);
    expect(kept?.blocks[first.index]?.text).toBe(first.text);
    expect(() => small?.blocks[first.index]?.text).toThrow(SnapshotStaleError);
  });

  it("a table read value by value (as a table of over a million blocks is) gives every block's fields and text as read whole", async () => {
    const full = await openRecall(file, { cacheDir });
    full.saveSnapshot();
    const cachePath = full.cachePath ?? "";
    const whole = openSnapshot(cachePath, file);
    const byValue = openSnapshot(cachePath, file, undefined, 0);
    expect(whole).not.toBeNull();
    expect(byValue?.blocks.length).toBe(whole?.blocks.length);
    const fields = (b: unknown): unknown => {
      const x = b as Record<string, unknown>;
      return ["index", "entryId", "entryPosition", "kind", "role", "turn", "timestamp", "line", "byteOffset", "byteLength", "partIndex", "anchor", "toolName", "toolCallId", "args", "isError", "exitCode", "fullOutputPath", "text"].map((k) => x[k]);
    };
    for (const [i, b] of (whole?.blocks ?? []).entries()) expect(fields(byValue?.blocks[i]), `block #${String(i)}`).toEqual(fields(b));
  });

  it("a corrupt or foreign snapshot file is ignored (null), never trusted", async () => {
    const full = await openRecall(file, { cacheDir });
    full.saveSnapshot();
    const path = snapshotPath(full.cachePath ?? "");
    const good = readFileSync(path);
    writeFileSync(path, good.subarray(0, good.length / 2));
    expect(openRecallSnapshot(file, { cacheDir })).toBeNull();
    // Another format number; one byte more or less; the JSON document the table was before (format 1).
    const other = Buffer.from(good);
    other.writeUInt32LE(99, 4);
    writeFileSync(path, other);
    expect(openRecallSnapshot(file, { cacheDir })).toBeNull();
    writeFileSync(path, Buffer.concat([good, Buffer.from([0])]));
    expect(openRecallSnapshot(file, { cacheDir })).toBeNull();
    writeFileSync(path, good.subarray(0, good.length - 1));
    expect(openRecallSnapshot(file, { cacheDir })).toBeNull();
    writeFileSync(path, JSON.stringify({ format: 1, blocks: {} }));
    expect(openRecallSnapshot(file, { cacheDir })).toBeNull();
    writeFileSync(path, good);
    expect(openRecallSnapshot(file, { cacheDir })).not.toBeNull();
  });
});

describe("a session with a line lost without a trace", () => {
  it("gets no table (it stores Pi's lineage, shorter than the recovered view); the lineage scope reaches the founding request", async () => {
    const dir = tempDir("recall-snapshot-lost-");
    const whole = join(dir, "whole.jsonl");
    await generateSession(whole, { seed: 43, turns: 12 });
    const lines = readFileSync(whole, "utf8").split("\n");
    // Remove the line after the founding request whole: Pi starts a second root at the entry after it.
    const at = lines.findIndex((l) => l.includes('"role":"user"'));
    const file = join(dir, "lost.jsonl");
    writeFileSync(file, [...lines.slice(0, at + 1), ...lines.slice(at + 2)].join("\n"));
    const text = (JSON.parse(lines[at] ?? "{}") as { message: { content: string } }).message.content;
    const founding = (JSON.parse(lines[at] ?? "{}") as { id: string }).id;
    const cacheDir = join(dir, "cache");
    const full = await openRecall(file, { cacheDir });
    expect(full.session.damaged).toEqual([]);
    expect(full.saveSnapshot()).toBe(false);
    expect(openRecallSnapshot(file, { cacheDir })).toBeNull();
    const hits = full.search(`"${text.split(/\s+/).slice(0, 4).join(" ")}"`);
    expect(full.session.roots).toHaveLength(2);
    expect(hits.hits.map((h) => h.entryId)).toContain(founding);
  });
});

describeShared("snapshots of the shared Pi sessions", () => {
  it("v3 files get one that answers like the full read; v1/v2 files (migrated in memory) get none", async () => {
    const dir = tempDir("recall-snapshot-shared-");
    const cacheDir = join(dir, "cache");
    for (const [name, expected] of [
      ["pi-mono__before-compaction.migrated-v3.jsonl", true],
      ["pi-mono__large-session.migrated-v3.jsonl", true],
      ["pi-mono__before-compaction.jsonl", false],
    ] as const) {
      const file = join(dir, name);
      copyFileSync(sharedFixture("sessions", name), file);
      const full = await openRecall(file, { cacheDir });
      expect(full.saveSnapshot(), name).toBe(expected);
      const fast = openRecallSnapshot(file, { cacheDir });
      expect(fast !== null, name).toBe(expected);
      if (fast === null) continue;
      for (const query of ["compaction", "npm run check", "\"tool result\"", "extension", "/error\\b/"]) {
        expect(JSON.stringify(fast.search(query, { scope: "all" })), `${name}: ${query}`).toBe(JSON.stringify(full.search(query, { scope: "all" })));
      }
    }
  });
});

describe("searchSessions with block tables", () => {
  it("the second search over a sessions folder uses the tables and answers exactly as without any cache; a stale table starts it over in full", async () => {
    const dir = tempDir("recall-snapshot-many-");
    const cacheDir = join(dir, ".cache");
    mkdirSync(join(dir, "--a--"));
    mkdirSync(join(dir, "--b--"));
    const one = join(dir, "--a--", "one.jsonl");
    await generateSession(one, { seed: 51, turns: 40 });
    await generateSession(join(dir, "--b--", "two.jsonl"), { seed: 52, turns: 40 });
    const uncached = JSON.stringify(await searchSessions(dir, "checksum drift", { cache: false }));
    expect(JSON.stringify(await searchSessions(dir, "checksum drift", { cacheDir }))).toBe(uncached);
    const tables = readdirSync(cacheDir).filter((n) => n.endsWith(".blocks"));
    expect(tables).toHaveLength(2);
    const mtimes = tables.map((n) => statSync(join(cacheDir, n)).mtimeMs);
    expect(JSON.stringify(await searchSessions(dir, "checksum drift", { cacheDir }))).toBe(uncached);
    // Served from the tables: none was written again.
    expect(tables.map((n) => statSync(join(cacheDir, n)).mtimeMs)).toEqual(mtimes);

    // Rewrite, same length, one word of a block the page shows, far from the file's edges.
    const first = await searchSessions(dir, "checksum drift", { cache: false });
    const shown = first.hits.find((h) => h.session === join("--a--", "one.jsonl"));
    if (shown === undefined) throw new Error("no hit in one.jsonl");
    const session = await readSession(one);
    const block = session.blocks[shown.index];
    if (block === undefined) throw new Error("no block");
    const bytes = readFileSync(one);
    const at = bytes.indexOf("checksum", block.byteOffset);
    expect(at).toBeGreaterThan(-1);
    expect(at).toBeLessThan(block.byteOffset + block.byteLength);
    bytes.write("CHECKSUM", at);
    writeFileSync(one, bytes);
    const after = await searchSessions(dir, "checksum drift", { cacheDir });
    expect(JSON.stringify(after.hits.map((h) => h.text))).toContain("CHECKSUM");
    expect(tables.map((n) => statSync(join(cacheDir, n)).mtimeMs)).not.toEqual(mtimes);
  });
});
