// The error boundary: our errors (they carry a code) exit 2 or their mapped code, in one line and as
// `{error: {code, message}}` under --json; anything else is a bug (stack on stderr, exit 70); a closed
// stdout ends quietly; a mistyped command gets a suggestion, not the whole help.
import { spawn, spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { generateSession } from "@context-fold/session-gen";
import { tempDir } from "@context-fold/test-support";
import type { Command } from "commander";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { CliError } from "../src/output.js";
import { buildProgram } from "../src/program.js";
import { cli } from "./support/run-cli.js";

afterEach(() => {
  process.exitCode = 0;
});

/** Runs `run` in-process with the given command modules, capturing both streams. */
function runWith(register: (program: Command) => void, args: string[]): Promise<{ stdout: string; stderr: string; exit: number }> {
  return cli(args, { commands: [register] });
}

describe("the error boundary", () => {
  it("a TypeError thrown by a command is a bug: its stack on stderr, exit 70", async () => {
    const r = await runWith((program) => {
      program.command("boom").action(() => {
        const value = undefined as unknown as { length: number };
        return value.length; // a real TypeError from the runtime, not one constructed by hand
      });
    }, ["boom"]);
    expect(r.exit).toBe(70);
    expect(r.stderr).toContain("TypeError");
    expect(r.stderr).toMatch(/\n\s+at /); // a stack frame
    expect(r.stderr).toContain("bug");
  });

  it("a Node ERR_* error is a bug too, though it carries a code", async () => {
    const r = await runWith((program) => {
      program.command("boom").action(() => {
        Buffer.alloc(-1);
      });
    }, ["boom"]);
    expect(r.exit).toBe(70);
    expect(r.stderr).toMatch(/\n\s+at /);
  });

  it("an error of ours keeps its exit code, tells one line without a stack, and is a JSON document under --json", async () => {
    const register = (program: Command): void => {
      program
        .command("refuse")
        .option("--json")
        .action(() => {
          throw new CliError("the thing is refused", { code: "REFUSED", exitCode: 1 });
        });
    };
    const human = await runWith(register, ["refuse"]);
    expect(human.exit).toBe(1);
    expect(human.stderr).toBe("context-fold: the thing is refused\n");
    expect(human.stdout).toBe("");
    const json = await runWith(register, ["refuse", "--json"]);
    expect(json.exit).toBe(1);
    expect(JSON.parse(json.stdout)).toEqual({ error: { code: "REFUSED", message: "the thing is refused" } });
  });

  it("a package's error with a code (a missing session) exits 2 with its code in --json, no stack", async () => {
    const missing = join(tempDir("cli-errors-"), "nope.jsonl");
    const r = await cli(["inspect", missing, "--json"]);
    expect(r.exit).toBe(2);
    const doc = JSON.parse(r.stdout) as { error: { code: string; message: string } };
    expect(typeof doc.error.code).toBe("string");
    expect(doc.error.message).toContain("nope.jsonl");
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it("a mistyped command gets the suggestion and one line, not the whole help", async () => {
    const r = await cli(["recal", "x.jsonl"]);
    expect(r.exit).toBe(2);
    expect(r.stderr).toContain("Did you mean recall?");
    expect(r.stderr).not.toContain("Commands:");
    expect(r.stderr.trim().split("\n").length).toBeLessThanOrEqual(3);
  });

  it("each subcommand's help has an EXAMPLES section; garden marks its required options", async () => {
    const program = await buildProgram();
    const missing: string[] = [];
    const visit = (command: Command, path: string): void => {
      for (const sub of command.commands) {
        const name = `${path} ${sub.name()}`.trim();
        if (sub.commands.length === 0) {
          let text = "";
          sub.configureOutput({ writeOut: (s) => (text += s), writeErr: (s) => (text += s) });
          sub.outputHelp();
          if (!text.includes("Examples:\n  $ context-fold ")) missing.push(name);
        }
        visit(sub, name);
      }
    };
    visit(program, "");
    expect(missing).toEqual([]);
    const garden = program.commands.find((c) => c.name() === "garden");
    expect(garden?.helpInformation()).toMatch(/--url <u>\s+Hindsight base URL.*\(required\)/);
    expect(garden?.helpInformation()).toMatch(/--bank <id>\s+memory bank id \(required\)/);
  });
});

const mainJs = resolve(import.meta.dirname, "../dist/main.js");
const indexJs = resolve(import.meta.dirname, "../dist/index.js");

describe("a closed stdout (built dist; `pnpm test` builds first): `recall … | head -1`", () => {
  const dir = tempDir("cli-epipe-");
  const file = join(dir, "s.jsonl");
  beforeAll(async () => {
    await generateSession(file, { seed: 23, turns: 120 });
  });
  const all = Array.from({ length: 400 }, (_, i) => String(i)).join(",");

  it("ends quietly with exit 0", () => {
    // pipefail: the exit seen is node's, not head's. The output (hundreds of KB) outlasts head.
    const p = spawnSync("bash", ["-c", `set -o pipefail; node "${mainJs}" recall "${file}" --no-cache --json --expand ${all} | head -1 >/dev/null`], { encoding: "utf8" });
    expect(p.stderr).toBe("");
    expect(p.status).toBe(0);
  });

  it("a warm one-shot search (written to the descriptor itself) ends quietly with exit 0 too", () => {
    // The first run reads the ledger and writes the cache and block table; the second is the one-shot.
    expect(spawnSync(process.execPath, [mainJs, "recall", file, "test"], { encoding: "utf8" }).status).toBe(0);
    const p = spawnSync("bash", ["-c", `set -o pipefail; node "${mainJs}" recall "${file}" test --json --page-size 1000 | head -1 >/dev/null`], { encoding: "utf8" });
    expect(p.stderr).toBe("");
    expect(p.status).toBe(0);
  });

  it("a one-shot search into a full non-blocking pipe hands the rest to process.stdout: every byte arrives", async () => {
    const args = [mainJs, "recall", file, "test", "--json", "--page-size", "1000"];
    const expected = spawnSync(process.execPath, args, { encoding: "utf8", maxBuffer: 1 << 26 });
    expect(expected.status).toBe(0);
    expect(expected.stdout.length).toBeGreaterThan(512 * 1024); // far past what a pipe and its reader buffer
    // Node makes a pipe it opens as process.stdout non-blocking (the flag belongs to the open pipe): made
    // before main.js runs, the one-shot's direct write meets EAGAIN once the pipe is full.
    const preload = join(dir, "stdout-first.mjs");
    writeFileSync(preload, "process.stdout;\n");
    const child = spawn(process.execPath, ["--import", pathToFileURL(preload).href, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const chunks: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
    // Read nothing at first, so the pipe fills while the child writes.
    child.stdout.pause();
    await new Promise((done) => setTimeout(done, 1000));
    child.stdout.resume();
    const code = await new Promise<number | null>((done) => child.once("close", (c) => done(c)));
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(Buffer.concat(chunks).toString("utf8")).toBe(expected.stdout);
  });

  it("without the guard the same pipe dies with a stack (the guard is what the test sees)", () => {
    const script = `import(${JSON.stringify(indexJs)}).then((m) => m.run(process.argv.slice(1)))`;
    const p = spawnSync("bash", ["-c", `set -o pipefail; node -e '${script}' recall "${file}" --no-cache --json --expand ${all} | head -1 >/dev/null`], { encoding: "utf8" });
    expect(p.stderr).toContain("EPIPE");
    expect(p.status).not.toBe(0);
  });
});
