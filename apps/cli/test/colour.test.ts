// Colour goes through Node's styleText: on for a terminal, off for a pipe, FORCE_COLOR forces it either
// way, NO_COLOR turns it off. Runs the built binary on a pipe and under a pseudo-terminal (`script -qc`),
// as a user would, with the colour variables of the environment the tests run in taken out.
import { spawnSync } from "node:child_process";
import { join, resolve } from "node:path";
import { generateSession } from "@context-fold/session-gen";
import { tempDir } from "@context-fold/test-support";
import { beforeAll, describe, expect, it } from "vitest";

const mainJs = resolve(import.meta.dirname, "../dist/main.js");
const ESC = "\u001b[";

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, "'\\''")}'`;
}

/** The test's environment without anything that decides colour, on a terminal type that has it. */
function env(extra: Record<string, string>): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...process.env, TERM: "xterm-256color" };
  // CI=true alone makes Node treat a terminal as colourless; TMUX forces 24-bit colour.
  for (const key of ["FORCE_COLOR", "NO_COLOR", "NODE_DISABLE_COLORS", "CI", "TMUX"]) delete out[key];
  return { ...out, ...extra };
}

function onPipe(args: string[], extra: Record<string, string> = {}): { stdout: string; status: number | null } {
  const r = spawnSync(process.execPath, [mainJs, ...args], { encoding: "utf8", env: env(extra) });
  return { stdout: r.stdout, status: r.status };
}

/** Under a terminal; --no-progress keeps the progress bar's cursor sequences (not colour) out of the capture. */
function onTty(args: string[], extra: Record<string, string> = {}): { stdout: string; status: number | null } {
  const command = [process.execPath, mainJs, "--no-progress", ...args].map(shellQuote).join(" ");
  const r = spawnSync("script", ["-qec", command, "/dev/null"], { encoding: "utf8", env: env(extra) });
  return { stdout: r.stdout, status: r.status };
}

/** What is left once SGR colour sequences are removed (a linear scan: no regex over the text). */
function plain(text: string): string {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    if (text.startsWith(ESC, i)) {
      const end = text.indexOf("m", i);
      if (end > 0) {
        i = end;
        continue;
      }
    }
    out += text[i];
  }
  return out;
}

describe("colour (built dist)", () => {
  const dir = tempDir("cli-colour-");
  const file = join(dir, "s.jsonl");
  const args = () => ["inventory", file, "--system-prompt-tokens", "3000", "--tools-tokens", "1000"];
  beforeAll(async () => {
    await generateSession(file, { seed: 12, turns: 40 });
  });

  it("a pipe gets plain text; FORCE_COLOR=1 colours it all the same, with the same visible text", () => {
    const bare = onPipe(args());
    expect(bare.status).toBe(0);
    expect(bare.stdout).not.toContain(ESC);
    const forced = onPipe(args(), { FORCE_COLOR: "1" });
    expect(forced.status).toBe(0);
    // The bar's first part (the floor) in cyan, the second (tool output) in yellow.
    expect(forced.stdout).toContain(`${ESC}36m█`);
    expect(forced.stdout).toContain(`${ESC}33m▓`);
    expect(plain(forced.stdout)).toBe(bare.stdout);
  });

  it("a terminal gets colour, unless NO_COLOR is set or FORCE_COLOR=0", () => {
    const tty = onTty(args());
    expect(tty.status).toBe(0);
    expect(tty.stdout).toContain(`${ESC}36m█`);
    for (const extra of [{ NO_COLOR: "1" }, { FORCE_COLOR: "0" }, { TERM: "dumb" }]) {
      const off = onTty(args(), extra);
      expect(off.status).toBe(0);
      expect(off.stdout).toContain("█");
      expect(off.stdout).not.toContain(ESC);
    }
  });

  it("--json is never coloured, even when forced", () => {
    const forced = onPipe([...args(), "--json"], { FORCE_COLOR: "3" });
    expect(forced.status).toBe(0);
    expect(forced.stdout).not.toContain(ESC);
    expect(() => JSON.parse(forced.stdout) as unknown).not.toThrow();
  });
});
