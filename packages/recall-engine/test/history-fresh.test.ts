// What a history search trusts and what it checks (history-index.ts, history-table.ts). Every search
// lists the sessions folder and stats every session: a session added, deleted, cut short or grown since the
// last search is noticed (by its size and modification time), whichever process searched last. A session
// whose size and time are as indexed is ranked from its segment, the texts ranking reads not hashed; the
// texts a page of results shows are checked against the hashes the history recorded, so a ledger edited in
// place without a change of size or time is still never shown from its stale index (the search then reads
// the ledgers in full, as searching each session on its own does). Segment files are found by the tag the
// manifest keeps; a table read for ranking reads its page fields only when a page shows its session, and
// only when its file is still the one ranked.
import { readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SessionManager } from "@earendil-works/pi-coding-agent";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { tempDir } from "@context-fold/test-support";
import { HistoryIndex, historyDirFor, searchSessions, type SearchResult } from "@context-fold/recall-engine";
import { SnapshotStaleError } from "../src/errors.js";
import { segmentBase, segmentBaseOf } from "../src/history-layout.js";
import { BlockTable } from "../src/history-table.js";
import type { Manifest } from "../src/history-types.js";

let clock = Date.parse("2026-06-01T10:00:00.000Z");
function user(text: string): AgentMessage {
  return { role: "user", content: text, timestamp: (clock += 1000) } as unknown as AgentMessage;
}
function assistant(text: string): AgentMessage {
  return { role: "assistant", content: [{ type: "text", text }], api: "faux", provider: "faux", model: "faux", usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } }, stopReason: "stop", timestamp: (clock += 1000) } as unknown as AgentMessage;
}

/** A session Pi writes under `dir`, its messages in order; its file. */
function piSession(dir: string, cwd: string, messages: AgentMessage[]): string {
  const sm = SessionManager.create(cwd, dir);
  for (const m of messages) sm.appendMessage(m);
  const file = sm.getSessionFile();
  if (file === undefined) throw new Error("Pi wrote no file");
  return file;
}

function page(r: SearchResult): unknown {
  return { total: r.total, hits: r.hits, segments: r.segments };
}

/** A fresh history object (as a new process has) answers `query` as searching each session on its own. */
async function sameAsEach(dir: string, root: string, query: string): Promise<Awaited<ReturnType<HistoryIndex["search"]>>> {
  const across = await HistoryIndex.for(dir, { root }).search(query);
  const each = await searchSessions(dir, query, { cache: false });
  expect(page(across), query).toEqual(page(each));
  return across;
}

describe("history freshness", () => {
  it("notices, from a fresh process's search, a session grown, cut short, deleted or added since the last one", async () => {
    const root = tempDir("history-fresh-root-");
    const dir = tempDir("history-fresh-sessions-");
    const a = piSession(dir, "/home/dev/a", [user("the narwhalix cache misses on cold start"), assistant("narwhalix misses: the cache key omits the region")]);
    const b = piSession(dir, "/home/dev/b", [user("narwhalix again, now in the deploy script"), assistant("The deploy script sets no region for narwhalix."), user("and the ocelotron queue?"), assistant("ocelotron drains every minute")]);
    const c = piSession(dir, "/home/dev/c", [user("ocelotron stalls after a narwhalix restart"), assistant("ocelotron waits on narwhalix's lock")]);
    expect((await sameAsEach(dir, root, "narwhalix")).update).toMatchObject({ added: 3 });

    // Grown (Pi appends), cut short (a rewrite to its first lines), deleted, added: each between two processes' searches.
    const grown = SessionManager.open(a, dir);
    grown.appendMessage(user("and the ocelotron metrics for narwhalix"));
    const lines = readFileSync(b, "utf8").split("\n").filter((l) => l.length > 0);
    writeFileSync(b, `${lines.slice(0, 3).join("\n")}\n`);
    rmSync(c);
    piSession(dir, "/home/dev/d", [user("ocelotron metrics dashboard"), assistant("added the ocelotron panel")]);
    const after = await sameAsEach(dir, root, "ocelotron");
    expect(after.update).toMatchObject({ grown: 1, replaced: 1, removed: 1, added: 1 });
    expect(after.total).toBeGreaterThan(0);
    // Nothing changed since: the next fresh process finds every session as indexed.
    expect((await sameAsEach(dir, root, "narwhalix")).update).toMatchObject({ unchanged: 3, added: 0, grown: 0, replaced: 0, removed: 0 });
  }, 120_000);

  it("checks the texts a page shows: a ledger edited in place, its size and time kept, is not shown from its stale index", async () => {
    const root = tempDir("history-fresh-root-");
    const dir = tempDir("history-fresh-sessions-");
    const file = piSession(dir, "/home/dev/e", [user("the quetzalbyte parser drops the last line"), assistant("quetzalbyte: the parser stops one line early"), user("unrelated: lunch at noon")]);
    piSession(dir, "/home/dev/f", [user("another quetzalbyte report from the nightly run"), assistant("the nightly quetzalbyte run failed on line 12")]);
    // A whole second (set back exactly after the edit below).
    const second = Math.floor(statSync(file).mtimeMs / 1000) - 60;
    utimesSync(file, second, second);
    await sameAsEach(dir, root, "quetzalbyte");
    // The same bytes' length and the same modification time: the freshness check (size, time) cannot tell.
    const before = statSync(file);
    const text = readFileSync(file, "utf8");
    const edited = text.replace("the quetzalbyte parser drops", "the ocelotbytes parser drops");
    expect(edited.length).toBe(text.length);
    writeFileSync(file, edited);
    utimesSync(file, second, second);
    expect(statSync(file).size).toBe(before.size);
    expect(statSync(file).mtimeMs).toBe(before.mtimeMs);
    const history = HistoryIndex.for(dir, { root });
    const across = await history.search("quetzalbyte");
    expect(across.update).toMatchObject({ unchanged: 2 });
    const each = await searchSessions(dir, "quetzalbyte", { cache: false });
    expect(page(across)).toEqual(page(each));
    // The edited message is no hit of either: its text no longer holds the word.
    const shown = JSON.stringify(across.hits);
    expect(shown).not.toContain("the quetzalbyte parser drops");
    expect(shown).toContain("nightly");
  }, 120_000);

  it("finds segment files by the tag the manifest keeps, and searches a manifest written without tags the same", async () => {
    const root = tempDir("history-fresh-root-");
    const dir = tempDir("history-fresh-sessions-");
    piSession(dir, "/home/dev/g", [user("the yakshaver lint rule is too strict"), assistant("relaxed the yakshaver rule")]);
    piSession(dir, "/home/dev/h", [user("yakshaver flags generated files"), assistant("yakshaver now skips dist/")]);
    const first = await sameAsEach(dir, root, "yakshaver");
    const home = historyDirFor(dir, root);
    const manifestPath = join(home, "manifest.json");
    const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as Manifest;
    expect(manifest.sessions).toHaveLength(2);
    for (const s of manifest.sessions) {
      expect(s.tag).toMatch(/^[0-9a-f]{12}$/);
      const file = join(dir, s.path);
      expect(segmentBaseOf(join(home, "segments"), s.id, s.tag as string)).toBe(segmentBase(join(home, "segments"), file, s.id));
      expect(statSync(`${segmentBaseOf(join(home, "segments"), s.id, s.tag as string)}.tab`).isFile()).toBe(true);
    }
    // An older manifest (no tags): its segments are found by hashing the session's path, as before.
    const untagged = { ...manifest, sessions: manifest.sessions.map(({ tag: _tag, ...rest }) => rest) };
    writeFileSync(manifestPath, JSON.stringify(untagged));
    const again = await sameAsEach(dir, root, "yakshaver");
    expect(page(again)).toEqual(page(first));
  }, 120_000);

  it("reads a table's page fields only from the file it ranked: one replaced since is stale", async () => {
    const root = tempDir("history-fresh-root-");
    const dir = tempDir("history-fresh-sessions-");
    const file = piSession(dir, "/home/dev/i", [user("the gnomon clock skews by a second"), assistant("gnomon skew fixed by NTP")]);
    await HistoryIndex.for(dir, { root }).update();
    const manifest = JSON.parse(readFileSync(join(historyDirFor(dir, root), "manifest.json"), "utf8")) as Manifest;
    const s = manifest.sessions[0];
    if (s?.tag === undefined) throw new Error("no tagged session");
    const tab = `${segmentBaseOf(join(historyDirFor(dir, root), "segments"), s.id, s.tag)}.tab`;
    const bytes = readFileSync(tab);

    const table = BlockTable.forRanking(file, tab);
    expect(table.count).toBeGreaterThan(0);
    expect(table.source().blocks.map((b) => b.entryId)).toEqual(BlockTable.read(file, bytes, tab, true).source().blocks.map((b) => b.entryId));

    const ranked = BlockTable.forRanking(file, tab);
    // Another table written in its place (its rank section differs: a kind flag changed) before a page reads its fields.
    const other = Buffer.from(bytes);
    other[20] = ((other[20] as number) ^ 0x10) & 0xff;
    writeFileSync(tab, other);
    expect(() => ranked.source()).toThrow(SnapshotStaleError);
  }, 60_000);
});
