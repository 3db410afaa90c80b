// The binary's fast path for `recall` (commands/recall-argv.ts): what it takes it parses exactly as
// commander does, and what it leaves (help, mistakes, --sessions, …) goes to commander; the built binary
// prints, byte for byte, what the program run through commander prints.
import { spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { Command } from "commander";
import { generateSession } from "@context-fold/session-gen";
import { tempDir } from "@context-fold/test-support";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { parseRecallArgv, parseSessionsArgv } from "../src/commands/recall-argv.js";
import { defineRecall } from "../src/commands/recall.js";
import type { RecallOptions } from "../src/commands/recall-options.js";
import { cli } from "./support/run-cli.js";

afterEach(() => {
  process.exitCode = 0;
});

/** What commander hands recall's action for `recall …args`, or the error it stops with. */
async function viaCommander(args: readonly string[]): Promise<{ session: string | undefined; words: string[]; options: RecallOptions } | { error: string }> {
  let got: { session: string | undefined; words: string[]; options: RecallOptions } | undefined;
  const program = new Command("context-fold").exitOverride().configureOutput({ writeErr: () => undefined, writeOut: () => undefined });
  defineRecall(program, (session, words, options) => {
    got = { session, words, options: { ...options } };
    return Promise.resolve();
  });
  for (const sub of program.commands) sub.exitOverride();
  try {
    await program.parseAsync(["recall", ...args], { from: "user" });
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
  if (got === undefined) throw new Error("commander ran no action");
  return got;
}

describe("parseRecallArgv", () => {
  const dir = tempDir("cli-recall-argv-");
  const file = join(dir, "s.jsonl");
  beforeAll(async () => {
    await generateSession(file, { seed: 5, turns: 8 });
  });

  it("takes what commander takes, with the same session, words and options", async () => {
    const rel = relative(process.cwd(), file);
    const cases: string[][] = [
      [file],
      [file, "shard", "failed"],
      [rel, "compaction"],
      [file, "--json", "build"],
      ["--json", file, "build", "--regex"],
      [file, "a", "--page", "2", "--page-size", "3", "b"],
      [file, "--page=2", "--scope=all", "x"],
      [file, "--scope", "compaction:latest", "--cache-dir", dir, "word"],
      [file, "--no-cache", "--fragment", "--full-output", "--json", "--json"],
      [file, "--expand", "1,2", "--code", "C1", "--anchor", "r:x", "--term", "t", "--grep", "g", "--lines", "1-2", "--roots", dir],
      [file, "--in", "x", "--project", dir, "--since", "2026-01-01", "--until", "2026-02-01"],
      [file, "--page", "1", "--page", "3"],
      [file, "--scope", "all=x"],
    ];
    for (const args of cases) {
      const fast = parseRecallArgv(args);
      expect(fast, args.join(" ")).not.toBeNull();
      expect(await viaCommander(args), args.join(" ")).toEqual({ session: fast?.session, words: fast?.words, options: fast?.options });
    }
  });

  it("leaves to commander what it does not parse exactly as commander does", () => {
    const left: string[][] = [
      [],
      ["--json"],
      [file, "--help"],
      [file, "-h"],
      [file, "--sessions"],
      ["--sessions", dir, "word"],
      [file, "--sesions", "x"],
      [file, "--", "-x"],
      [file, "-x"],
      [file, "--page"],
      [file, "--page", "-1"],
      [file, "--page="],
      [file, "--json=yes"],
      [file, "--no-progress"],
      [file, "--version"],
      [join(dir, "missing.jsonl"), "word"],
      ["latest", "word"],
      ["~/s.jsonl", "word"],
    ];
    for (const args of left) expect(parseRecallArgv(args), args.join(" ")).toBeNull();
  });
});

describe("parseSessionsArgv", () => {
  const dir = tempDir("cli-sessions-argv-");

  it("takes `--sessions <folder>` as commander takes it, the first word as the session argument", async () => {
    const cases: string[][] = [
      ["--sessions", dir, "word"],
      ["--sessions", dir, "two", "words", "--json"],
      [`--sessions=${dir}`, "word", "--page", "2"],
      ["word", "--sessions", dir, "--scope", "all", "--project", dir, "--since", "2026-01-01"],
      ["--sessions", dir, "--expand", "3", "--in", "s.jsonl"],
      ["--sessions", dir, "--no-cache", "x", "--cache-dir", dir],
    ];
    for (const args of cases) {
      const fast = parseSessionsArgv(args);
      expect(fast, args.join(" ")).not.toBeNull();
      expect(await viaCommander(args), args.join(" ")).toEqual({ session: fast?.session, words: fast?.words, options: fast?.options });
    }
  });

  it("leaves to commander a --sessions without a folder, and what parseRecallArgv leaves", () => {
    const left: string[][] = [
      ["--sessions"],
      ["word", "--sessions"],
      ["--sessions", "refreshToken", "rotation"],
      ["--sessions", join(dir, "missing"), "word"],
      ["--sessions", "--json", "word"],
      ["--sessions", dir, "--sessions", dir, "word"],
      ["--sessions", dir, "word", "--help"],
      ["--sessions", dir, "word", "-x"],
      ["--sessions", dir, "--page"],
      ["--sessions=", "word"],
      ["word"],
    ];
    for (const args of left) expect(parseSessionsArgv(args), args.join(" ")).toBeNull();
  });
});

describe("the built binary's fast recall (built dist; `pnpm test` builds first)", () => {
  const mainJs = resolve(import.meta.dirname, "../dist/main.js");
  const dir = tempDir("cli-recall-fast-");
  const sessions = join(dir, "sessions");
  const file = join(sessions, "s.jsonl");
  beforeAll(async () => {
    mkdirSync(sessions, { recursive: true });
    await generateSession(file, { seed: 41, turns: 40 });
  });

  it("prints what the program prints through commander, with the same exit code", async () => {
    const cases: string[][] = [
      ["recall", file, "shard", "failed"],
      ["recall", file, "build", "--json", "--page-size", "3", "--page", "2"],
      ["recall", file],
      ["recall", file, "--scope", "all", "error"],
      ["recall", file, "test", "--page", "999"],
      ["recall", file, "test", "--page", "0", "--json"],
      ["recall", file, "--expand", "3,4"],
      ["recall", file, "--scope", "compaction:99", "x"],
      ["recall", file, "--grep", "x", "--json"],
      ["recall", file, "--no-cache", "shard"],
      // A pattern: the table cannot answer it, the one-shot search hands it back and the ledger is read.
      ["recall", file, "/shard.*fail/"],
      ["recall", file, "shard", "--regex", "--json"],
      ["recall", file, "--page-size", "x", "shard"],
      // Across a history (the recall-sessions bundle), kept under the test's own folder.
      ["recall", "--sessions", sessions, "shard", "failed", "--cache-dir", dir],
      ["recall", "--sessions", sessions, "build", "--json", "--page-size", "2", "--cache-dir", dir],
      ["recall", "--sessions", sessions, "test", "--page", "999", "--cache-dir", dir],
      ["recall", "--sessions", sessions, "--expand", "3", "--in", "s.jsonl", "--cache-dir", dir],
      ["recall", "--sessions", sessions, "--cache-dir", dir],
    ];
    for (const args of cases) {
      // In process (commander) first: the cache it writes is the one the binary's run then reads.
      const expected = await cli(args);
      const p = spawnSync(process.execPath, [mainJs, ...args], { encoding: "utf8" });
      expect({ stdout: p.stdout, stderr: p.stderr, exit: p.status }, args.join(" ")).toEqual({ stdout: expected.stdout, stderr: expected.stderr, exit: expected.exit });
    }
  });
});
