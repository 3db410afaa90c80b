// Lazy command loading: each command module registers exactly the command its entry names (so a run of
// that command, which loads that module alone, finds it); a run loads only the modules its arguments
// need; the built binary's `--version` (printed without loading commander) is what commander prints.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { Command } from "commander";
import { afterEach, describe, expect, it } from "vitest";
import { commandModules, loadCommands, modulesFor } from "../src/commands/index.js";
import { cli } from "./support/run-cli.js";

afterEach(() => {
  process.exitCode = 0;
});

const names = (argv: string[]): string[] => modulesFor(argv).map((m) => m.name);
const all = commandModules.map((m) => m.name);

describe("command modules", () => {
  it("each module registers one top-level command, the one its entry names, and the names are distinct", async () => {
    expect(new Set(all).size).toBe(all.length);
    for (const module of commandModules) {
      const program = new Command("context-fold");
      (await module.load())(program);
      expect(program.commands.map((c) => c.name())).toEqual([module.name]);
    }
  });

  it("a run loads the named command's module alone; none for a bare --version; all for help or a mistake", () => {
    expect(names(["recall", "s.jsonl", "compaction", "--json"])).toEqual(["recall"]);
    expect(names(["--no-progress", "index", "s.jsonl"])).toEqual(["index"]);
    expect(names(["records", "show", "x"])).toEqual(["records"]);
    expect(names(["--version"])).toEqual([]);
    expect(names(["-V"])).toEqual([]);
    expect(names(["--version", "--help"])).toEqual(all);
    expect(names([])).toEqual(all);
    expect(names(["--help"])).toEqual(all);
    expect(names(["help", "recall"])).toEqual(all);
    expect(names(["recal", "x.jsonl"])).toEqual(all);
  });

  it("loads modules in the order given", async () => {
    const loaded = await loadCommands(modulesFor(["inspect"]));
    expect(loaded).toHaveLength(1);
    const program = new Command("context-fold");
    for (const register of await loadCommands()) register(program);
    expect(program.commands.map((c) => c.name())).toEqual(all);
  });

  it("a command's own help needs only its module", async () => {
    const r = await cli(["compact", "--help"]);
    expect(r.exit).toBe(0);
    expect(r.stdout).toContain("Usage: context-fold compact");
  });
});

describe("the built binary (built dist; `pnpm test` builds first)", () => {
  const mainJs = resolve(import.meta.dirname, "../dist/main.js");
  const pkg = JSON.parse(readFileSync(resolve(import.meta.dirname, "../package.json"), "utf8")) as { version: string };

  it("--version and -V print the package's version and a newline, as commander does after another option", () => {
    for (const flag of ["--version", "-V"]) {
      const p = spawnSync(process.execPath, [mainJs, flag], { encoding: "utf8" });
      expect(p.status).toBe(0);
      expect(p.stdout).toBe(`${pkg.version}\n`);
    }
    // Through commander (another option beside it): the same output.
    const viaCommander = spawnSync(process.execPath, [mainJs, "--no-progress", "--version"], { encoding: "utf8" });
    expect(viaCommander.status).toBe(0);
    expect(viaCommander.stdout).toBe(`${pkg.version}\n`);
  });
});
