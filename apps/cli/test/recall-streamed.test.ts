// `recall`'s first search of a session the CLI streams (CONTEXT_FOLD_STREAM_ABOVE=0 here; over 112 MiB by
// default) builds its cache and block table streamed and answers from them: the same output, and the same
// cache and table bytes, as the read in memory, on generated sessions (compactions, branches, damage) and
// on a real Pi session.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { generateSession } from "@context-fold/session-gen";
import { describeShared, sharedFixture, tempDir } from "@context-fold/test-support";
import { afterEach, describe, expect, it } from "vitest";
import { cli } from "./support/run-cli.js";

afterEach(() => {
  delete process.env["CONTEXT_FOLD_STREAM_ABOVE"];
});

/** Every file under `dir` (relative path → bytes). */
function filesUnder(dir: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (const name of readdirSync(dir, { recursive: true }) as string[]) {
    const path = join(dir, name);
    try {
      out.set(name, readFileSync(path));
    } catch {
      // a folder
    }
  }
  return out;
}

async function expectSame(session: string, queries: readonly string[]): Promise<void> {
  const dir = tempDir("recall-streamed-");
  for (const query of queries) {
    const outputs: string[] = [];
    for (const limit of [undefined, "0"]) {
      if (limit === undefined) delete process.env["CONTEXT_FOLD_STREAM_ABOVE"];
      else process.env["CONTEXT_FOLD_STREAM_ABOVE"] = limit;
      // A fresh cache folder per run: the first search is the one that builds.
      const cacheDir = join(dir, `${limit ?? "whole"}-${String(outputs.length)}-${query.replace(/\W/g, "_")}`);
      const run = await cli(["recall", session, ...(query === "" ? [] : [query]), "--cache-dir", cacheDir, "--json"]);
      outputs.push(`${String(run.exit)}\n${run.stdout}`);
    }
    expect(outputs[1], query).toBe(outputs[0]);
  }
  const whole = filesUnder(join(dir, `whole-0-${(queries[0] ?? "").replace(/\W/g, "_")}`));
  const streamed = filesUnder(join(dir, `0-1-${(queries[0] ?? "").replace(/\W/g, "_")}`));
  expect([...streamed.keys()].sort()).toEqual([...whole.keys()].sort());
  for (const [name, bytes] of whole) expect(streamed.get(name)?.equals(bytes), name).toBe(true);
}

describe("recall's first search of a streamed session", () => {
  it("answers and writes what the read in memory does, on generated sessions", async () => {
    for (const options of [{ seed: 3, turns: 50, compactions: 3 }, { seed: 4, turns: 40, compactions: 2, damage: { tornLines: 2, malformedLines: 2 } }]) {
      const dir = tempDir("recall-streamed-gen-");
      const session = join(dir, "s.jsonl");
      await generateSession(session, options);
      await expectSame(session, ["refreshToken", "checksum drift", ""]);
    }
  });

});

describeShared("recall's first search of a streamed real Pi session", () => {
  it("answers and writes what the read in memory does", async () => {
    const fixture = sharedFixture("sessions", "pi-mono__large-session.migrated-v3.jsonl");
    expect(existsSync(fixture)).toBe(true);
    await expectSame(fixture, ["session", "error"]);
  });
});
