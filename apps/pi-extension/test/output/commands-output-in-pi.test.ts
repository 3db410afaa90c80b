// Every command's output outside the TUI, in a real Pi without a UI: to stdout in print mode (`pi -p`),
// to stderr in JSON mode (stdout is Pi's event stream there, and none of it lands there).
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { tempDir } from "@context-fold/test-support";
import { FOUNDING, type RuntimePi, startRuntimePi } from "../support/runtime-pi.js";

const WINDOW = 20_000;

interface Captured {
  readonly stdout: string;
  readonly stderr: string;
}

/** Run one prompt with stdout and stderr captured (restored afterwards, even on failure). */
async function capture(run: () => Promise<void>): Promise<Captured> {
  const out: string[] = [];
  const err: string[] = [];
  const originalOut = process.stdout.write.bind(process.stdout);
  const originalErr = process.stderr.write.bind(process.stderr);
  const grab = (into: string[]) =>
    ((chunk: string | Uint8Array) => {
      into.push(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8"));
      return true;
    }) as typeof process.stdout.write;
  process.stdout.write = grab(out);
  process.stderr.write = grab(err);
  try {
    await run();
  } finally {
    process.stdout.write = originalOut;
    process.stderr.write = originalErr;
  }
  return { stdout: out.join(""), stderr: err.join("") };
}

/** Each command and a piece of text its result must carry. */
const COMMANDS: readonly [string, string][] = [
  ["/context-fold", "blocks folded in"],
  ["/context-fold unfold nosuchcode", "no folded block has code nosuchcode"],
  ["/recall frobnicator", "frobnicator"],
  ["/pi-vcc-recall FROB-7f3a", "FROB-7f3a"],
  ["/context-inventory", "Context inventory at turn"],
  ["/fold-handoff Ship the frobnicator", "Handoff written:"],
];

for (const mode of ["print", "json"] as const) {
  describe(`commands in ${mode} mode`, () => {
    let pi: RuntimePi;
    beforeAll(async () => {
      pi = await startRuntimePi({ dir: tempDir(`pi-output-${mode}-`), contextWindow: WINDOW, ui: false, mode });
      await pi.session.prompt(FOUNDING);
      await pi.session.prompt("job 1");
    }, 60_000);
    afterAll(() => pi.dispose());

    for (const [command, expected] of COMMANDS) {
      test(`${command} → ${mode === "print" ? "stdout" : "stderr"}`, async () => {
        const got = await capture(() => pi.session.prompt(command));
        // Print mode: a result on stdout, a warning (the unknown code) on stderr; JSON mode: all on stderr.
        const warning = command.includes("unfold");
        const [where, other] = mode === "print" && !warning ? [got.stdout, got.stderr] : [got.stderr, got.stdout];
        expect(where).toContain(expected);
        expect(other).not.toContain(expected);
      }, 30_000);
    }

    test(`/pi-vcc (compact now) says so on ${mode === "print" ? "stdout" : "stderr"}`, async () => {
      const got = await capture(async () => {
        await pi.session.prompt("/pi-vcc");
        await pi.session.waitForIdle();
      });
      expect(mode === "print" ? got.stdout : got.stderr).toContain("compacting on request");
    }, 30_000);
  });
}
