// 8 processes append 1,000 records each to one file at the same time, each seq assigned under the append
// lock from the file's tail, beside real CLI `index` runs: every line whole, every seq distinct, every
// record in the current view, no writer timing out.
import { spawn } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { tempDir } from "@context-fold/test-support";
import { currentView, HARNESS, nextSeqFromTail, readSeedIndexFile } from "@context-fold/seed-index-format";
import { generateSession } from "@context-fold/session-gen";
import { describe, expect, it } from "vitest";
import { packageDir } from "./vectors.js";

// The child imports the package source under Node 22's type stripping; this hook maps "./x.js" to "./x.ts".
const HOOK = `
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
export async function resolve(specifier, context, next) {
  if (specifier.startsWith(".") && specifier.endsWith(".js") && context.parentURL?.endsWith(".ts")) {
    const url = new URL(specifier.slice(0, -3) + ".ts", context.parentURL);
    if (existsSync(fileURLToPath(url))) return next(url.href, context);
  }
  return next(specifier, context);
}`;

function childScript(entry: string): string {
  return `
import { register } from "node:module";
register("data:text/javascript," + encodeURIComponent(${JSON.stringify(HOOK)}));
const { appendNextRecord, codeFor, HARNESS } = await import(${JSON.stringify(entry)});
const [file, worker, count, startAt] = process.argv.slice(2);
while (Date.now() < Number(startAt)) await new Promise((r) => setTimeout(r, 1));
for (let i = 0; i < Number(count); i++) {
  const blockId = "r:w" + worker + "|call_" + i;
  await appendNextRecord(file, (seq) => ({
    v: 2, kind: "fold-index", harness: HARNESS, session: "s", seq,
    at: "2026-07-28T21:14:03.000Z", trigger: "threshold", files: ["src/" + "x".repeat(i % 300) + ".ts"], commands: [],
    errors: [], identifiers: ["w" + worker], userMessages: [],
    spans: [{ blockId, code: codeFor(blockId), turn: 1, log: { bytes: i, lines: 1 } }],
  }));
}
`;
}

const cliMain = join(packageDir, "..", "..", "apps", "cli", "dist", "main.js");

function spawnAndWait(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("close", (code) => resolve({ code, stderr }));
  });
}

describe("concurrent appends", () => {
  it("8 processes × 1,000 records and real CLI index runs: all intact, distinct seqs, all in the current view", async () => {
    const dir = tempDir("sif-conc-");
    const script = join(dir, "child.mjs");
    writeFileSync(script, childScript(pathToFileURL(join(packageDir, "src", "index.ts")).href));
    const file = join(dir, "nested", "seed-index.jsonl");
    const session = join(dir, "session.jsonl");
    await generateSession(session, { seed: 5, turns: 12 });
    const haveCli = existsSync(cliMain);
    if (!haveCli) console.log(`concurrent-append: ${cliMain} is not built; the CLI index runs are left out (run the build)`);
    const startAt = Date.now() + 1500;
    const runs = [
      ...Array.from({ length: 8 }, (_, worker) => spawnAndWait(["--conditions=@context-fold/source", script, file, String(worker), "1000", String(startAt)])),
      ...(haveCli
        ? [300, 900, 1800, 2600].map(async (after) => {
            await new Promise((r) => setTimeout(r, startAt - Date.now() + after));
            return spawnAndWait([cliMain, "index", session, "--out", file, "--trigger", "cap"]);
          })
        : []),
    ];
    const results = await Promise.all(runs);
    for (const r of results) expect(r, r.stderr).toMatchObject({ code: 0 });
    const { outcomes } = await readSeedIndexFile(file);
    const total = 8000 + (haveCli ? 4 : 0);
    expect(outcomes).toHaveLength(total);
    expect(outcomes.filter((o) => o.outcome !== "record")).toEqual([]);
    const seqs = outcomes.map((o) => (o.outcome === "record" ? o.record.seq : -1));
    expect(new Set(seqs).size).toBe(total);
    // Assigned under the lock from the tail: exactly 0..total-1, in file order.
    expect(seqs).toEqual(Array.from({ length: total }, (_, i) => i));
    expect(currentView(outcomes)).toHaveLength(total);
    expect(outcomes.filter((o) => o.outcome === "record" && o.record.trigger === "cap")).toHaveLength(haveCli ? 4 : 0);
  }, 300_000);
});

describe("next seq from the tail", () => {
  it("steps back over a torn and an invalid tail to the last valid record; 0 for none", async () => {
    const dir = tempDir("sif-tail-");
    const file = join(dir, "seed-index.jsonl");
    expect(nextSeqFromTail(file)).toBe(0);
    const record = (seq: number): string =>
      JSON.stringify({ v: 2, kind: "fold-index", harness: HARNESS, session: "s", seq, at: "2026-07-28T21:14:03.000Z", trigger: "cap", files: [], commands: [], errors: [], identifiers: [], userMessages: [], spans: [] });
    writeFileSync(file, `${record(4)}\n${record(9)}\n{"not":"a record"}\n{"v":2,"kind":"fold-index"}\n{"v":2,"kind":"fold-in`);
    expect(nextSeqFromTail(file)).toBe(10);
    // A tail longer than one read chunk.
    writeFileSync(file, `${record(41)}\n${"x".repeat(200_000)}\n`);
    expect(nextSeqFromTail(file)).toBe(42);
    writeFileSync(file, "garbage\n");
    expect(nextSeqFromTail(file)).toBe(0);
  });
});
