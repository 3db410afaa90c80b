// Which read a command takes: a session up to STREAM_ABOVE_BYTES is read whole (one parse), a larger one
// is streamed (shape, then the lineage). CONTEXT_FOLD_STREAM_ABOVE=0 streams every session, so each
// command's two paths are compared here end to end, through the CLI: same stdout, stderr, exit code and
// files written, on Pi-written sessions (damage and branches included) and the shared real fixtures.
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { tempDir } from "@context-fold/test-support";
import { afterEach, describe, expect, it } from "vitest";
import { STREAM_ABOVE_BYTES, streamsSession } from "../src/session-input.js";
import { cli } from "./support/run-cli.js";
import { describeStreamedComparison } from "./support/streamed-compare.js";

const NOW = "2026-07-28T21:14:03.000Z";

afterEach(() => {
  delete process.env["CONTEXT_FOLD_STREAM_ABOVE"];
});

/** Every streamed command's output (and the handoff file it writes) with the env var as given. */
async function outputs(session: string, dir: string, limit: string | undefined): Promise<string[]> {
  if (limit === undefined) delete process.env["CONTEXT_FOLD_STREAM_ABOVE"];
  else process.env["CONTEXT_FOLD_STREAM_ABOVE"] = limit;
  const handoff = join(dir, `handoff-${limit ?? "default"}.md`);
  const index = join(dir, "seed-index.jsonl");
  const runs = [
    await cli(["compact", session, "--json"]),
    await cli(["facts", session, "--json"]),
    await cli(["artifacts", session, "--json"]),
    await cli(["inventory", session, "--json"]),
    await cli(["handoff", session, "--out", handoff, "--now", NOW, "--json"]),
    await cli(["verify", index, "--session", session, "--json"]),
  ];
  const handoffText = (() => {
    try {
      return readFileSync(handoff, "utf8");
    } catch {
      return "(none)";
    }
  })();
  return [...runs.map((r) => `${String(r.exit)}\n${r.stdout.replaceAll(handoff, "<handoff>")}\n${r.stderr.replaceAll(handoff, "<handoff>")}`), handoffText];
}

async function expectSamePaths(original: string): Promise<void> {
  const dir = tempDir();
  const session = join(dir, basename(original));
  copyFileSync(original, session);
  delete process.env["CONTEXT_FOLD_STREAM_ABOVE"];
  await cli(["index", session, "--out", join(dir, "seed-index.jsonl"), "--now", NOW, "--json"]);
  expect(streamsSession(session)).toBe(false);
  process.env["CONTEXT_FOLD_STREAM_ABOVE"] = "0";
  expect(streamsSession(session)).toBe(true);
  const whole = await outputs(session, dir, undefined);
  const streamed = await outputs(session, dir, "0");
  expect(streamed).toEqual(whole);
}

describeStreamedComparison({
  what: "every streamed command's output through the CLI",
  compare: expectSamePaths,
  runs: [
    { seed: 11, turns: 50, compactions: 2 },
    { seed: 12, turns: 50, compactions: 1, damage: { tornLines: 2, malformedLines: 2, truncatedTail: true } },
  ],
  fixtures: (files) => files.filter((f) => !f.includes("migrated")),
});

describe("which read a command takes", () => {
  it("the limit: a session over it streams; the variable must be a whole number of bytes", async () => {
    const file = join(tempDir(), "small.jsonl");
    writeFileSync(file, "{}\n");
    expect(STREAM_ABOVE_BYTES).toBeGreaterThan(64 * 1024 * 1024);
    expect(streamsSession(file)).toBe(false);
    process.env["CONTEXT_FOLD_STREAM_ABOVE"] = "2";
    expect(streamsSession(file)).toBe(true);
    process.env["CONTEXT_FOLD_STREAM_ABOVE"] = "3";
    expect(streamsSession(file)).toBe(false);
    process.env["CONTEXT_FOLD_STREAM_ABOVE"] = "lots";
    expect(() => streamsSession(file)).toThrow(/CONTEXT_FOLD_STREAM_ABOVE/);
  });
});
