// `context-fold recall` end to end on generated sessions: search JSON shape, words vs regex, scopes,
// expand verified, typed errors as exit 2, span recall by code, and --sessions.
import { copyFileSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { appendRecord, blockLog, codeFor, seedIndexPath, sha256Hex } from "@context-fold/seed-index-format";
import { readSession } from "@context-fold/ledger-reader";
import { generateSession, type Manifest } from "@context-fold/session-gen";
import { tempDir } from "@context-fold/test-support";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { cli } from "./support/run-cli.js";

afterEach(() => {
  process.exitCode = 0;
});

interface SearchJson {
  query: string;
  scope: string;
  total: number;
  page: number;
  pages: number;
  hits: { index: number; entryId: string; role: string; turn: number; score: number; text: string; session?: string }[];
  segments: { from: number; to: number; lines: { index: number; matched: boolean }[] }[];
}

describe("context-fold recall", () => {
  const dir = tempDir("cli-recall-");
  const sessionsDir = join(dir, "sessions");
  const file = join(sessionsDir, "--home-dev-project--", "s.jsonl");
  const cacheDir = join(dir, "cache");
  let manifest: Manifest;
  beforeAll(async () => {
    mkdirSync(join(sessionsDir, "--home-dev-project--"), { recursive: true });
    manifest = await generateSession(file, { seed: 77, turns: 60 });
  });

  it("--json: {query, scope, total, page, pages, hits, segments}; the planted fact ranks first", async () => {
    const needle = manifest.needles.find((n) => n.onLineage && n.kind === "identifier");
    const r = await cli(["recall", file, needle?.value ?? "", "--json", "--cache-dir", cacheDir]);
    expect(r.exit).toBe(0);
    const json = JSON.parse(r.stdout) as SearchJson;
    expect(json.query).toBe(needle?.value);
    expect(json.scope).toBe("lineage");
    expect(json.page).toBe(1);
    expect(json.pages).toBe(Math.ceil(json.total / 5));
    expect(json.hits[0]?.entryId).toBe(needle?.entryId);
    expect(Object.keys(json.hits[0] ?? {})).toEqual(expect.arrayContaining(["index", "entryId", "role", "turn", "score", "text"]));
    expect(json.segments[0]?.lines.some((l) => l.matched && l.index === json.hits[0]?.index)).toBe(true);
  });

  it("human output groups by segment with > marks; a question with punctuation is a word search", async () => {
    const r = await cli(["recall", file, "why", "did", "the", "shard", "fail?", "--cache-dir", cacheDir]);
    expect(r.exit).toBe(0);
    expect(r.stdout).toMatch(/^Found \d+ match/);
    expect(r.stdout).toMatch(/^--- #\d+-#\d+ turn \d+ \(\d+\/\d+ entries match\) ---$/m);
    expect(r.stdout).toMatch(/^> #\d+ \[/m);
  });

  it("a bare query in regex syntax runs as a regex (pi-vcc's convention), a refused one as words with a note; the mode is named", async () => {
    const regex = await cli(["recall", file, "shard.*fail|ECONN", "--json", "--cache-dir", cacheDir]);
    expect(regex.exit).toBe(0);
    expect((JSON.parse(regex.stdout) as { mode: string }).mode).toBe("regex");
    const human = await cli(["recall", file, "shard.*fail|ECONN", "--cache-dir", cacheDir]);
    expect(human.stdout).toMatch(/\(regex\)|\(regex, scope/);
    const refused = await cli(["recall", file, "shard|(?<=x)fail", "--cache-dir", cacheDir]);
    expect(refused.exit).toBe(0);
    expect(refused.stdout).toContain("(words");
    expect(refused.stdout).toContain("Note: ");
    // Slashes stay strict: a pattern re2js refuses is a usage error.
    const strict = await cli(["recall", file, "/(?<=x)fail/", "--cache-dir", cacheDir]);
    expect(strict.exit).toBe(2);
  });

  it("no query browses the last 25 entries", async () => {
    const r = await cli(["recall", file, "--json", "--cache-dir", cacheDir]);
    const json = JSON.parse(r.stdout) as SearchJson;
    expect(json.total).toBe(25);
    expect(json.segments.flatMap((s) => s.lines)).toHaveLength(25);
  });

  it("--expand gives full text verified against the ledger", async () => {
    const session = await readSession(file);
    const big = session.blocks.filter((b) => session.lineageIds.has(b.entryId) && b.text.length > 2000).slice(0, 2);
    const r = await cli(["recall", file, "--expand", big.map((b) => String(b.index)).join(","), "--json", "--cache-dir", cacheDir]);
    expect(r.exit).toBe(0);
    const json = JSON.parse(r.stdout) as { entries: { index: number; text: string; verified: boolean }[] };
    expect(json.entries.map((e) => [e.index, e.text, e.verified])).toEqual(big.map((b) => [b.index, b.text, true]));
  });

  it("a bad regex, a bad scope and a bad #N are exit 2 with a message, never a stack", async () => {
    for (const args of [
      ["/(a/"],
      ["x", "--regex", "--json"],
      ["x", "--scope", "compaction:99"],
      ["x", "--scope", "sideways"],
      ["--expand", "99999999"],
      ["--expand", "1,x"],
    ]) {
      const r = await cli(["recall", file, ...(args[0] === "x" && args[1] === "--regex" ? ["(?<=a)b", ...args.slice(1)] : args), "--cache-dir", cacheDir]);
      expect(r.exit, args.join(" ")).toBe(2);
      expect(r.stderr).toMatch(/^context-fold: /);
      expect(r.stderr).not.toMatch(/\n\s+at /);
      // Under --json the refusal is the one JSON document on stdout.
      if (args.includes("--json")) expect(JSON.parse(r.stdout)).toMatchObject({ error: { code: "BAD_PATTERN" } });
      else expect(r.stdout).toBe("");
    }
  });

  it("scope all finds an abandoned-branch needle the default scope does not", async () => {
    const needle = manifest.needles.find((n) => !n.onLineage);
    expect(needle).toBeDefined();
    const def = JSON.parse((await cli(["recall", file, needle?.value ?? "", "--json", "--cache-dir", cacheDir])).stdout) as SearchJson;
    expect(def.hits.map((h) => h.entryId)).not.toContain(needle?.entryId);
    const all = JSON.parse((await cli(["recall", file, needle?.value ?? "", "--scope", "all", "--json", "--cache-dir", cacheDir])).stdout) as SearchJson;
    expect(all.hits[0]?.entryId).toBe(needle?.entryId);
  });

  it("--code pulls a seed-index span verified by sha256; --grep scans inside it", async () => {
    const session = await readSession(file);
    const block = session.blocks.find((b) => b.kind === "toolResult" && b.anchor !== undefined && b.text.includes("\n"));
    const anchor = block?.anchor ?? "";
    const text = block?.text ?? "";
    await appendRecord(seedIndexPath(file, session.header.id), {
      v: 2,
      kind: "fold-index",
      harness: "pi-context-fold",
      session: session.header.id,
      seq: 0,
      at: "2026-03-01T10:00:00.000Z",
      trigger: "threshold",
      files: [],
      commands: [],
      errors: [],
      identifiers: [],
      userMessages: [],
      spans: [{ blockId: anchor, code: codeFor(anchor), turn: block?.turn ?? 0, log: blockLog(text), sha256: sha256Hex(text) }],
    });
    const r = await cli(["recall", file, "--code", codeFor(anchor), "--json", "--cache-dir", cacheDir]);
    expect(r.exit).toBe(0);
    const json = JSON.parse(r.stdout) as { spans: { status: string; text: string }[] };
    expect(json.spans[0]?.status).toBe("verified");
    expect(json.spans[0]?.text).toBe(text);
    const firstLine = text.split("\n")[0] ?? "";
    const scan = await cli(["recall", file, "--code", codeFor(anchor), "--lines", "1-1", "--cache-dir", cacheDir]);
    expect(scan.stdout).toContain(`     1: ${firstLine}`);
  });

  it("--sessions searches every session and names it; its progress bar is for a terminal only (progress.test.ts), not this captured stderr", async () => {
    const needle = manifest.needles.find((n) => n.onLineage && n.kind === "hex");
    const r = await cli(["recall", "--sessions", sessionsDir, needle?.value ?? "", "--json", "--cache-dir", cacheDir]);
    expect(r.exit).toBe(0);
    const json = JSON.parse(r.stdout) as SearchJson;
    expect(json.hits[0]?.session).toBe(join("--home-dev-project--", "s.jsonl"));
    expect(json.hits[0]?.entryId).toBe(needle?.entryId);
    expect(r.stderr).not.toContain("searching sessions [");
  });

  it("--sessions answers through the history index: the hit's session named, filters applied, --in expands it verified", async () => {
    const needle = manifest.needles.find((n) => n.onLineage && n.kind === "hex");
    const args = ["recall", "--sessions", sessionsDir, needle?.value ?? "", "--cache-dir", cacheDir];
    const human = await cli(args);
    expect(human.exit, human.stderr).toBe(0);
    expect(human.stdout).toContain("Sessions:\n  --home-dev-project--/s.jsonl: /home/dev/project, 2026-03-01");
    const json = JSON.parse((await cli([...args, "--json"])).stdout) as SearchJson & { named: Record<string, { file: string }>; searched: number };
    expect(json.searched).toBe(1);
    const other = JSON.parse((await cli([...args, "--json", "--project", "/elsewhere"])).stdout) as SearchJson & { sessions: number };
    expect([other.sessions, other.total]).toEqual([0, 0]);
    const later = JSON.parse((await cli([...args, "--json", "--since", "2026-04-01"])).stdout) as SearchJson;
    expect(later.total).toBe(0);
    expect((await cli([...args, "--since", "soon"])).exit).toBe(2);
    const hit = json.hits[0];
    const expanded = await cli(["recall", "--sessions", sessionsDir, "--in", hit?.session ?? "", "--expand", String(hit?.index), "--json", "--cache-dir", cacheDir]);
    expect(expanded.exit, expanded.stderr).toBe(0);
    expect(JSON.parse(expanded.stdout)).toMatchObject({ session: file, entries: [{ index: hit?.index, verified: true }] });
    expect((await cli(["recall", "--sessions", sessionsDir, "--expand", "1", "--cache-dir", cacheDir])).exit).toBe(2);
  });
});

describe("context-fold recall from the snapshot (no ledger parse)", () => {
  const dir = tempDir("cli-recall-snapshot-");
  const file = join(dir, "s.jsonl");
  const cacheDir = join(dir, "cache");
  beforeAll(async () => {
    await generateSession(file, { seed: 78, turns: 70 });
  });

  it("the first search writes the block table beside the cache; the next ones answer the same, byte for byte", async () => {
    const first = await cli(["recall", file, "checksum drift", "--cache-dir", cacheDir]);
    expect(first.exit).toBe(0);
    const tables = readdirSync(cacheDir).filter((n) => n.endsWith(".blocks"));
    expect(tables).toHaveLength(1);
    const table = join(cacheDir, tables[0] ?? "");
    const written = statSync(table).mtimeMs;
    for (const args of [["checksum drift"], ["checksum drift", "--json"], ["--scope", "all", "vitest", "--page", "2"], []]) {
      const fresh = await cli(["recall", file, ...args, "--no-cache"]);
      const cached = await cli(["recall", file, ...args, "--cache-dir", cacheDir]);
      expect(cached.exit, args.join(" ")).toBe(0);
      expect(cached.stdout, args.join(" ")).toBe(fresh.stdout);
      expect(cached.stderr).toBe("");
    }
    // Answered from the table: the full read (which rewrites it) never ran again.
    expect(statSync(table).mtimeMs).toBe(written);
  });

  it("a shown block changed in the middle of the file: the search reads the ledger again and answers from the new bytes", async () => {
    const copy = join(dir, "tampered.jsonl");
    copyFileSync(file, copy);
    expect((await cli(["recall", copy, "--cache-dir", cacheDir])).exit).toBe(0);
    const session = await readSession(copy);
    const bytes = readFileSync(copy);
    const last = [...session.blocks].reverse().find((b) => b.kind === "toolResult" && b.byteOffset > 64 * 1024 && b.byteOffset + b.byteLength < bytes.length - 64 * 1024 && /[a-z]{8}/.test(b.text));
    if (last === undefined) throw new Error("no tool result away from the file's edges");
    const word = /[a-z]{8}/.exec(last.text)?.[0] ?? "";
    bytes.write(word.toUpperCase(), bytes.indexOf(word, last.byteOffset));
    writeFileSync(copy, bytes);
    const tableOf = (): string => readdirSync(cacheDir).filter((n) => n.endsWith(".blocks")).map((n) => readFileSync(join(cacheDir, n), "utf8")).join("\n");
    const before = tableOf();
    // Its word still finds it (the index folds case); showing it reads its text back, which no longer matches.
    const args = [word, "--scope", "all", "--page-size", "200"];
    const cached = await cli(["recall", copy, ...args, "--cache-dir", cacheDir]);
    const fresh = await cli(["recall", copy, ...args, "--no-cache"]);
    // The hit's text no longer matches the hash recorded when it was first indexed: marked, a finding.
    expect(cached.exit).toBe(1);
    expect(cached.stderr).toContain(`#${String(last.index)}: its text in the ledger changed since it was first indexed`);
    expect(cached.stdout).toBe(fresh.stdout);
    expect(cached.stdout).toContain(word.toUpperCase());
    // The check caught it and the full read ran; the table written again keeps the first hash (the ledger's
    // length and edges did not move, so nothing else in it changed either).
    expect(tableOf()).toBe(before);
  });
});
