// The history index against the plain per-session search it replaces: over a small generated history,
// every query gives the same hits, segments and pages as searching each session on its own and merging;
// still so after a session grows (Pi appends), one is added, one is rewritten shorter and one deleted;
// two updaters at once leave it whole; filters keep only the sessions they name.
import { spawn } from "node:child_process";
import { existsSync, readFileSync, rmSync, writeFileSync, mkdirSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { SessionManager } from "@earendil-works/pi-coding-agent";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { generateSession } from "@context-fold/session-gen";
import { tempDir } from "@context-fold/test-support";
import { HistoryIndex, historyDirFor, historyRoot, listHistories, listSessionFiles, renderResults, searchSessions, type SearchResult } from "@context-fold/recall-engine";

// `rotation`: a word no generated session holds, matched by the terms its stem begins (`rotate`, `rotated`…), bounded by their union (stemKey).
// `refreshToken rotation`: a camelCase compound (its parts only boost) beside such a word; `src/ledger/reader.ts`: a path compound.
const QUERIES = ["checksum drift", "rotation", "\"Command exited with code 1\"", "src/ledger/reader.ts", "what did the user ask", "quokkasaurus", "/timeout|deadline/", "refreshToken rotation"];
/** Scope and page per query, taken in turn (every query in each would take minutes on a shared machine). */
const VIEWS: { scope?: string; page: number }[] = [{ page: 1 }, { scope: "all", page: 1 }, { page: 2 }];

function comparable(r: SearchResult): unknown {
  return { mode: r.mode, scope: r.scope, total: r.total, page: r.page, pages: r.pages, hits: r.hits, segments: r.segments, segmentCount: r.segmentCount };
}

/** The history's answer against per-session search's: the page always the same, the count only when the history says it is exact. */
function expectSamePage(across: SearchResult & { totalExact: boolean }, each: SearchResult, what: string): void {
  if (across.totalExact) {
    expect(comparable(across), what).toEqual(comparable(each));
    return;
  }
  const { total, pages, ...page } = comparable(across) as Record<string, unknown>;
  const { total: eachTotal, pages: eachPages, ...eachPage } = comparable(each) as Record<string, unknown>;
  expect(page, what).toEqual(eachPage);
  expect(total as number, what).toBeLessThanOrEqual(eachTotal as number);
  expect(pages as number, what).toBeLessThanOrEqual(eachPages as number);
  expect(total as number, what).toBeGreaterThanOrEqual(across.page * across.pageSize);
}

async function sameAsEachSession(history: HistoryIndex, dir: string): Promise<void> {
  for (const [k, query] of QUERIES.entries()) {
    for (const view of [VIEWS[k % VIEWS.length], VIEWS[(k + 1) % VIEWS.length]]) {
      const options = { page: view?.page ?? 1, ...(view?.scope === undefined ? {} : { scope: view.scope }) };
      const each = await searchSessions(dir, query, { ...options, cache: false });
      const across = await history.search(query, options);
      expectSamePage(across, each, `${query} ${options.scope ?? "lineage"} page ${String(options.page)}`);
    }
  }
}

let clock = Date.parse("2026-05-01T10:00:00.000Z");
function user(text: string): AgentMessage {
  return { role: "user", content: text, timestamp: (clock += 1000) } as unknown as AgentMessage;
}
function assistant(text: string): AgentMessage {
  return { role: "assistant", content: [{ type: "text", text }], api: "faux", provider: "faux", model: "faux", usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } }, stopReason: "stop", timestamp: (clock += 1000) } as unknown as AgentMessage;
}

describe("history index", () => {
  const root = tempDir("history-root-");
  const dir = tempDir("history-sessions-");
  const files: string[] = [];
  const history = HistoryIndex.for(dir, { root });

  it("gives the results of searching each session on its own, opening only the sessions that hold a query's terms", async () => {
    const projects = ["--home-dev-alpha--", "--home-dev-beta--"];
    for (let k = 0; k < 5; k++) {
      const project = projects[k % 2] as string;
      mkdirSync(join(dir, project), { recursive: true });
      const file = join(dir, project, `s${String(k)}.jsonl`);
      await generateSession(file, { seed: 70 + k, turns: 24 + 4 * k, cwd: `/home/dev/${k % 2 === 0 ? "alpha" : "beta"}`, startTime: `2026-03-0${String(k + 1)}T09:00:00.000Z` });
      files.push(file);
    }
    // One session Pi wrote itself, holding a word no generated one has.
    const sm = SessionManager.create("/home/dev/gamma", join(dir, "--home-dev-gamma--"));
    sm.appendMessage(user("the quokkasaurus fixture fails on CI"));
    sm.appendMessage(assistant("I will look at the quokkasaurus fixture."));
    const piFile = sm.getSessionFile();
    if (piFile === undefined) throw new Error("Pi wrote no file");
    files.push(piFile);

    await sameAsEachSession(history, dir);
    const first = await history.search("quokkasaurus");
    expect(first.searched).toBe(1);
    expect(first.sessions).toBe(6);
    const label = first.hits[0]?.session ?? "";
    expect(first.named[label]).toMatchObject({ project: "/home/dev/gamma", title: "the quokkasaurus fixture fails on CI" });
    expect(first.update).toMatchObject({ added: 0, unchanged: 6 });
    expect(historyDirFor(dir, root).startsWith(root)).toBe(true);
    expect(listHistories(root)).toEqual([expect.objectContaining({ sessionsDir: dir, sessions: 6 })]);
  }, 180_000);

  it("expands a hit verified against its own session's ledger", async () => {
    const found = await history.search("quokkasaurus");
    const hit = found.hits[0];
    if (hit === undefined || hit.session === undefined) throw new Error("no hit");
    const { entries } = await history.expand(hit.session, [hit.index]);
    expect(entries[0]).toMatchObject({ index: hit.index, verified: true, verifiedAgainst: "block-table" });
    expect(entries[0]?.text).toContain("quokkasaurus");
    // Another process (a new index object) expands without searching first: still against the block table.
    const fresh = await HistoryIndex.for(dir, { root }).expand(hit.session, [hit.index]);
    expect(fresh.entries[0]).toMatchObject({ index: hit.index, verified: true, verifiedAgainst: "block-table" });
  });

  it("stays the same as per-session search after a session grows, one is added, one is cut short and one deleted", async () => {
    const grown = SessionManager.open(files[5] as string, join(dir, "--home-dev-gamma--"));
    grown.appendMessage(user("and the wombatron deadline moved to Friday"));
    let update = (await history.search("wombatron")).update;
    expect(update).toMatchObject({ grown: 1, added: 0, replaced: 0, removed: 0 });
    expect((await history.search("wombatron")).total).toBe(1);

    await generateSession(join(dir, "--home-dev-beta--", "s9.jsonl"), { seed: 99, turns: 30, cwd: "/home/dev/beta" });
    const cut = files[0] as string;
    const lines = readFileSync(cut, "utf8").split("\n");
    writeFileSync(cut, `${lines.slice(0, Math.floor(lines.length / 2)).join("\n")}\n`);
    rmSync(files[1] as string);
    update = (await history.search("vitest")).update;
    expect(update).toMatchObject({ added: 1, replaced: 1, removed: 1 });
    await sameAsEachSession(history, dir);
  }, 180_000);

  it("a session grown again and again is read from its segment's parts, then rewritten whole, answering as per-session search", async () => {
    const file = files[5] as string;
    const parts = (): string[] => readdirSync(join(historyDirFor(dir, root), "segments")).filter((f) => /\.seg\.\d+$/.test(f));
    // The test before grew this session once: its segment has one part past its first.
    let expected = parts().length;
    expect(expected).toBe(1);
    let rewritten = false;
    for (let k = 0; k < 8; k++) {
      const grown = SessionManager.open(file, join(dir, "--home-dev-gamma--"));
      grown.appendMessage(user(`growth ${String(k)}: the zorblax${String(k)} wombatron checksum`));
      grown.appendMessage(assistant(`noted zorblax${String(k)}, the wombatron and the checksum drift`));
      const across = await history.search(`zorblax${String(k)} wombatron`, { scope: "all" });
      expect(across.update).toMatchObject({ grown: 1, added: 0, replaced: 0, removed: 0 });
      const each = await searchSessions(dir, `zorblax${String(k)} wombatron`, { scope: "all", cache: false });
      expectSamePage(across, each, `growth ${String(k)}`);
      // A growth adds a part, up to seven past the first; the one after rewrites the segment whole.
      expected = expected + 1 < 8 ? expected + 1 : 0;
      if (expected === 0) rewritten = true;
      expect(parts().length, `growth ${String(k)}`).toBe(expected);
    }
    expect(rewritten).toBe(true);
    await sameAsEachSession(history, dir);
  }, 240_000);

  it("keeps the ledger keys apart from the manifest; a grown session whose key is not kept is indexed anew", async () => {
    const state = historyDirFor(dir, root);
    const file = files[5] as string;
    // The manifest every search reads holds no ledger hash; keys.json holds the key of each session, at the size the manifest has.
    const manifest = JSON.parse(readFileSync(join(state, "manifest.json"), "utf8")) as { sessions: { path: string; size: number; blocks?: number }[] };
    expect(readFileSync(join(state, "manifest.json"), "utf8")).not.toMatch(/[0-9a-f]{64}/);
    const keys = JSON.parse(readFileSync(join(state, "keys.json"), "utf8")) as { sessions: Record<string, { size: number; key: { head: string; blockCount: number } }> };
    // A growth appends its session's key to keys.log (one per line, the last the newest) rather than rewriting keys.json.
    const log = existsSync(join(state, "keys.log")) ? readFileSync(join(state, "keys.log"), "utf8").split("\n").filter((l) => l !== "") : [];
    expect(log.length).toBeGreaterThan(0);
    for (const line of log) {
      const { path, ...kept } = JSON.parse(line) as { path: string; size: number; key: { head: string; blockCount: number } };
      keys.sessions[path] = kept;
    }
    const mine = manifest.sessions.find((s) => s.path === relative(dir, file));
    expect(keys.sessions[relative(dir, file)]).toMatchObject({ size: mine?.size, key: { head: expect.stringMatching(/^[0-9a-f]{64}$/), blockCount: mine?.blocks } });
    // Both files as written, in the order of JSON.stringify (each entry is encoded once per process and kept).
    for (const name of ["manifest.json", "keys.json", ...log.map((_, k) => `keys.log:${String(k)}`)]) {
      const text = name.startsWith("keys.log:") ? (log[Number(name.slice(9))] as string) : readFileSync(join(state, name), "utf8");
      expect(text, name).toBe(JSON.stringify(JSON.parse(text)).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`));
    }
    // A key kept at another size (as a crash between the two files' replacements leaves it) is not trusted
    // by the process that starts next: the growth rebuilds the segment.
    const stale = { ...keys, sessions: { ...keys.sessions, [relative(dir, file)]: { ...keys.sessions[relative(dir, file)], size: 1 } } };
    writeFileSync(join(state, "keys.json"), JSON.stringify(stale));
    rmSync(join(state, "keys.log"));
    const grown = SessionManager.open(file, join(dir, "--home-dev-gamma--"));
    grown.appendMessage(user("the quasimodal wombatron shipped"));
    const restarted = HistoryIndex.for(dir, { root });
    const across = await restarted.search("quasimodal");
    expect(across.update).toMatchObject({ grown: 0, replaced: 1, added: 0, removed: 0 });
    expect(across.total).toBe(1);
    // And kept again for the next growth, which extends the segment.
    grown.appendMessage(user("the quasimodal wombatron shipped twice"));
    expect((await restarted.search("quasimodal")).update).toMatchObject({ grown: 1, replaced: 0 });
    await sameAsEachSession(restarted, dir);
    // keys.json and keys.log are a cache (written without fsync): lost or cut short, as a crash may leave
    // them, the next process indexes a grown session anew and answers as before.
    for (const [k, loss] of (["lost", "cut short"] as const).entries()) {
      if (loss === "lost") for (const name of ["keys.json", "keys.log"]) rmSync(join(state, name), { force: true });
      else {
        writeFileSync(join(state, "keys.json"), readFileSync(join(state, "keys.json")).subarray(0, 100));
        // The log's last line (this session's newest key) torn: the next append still reads whole.
        const bytes = readFileSync(join(state, "keys.log"));
        writeFileSync(join(state, "keys.log"), bytes.subarray(0, bytes.length - 10));
      }
      grown.appendMessage(user(`the quasimodal wombatron shipped, ${loss} ${String(k)}`));
      const after = HistoryIndex.for(dir, { root });
      const found = await after.search("quasimodal wombatron", { scope: "all" });
      expect(found.update, loss).toMatchObject({ grown: 0, replaced: 1, added: 0, removed: 0 });
      expectSamePage(found, await searchSessions(dir, "quasimodal wombatron", { scope: "all", cache: false }), loss);
      // Its key kept again by that update: the growth after extends the segment.
      grown.appendMessage(user(`the quasimodal wombatron shipped again, ${loss}`));
      expect((await after.search("quasimodal")).update, loss).toMatchObject({ grown: 1, replaced: 0 });
    }
    await sameAsEachSession(history, dir);
  }, 240_000);

  it("two updaters at once leave one whole history", async () => {
    const root2 = tempDir("history-root2-");
    const [a, b] = await Promise.all([HistoryIndex.for(dir, { root: root2 }).update(), HistoryIndex.for(dir, { root: root2 }).update()]);
    expect(a.added + b.added).toBe(6); // the second waits for the lock, then finds the first one's work
    await sameAsEachSession(HistoryIndex.for(dir, { root: root2 }), dir);
    expect(readdirSync(historyDirFor(dir, root2)).filter((n) => n.endsWith(".lock"))).toEqual([]);
  }, 180_000);

  it("two processes updating the same history at once leave it whole and complete", async () => {
    // Each child loads the built package (dist), as the CLI and the extension run it.
    const dist = fileURLToPath(new URL("../dist/index.js", import.meta.url));
    if (!existsSync(dist)) throw new Error(`${dist} is missing: build @context-fold/recall-engine first`);
    const root3 = tempDir("history-root3-");
    const script = `const { HistoryIndex } = await import(${JSON.stringify(pathToFileURL(dist).href)}); const u = await HistoryIndex.for(process.argv[1], { root: process.argv[2] }).update(); process.stdout.write(JSON.stringify(u));`;
    const child = (): Promise<{ code: number | null; out: string; err: string }> =>
      new Promise((done) => {
        const p = spawn(process.execPath, ["--input-type=module", "-e", script, dir, root3], { stdio: ["ignore", "pipe", "pipe"] });
        let out = "";
        let err = "";
        p.stdout.on("data", (b: Buffer) => (out += b.toString()));
        p.stderr.on("data", (b: Buffer) => (err += b.toString()));
        p.on("close", (code) => done({ code, out, err }));
      });
    const [a, b] = await Promise.all([child(), child()]);
    expect([a.code, b.code, a.err, b.err]).toEqual([0, 0, "", ""]);
    const ua = JSON.parse(a.out) as { added: number; unchanged: number };
    const ub = JSON.parse(b.out) as { added: number; unchanged: number };
    // One of them built it; the other waited for the lock (or found it built) and added nothing twice.
    expect(ua.added + ub.added).toBe(listSessionFiles(dir).length);
    const after = HistoryIndex.for(dir, { root: root3 });
    expect((await after.update()).unchanged).toBe(listSessionFiles(dir).length);
    expect(after.sessions.map((s) => s.path).sort()).toEqual(listSessionFiles(dir).map((f) => relative(dir, f)).sort());
    await sameAsEachSession(after, dir);
    expect(readdirSync(historyDirFor(dir, root3)).filter((n) => n.endsWith(".lock"))).toEqual([]);
  }, 180_000);

  it("tells its caller when an update has work to do, and only then (a CLI process lets V8 optimize again for it)", async () => {
    let told = 0;
    const watched = HistoryIndex.for(dir, { root, onUpdateWork: () => told++ });
    await watched.search("checksum drift");
    expect(told).toBe(0);
    const grown = SessionManager.open(files[5] as string, join(dir, "--home-dev-gamma--"));
    grown.appendMessage(user("the numbat ledger again"));
    expect((await watched.search("numbat")).update).toMatchObject({ grown: 1 });
    expect(told).toBe(1);
    await watched.search("numbat");
    expect(told).toBe(1);
  });

  it("filters by project folder and by date", async () => {
    const alpha = await history.search("vitest", { project: "/home/dev/alpha", pageSize: 100 });
    expect(alpha.sessions).toBe(3); // s0 (cut short), s2 and s4
    expect(alpha.total).toBeGreaterThan(0);
    expect(new Set(alpha.hits.map((h) => h.session?.split("/")[0]))).toEqual(new Set(["--home-dev-alpha--"]));
    const early = await history.search("vitest", { until: Date.parse("2026-03-03T00:00:00.000Z"), pageSize: 100 });
    expect(early.sessions).toBe(2); // s0 (March 1st) and s9 (the generator's default start); s1 was deleted
    for (const h of early.hits) expect(early.named[h.session ?? ""]?.date ?? "").toMatch(/^2026-03-0[12]/);
  });

  it("puts the hits of one project folder's sessions first, leaving none out", async () => {
    const key = (h: { session?: string; index: number }): string => `${h.session ?? ""}#${String(h.index)}`;
    const plain = await history.search("vitest", { pageSize: 1000 });
    const beta = await history.search("vitest", { pageSize: 1000, first: "/home/dev/beta" });
    expect(beta.total).toBe(plain.total);
    expect(new Set(beta.hits.map(key))).toEqual(new Set(plain.hits.map(key)));
    const groups = beta.hits.map((h) => (h.session?.startsWith("--home-dev-beta--/") === true ? 0 : 1));
    expect(groups).toContain(0);
    expect(groups).toContain(1);
    expect(groups).toEqual([...groups].sort((a, b) => a - b));
    // Plain search does not order by folder: a beta hit follows another folder's somewhere.
    const plainGroups = plain.hits.map((h) => (h.session?.startsWith("--home-dev-beta--/") === true ? 0 : 1));
    expect(plainGroups).not.toEqual([...plainGroups].sort((a, b) => a - b));
  });

  it("is rebuilt whole when its segments were built with another recall index format (tokenization)", async () => {
    const path = join(historyDirFor(dir, root), "manifest.json");
    const doc = JSON.parse(readFileSync(path, "utf8")) as { indexFormat: number };
    writeFileSync(path, JSON.stringify({ ...doc, indexFormat: doc.indexFormat - 1 }));
    const update = await HistoryIndex.for(dir, { root }).update();
    expect(update).toMatchObject({ added: listSessionFiles(dir).length, grown: 0, unchanged: 0 });
  }, 180_000);

  it("keeps its state under XDG_STATE_HOME when that is absolute, else under ~/.local/state", () => {
    expect(historyRoot({ XDG_STATE_HOME: "/var/state" })).toBe("/var/state/context-fold/history");
    expect(historyRoot({ XDG_STATE_HOME: "relative" })).toMatch(/\.local\/state\/context-fold\/history$/);
  });
});

describe("history search leaves out sessions that cannot reach the page", () => {
  const root = tempDir("history-prune-root-");
  const dir = tempDir("history-prune-sessions-");

  it("ranks only the sessions whose score bound reaches the page: the same hits as per-session search, a lower-bound total", async () => {
    const project = join(dir, "--home-dev-delta--");
    // Eight sessions where "wombat" is rare (one block of many: a high idf), eight where every block holds
    // it (an idf near zero): the latter's bound is below the former's hits.
    for (let k = 0; k < 8; k++) {
      const sm = SessionManager.create("/home/dev/delta", project);
      for (let t = 0; t < 8; t++) {
        sm.appendMessage(user(`filler ${String(k)} turn ${String(t)} about parser${String(t)} and lexer${String(k)}`));
        sm.appendMessage(assistant(`noted parser${String(t)} for lexer${String(k)} build ${String(t)}`));
      }
      sm.appendMessage(user(`the wombat config ${String(k)} broke`));
      sm.appendMessage(assistant(`checking the config ${String(k)}`));
    }
    for (let k = 0; k < 8; k++) {
      const sm = SessionManager.create("/home/dev/delta", project);
      sm.appendMessage(user(`wombat wombat release ${String(k)}, wombat notes and the wombat changelog for the wombat team`));
      sm.appendMessage(assistant(`wombat ${String(k)} wombat wombat: wombat shipped`));
    }
    const history = HistoryIndex.for(dir, { root });
    for (const options of [{ page: 1 }, { page: 2, pageSize: 3 }]) {
      const across = await history.search("wombat", options);
      const each = await searchSessions(dir, "wombat", { ...options, cache: false });
      expectSamePage(across, each, `wombat page ${String(options.page)}`);
      expect(across.totalExact).toBe(false);
      expect(across.hits.length).toBe(options.pageSize ?? 5);
      expect(across.searched).toBeLessThan(16);
      expect(across.total).toBeLessThan(each.total);
      // Shown as a lower bound, with a next page offered.
      expect(renderResults(across)).toContain(`Found at least ${String(across.total)} matches`);
      expect(renderResults(across)).toContain(`page ${String(options.page)}/${String(across.pages)}+`);
      expect(renderResults(across)).toContain(`More: --page ${String(options.page + 1)}`);
    }
    // A page past what the rare sessions hold needs every session: ranked whole, the count exact.
    const deep = await history.search("wombat", { page: 4 });
    const each = await searchSessions(dir, "wombat", { page: 4, cache: false });
    expect(deep.totalExact).toBe(true);
    expect(deep.searched).toBe(16);
    expect(comparable(deep)).toEqual(comparable(each));
    expect(renderResults(deep)).not.toContain("at least");
  }, 120_000);
});
