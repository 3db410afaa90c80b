// The progress bar appears on a terminal (a pseudo-terminal from `script -qc`) and never on a pipe, nor
// with --no-progress. Runs the built binary, as a user would.
import { spawnSync } from "node:child_process";
import { join, resolve } from "node:path";
import { generateSession } from "@context-fold/session-gen";
import { tempDir } from "@context-fold/test-support";
import { beforeAll, describe, expect, it } from "vitest";

const mainJs = resolve(import.meta.dirname, "../dist/main.js");

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, "'\\''")}'`;
}

/** The CLI under a pseudo-terminal: stdout and stderr both land in what `script` captures. */
function underTty(args: string[]): { output: string; status: number | null } {
  const command = [process.execPath, mainJs, ...args].map(shellQuote).join(" ");
  const r = spawnSync("script", ["-qec", command, "/dev/null"], { encoding: "utf8" });
  return { output: r.stdout, status: r.status };
}

describe("progress on stderr (built dist)", () => {
  const dir = tempDir("cli-progress-");
  const file = join(dir, "s.jsonl");
  beforeAll(async () => {
    await generateSession(file, { seed: 5, turns: 60 });
  });

  it("a terminal sees a bar with bytes, a percentage and its label; the line is cleared after", () => {
    const r = underTty(["compact", file, "--budget", "4000"]);
    expect(r.status).toBe(0);
    expect(r.output).toMatch(/reading s\.jsonl \[[#.]{24}\] [\d.]+ (B|KiB|MiB)\/[\d.]+ (B|KiB|MiB) \d+%/);
    expect(r.output).toContain("\r\u001b[K");
  });

  it("recall building its index shows an indexing bar on a terminal", () => {
    const r = underTty(["recall", file, "checksum", "--no-cache"]);
    expect(r.status).toBe(0);
    expect(r.output).toMatch(/indexing s\.jsonl \[/);
  });

  it("a pipe sees no bar, and neither does a terminal with --no-progress", () => {
    const piped = spawnSync(process.execPath, [mainJs, "compact", file, "--budget", "4000"], { encoding: "utf8" });
    expect(piped.status).toBe(0);
    expect(piped.stderr).not.toContain("reading s.jsonl");
    expect(piped.stderr).not.toContain("\r");
    const quiet = underTty(["compact", file, "--budget", "4000", "--no-progress"]);
    expect(quiet.status).toBe(0);
    // The summary itself still arrives through the terminal.
    expect(quiet.output).toContain(piped.stdout.split("\n")[0] ?? "no output");
    expect(piped.stdout.length).toBeGreaterThan(0);
    expect(quiet.output).not.toContain("reading s.jsonl [");
    const quietFirst = underTty(["--no-progress", "recall", file, "checksum", "--no-cache"]);
    expect(quietFirst.output).not.toContain("indexing s.jsonl [");
  });
});
