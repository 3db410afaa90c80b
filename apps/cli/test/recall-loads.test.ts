// What the built binary loads for a warm `recall <session> words` (issue 25: a start is mostly loading
// code): its entry and the one-shot search's bundle, nothing else (the recall-engine code it needs is in
// that bundle; not commander, not the packages' main entries: the ledger parse, the seed-index records
// and typebox, the history index). A search that needs the ledger read in full still loads them. Seen through a module loader hook that records every
// resolved module, so the test reads what Node loaded, not what a bundle says.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { generateSession } from "@context-fold/session-gen";
import { tempDir } from "@context-fold/test-support";
import { beforeAll, describe, expect, it } from "vitest";

const HEAVY = [/\/commander\//, /\/seed-index-format\/dist\/index\.js$/, /\/ledger-reader\/dist\/index\.js$/, /\/recall-engine\/dist\/index\.js$/];
/** Loaded only when needed: the regex engine (a pattern to compile), the durable writer (a cache to write). */
const ON_DEMAND = [/\/re2js\//, /\/durable-fs\//];

describe("what a recall process loads (built dist; `pnpm test` builds first)", () => {
  const mainJs = resolve(import.meta.dirname, "../dist/main.js");
  const dir = tempDir("cli-recall-loads-");
  const file = join(dir, "s.jsonl");
  const hook = join(dir, "record-resolved.mjs");
  const log = join(dir, "resolved.txt");
  beforeAll(async () => {
    await generateSession(file, { seed: 9, turns: 30 });
    writeFileSync(
      hook,
      'import { appendFileSync } from "node:fs";\nexport async function resolve(specifier, context, next) {\n  const r = await next(specifier, context);\n  appendFileSync(process.env.CF_RESOLVED_LOG, `${r.url}\\n`);\n  return r;\n}\n',
    );
  });

  /** The URLs of every module a run of the binary resolved. */
  const loaded = (args: string[]): string[] => {
    rmSync(log, { force: true });
    const p = spawnSync(process.execPath, ["--no-warnings", "--experimental-loader", pathToFileURL(hook).href, mainJs, ...args], {
      encoding: "utf8",
      env: { ...process.env, CF_RESOLVED_LOG: log },
    });
    expect(p.status, p.stderr).toBe(0);
    return readFileSync(log, "utf8").split("\n").filter((line) => line.length > 0);
  };

  it("a search with no cache yet (the table cannot answer) reads the ledger: the package itself is loaded", () => {
    const urls = loaded(["recall", file, "shard"]); // builds the cache and the block table
    expect(urls.some((url) => url.endsWith("/recall-engine/dist/index.js"))).toBe(true);
  });

  it("a warm word search loads the binary's entry and the one-shot bundle alone", () => {
    loaded(["recall", file, "shard"]);
    const urls = loaded(["recall", file, "shard", "failed"]);
    // Node's built-in modules are taken with process.getBuiltinModule, which no loader hook sees.
    expect(urls.map((url) => url.slice(url.lastIndexOf("/") + 1))).toEqual(["main.js", "recall-one-shot.js"]);
    expect(urls.filter((url) => HEAVY.some((heavy) => heavy.test(url)))).toEqual([]);
    expect(urls.filter((url) => ON_DEMAND.some((lazy) => lazy.test(url)))).toEqual([]);
  });

  it("a warm word search compiles no built-in module from source: the one-shot changes V8's flags after loading what it hashes with", () => {
    loaded(["recall", file, "shard"]);
    // Node tells each built-in module's code cache it consults (accepted, or rejected: V8 refuses a cache
    // made under other flags, and the one-shot changes V8's compiler flags: compile-tiers.ts).
    const p = spawnSync(process.execPath, [mainJs, "recall", file, "shard", "failed"], { encoding: "utf8", env: { ...process.env, NODE_DEBUG_NATIVE: "CODE_CACHE" } });
    expect(p.status, p.stderr).toBe(0);
    const told = p.stderr.split("\n").filter((line) => line.startsWith("Code cache of "));
    expect(told.filter((line) => line.startsWith("Code cache of crypto ")).length, p.stderr).toBe(1);
    expect(told.filter((line) => !line.endsWith(" is accepted"))).toEqual([]);
  });

  it("both one-shot bundles are ASCII only (Node decodes such a source on its fast path, into a one-byte string)", () => {
    for (const bundle of ["recall-one-shot.js", "recall-sessions-one-shot.js"]) {
      const bytes = readFileSync(resolve(import.meta.dirname, "../dist", bundle));
      expect(bytes.findIndex((b) => b > 0x7f), bundle).toBe(-1);
    }
  });

  it("a search across a history loads the binary's entry and the history search's bundle alone", () => {
    const state = join(dir, "state");
    loaded(["recall", "--sessions", dir, "shard", "--cache-dir", state]); // builds the history
    const urls = loaded(["recall", "--sessions", dir, "shard", "failed", "--cache-dir", state]);
    expect(urls.map((url) => url.slice(url.lastIndexOf("/") + 1))).toEqual(["main.js", "recall-sessions-one-shot.js"]);
    expect(urls.filter((url) => HEAVY.some((heavy) => heavy.test(url)))).toEqual([]);
  });

  it("the history search's bundle holds no seed index record reader: it requires the file of its own beside it, which reads records as the package does", async () => {
    const dist = resolve(import.meta.dirname, "../dist");
    const bundle = readFileSync(join(dist, "recall-sessions-one-shot.js"), "utf8");
    expect(bundle).toContain('("./recall-sessions-seed-reader.cjs")');
    // typebox (the records' schemas) is not in the bundle every history search loads.
    expect(bundle).not.toMatch(/typebox/i);
    const own = createRequire(import.meta.url)(join(dist, "recall-sessions-seed-reader.cjs")) as typeof import("@context-fold/seed-index-format");
    const { classifyLine } = await import("@context-fold/seed-index-format");
    const lines = ["not json", "{", JSON.stringify({ v: 7, kind: "fold-index", z: 1 }), JSON.stringify({ v: 2, kind: "fold-index", session: "s-1", seq: "one" }), JSON.stringify({ v: 1 })];
    for (const line of lines) {
      expect(own.classifyLine(line), line).toEqual(classifyLine(line));
      expect(own.classifyLine(line, true), line).toEqual(classifyLine(line, true));
    }
  });

  it("a bare --version loads the binary's entry alone and makes no compile cache (a search does)", () => {
    expect(loaded(["--version"]).map((url) => url.slice(url.lastIndexOf("/") + 1))).toEqual(["main.js"]);
    // Node's default compile cache folder is under the temporary folder; the search beside is the control.
    const env = { ...process.env, TMPDIR: join(dir, "tmp") };
    delete env.NODE_COMPILE_CACHE;
    delete env.NODE_DISABLE_COMPILE_CACHE;
    const cache = join(dir, "tmp", "node-compile-cache");
    rmSync(join(dir, "tmp"), { recursive: true, force: true });
    mkdirSync(join(dir, "tmp"));
    const version = spawnSync(process.execPath, [mainJs, "--version"], { encoding: "utf8", env });
    expect(version.status, version.stderr).toBe(0);
    expect(existsSync(cache)).toBe(false);
    const search = spawnSync(process.execPath, [mainJs, "recall", file, "shard"], { encoding: "utf8", env });
    expect(search.status, search.stderr).toBe(0);
    expect(existsSync(cache)).toBe(true);
  });

  it("a search across a history shows a page of hits without loading node:zlib (block tables keep their page fields undeflated)", () => {
    const state = join(dir, "state-zlib");
    const list = join(dir, "history-builtins.txt");
    const preload = join(dir, "list-history-builtins.cjs");
    writeFileSync(preload, 'process.on("exit", () => require("node:fs").writeFileSync(process.env.CF_BUILTINS_LOG, process.moduleLoadList.join("\\n")));\n');
    const run = (): { hits: unknown[] } => {
      const p = spawnSync(process.execPath, ["--require", preload, mainJs, "recall", "--sessions", dir, "shard", "--json", "--cache-dir", state], { encoding: "utf8", env: { ...process.env, CF_BUILTINS_LOG: list } });
      expect(p.status, p.stderr).toBe(0);
      return JSON.parse(p.stdout) as { hits: unknown[] };
    };
    run(); // builds the history
    expect(run().hits.length).toBeGreaterThan(0);
    expect(readFileSync(list, "utf8").split("\n")).not.toContain("NativeModule zlib");
  });

  it("with NODE_COMPILE_CACHE set (Node turns the cache on itself), a warm word search loads no node:module and still runs from the cache", () => {
    loaded(["recall", file, "shard"]);
    const cache = join(dir, "compile-cache");
    const list = join(dir, "builtins.txt");
    const preload = join(dir, "list-builtins.cjs");
    writeFileSync(preload, 'process.on("exit", () => require("node:fs").writeFileSync(process.env.CF_BUILTINS_LOG, process.moduleLoadList.join("\\n")));\n');
    rmSync(cache, { recursive: true, force: true });
    for (let run = 0; run < 2; run++) {
      const p = spawnSync(process.execPath, ["--require", preload, mainJs, "recall", file, "shard", "failed"], {
        encoding: "utf8",
        env: { ...process.env, NODE_COMPILE_CACHE: cache, NODE_DEBUG_NATIVE: "COMPILE_CACHE", CF_BUILTINS_LOG: list },
      });
      expect(p.status, p.stderr).toBe(0);
      if (run === 1) expect(p.stderr).toMatch(/cache for file:\/\/\S+\/recall-one-shot\.js was accepted/);
    }
    expect(readFileSync(list, "utf8").split("\n")).not.toContain("NativeModule module");
  });

  it("a warm word search leaves TurboFan to the hottest code: with V8's thresholds lowered, none of the one-shot bundle's functions is marked", () => {
    loaded(["recall", file, "shard"]);
    const bundle = readFileSync(resolve(import.meta.dirname, "../dist/recall-one-shot.js"), "utf8");
    // --trace-opt names each function marked for TurboFan; Node's own (its start, before the search) are not the bundle's.
    const p = spawnSync(process.execPath, ["--trace-opt", "--invocation-count-for-turbofan=50", "--invocation-count-for-osr=50", mainJs, "recall", file, "shard", "failed"], { encoding: "utf8" });
    expect(p.status, p.stderr).toBe(0);
    const marked = [...p.stdout.matchAll(/\[marking 0x[0-9a-f]+ <JSFunction ([\w$]+) /g)].map((m) => m[1] ?? "");
    expect(marked.length).toBeGreaterThan(0);
    // The bundle's own: a function, a class or a method it defines under that name.
    const defines = (name: string): boolean =>
      new RegExp(`(?:\\bfunction ${name}\\(|\\b${name} = class\\b|^\\s+(?:static |get |set |async )*${name}\\()`, "m").test(bundle);
    expect(marked.filter((name) => defines(name.replace(/\$/g, "\\$")))).toEqual([]);
  });

  it("a search the table cannot answer (expand reads the ledger) loads the package itself", () => {
    const urls = loaded(["recall", file, "--expand", "1"]);
    expect(urls.some((url) => url.endsWith("/recall-engine/dist/index.js"))).toBe(true);
    expect(urls.some((url) => url.endsWith("/ledger-reader/dist/index.js"))).toBe(true);
  });
});
