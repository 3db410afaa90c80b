// 8 processes append 1,000 records each to one file at the same time: every line must arrive whole.
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { tempDir } from "@context-fold/test-support";
import { readSeedIndexFile } from "@context-fold/seed-index-format";
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
const { appendRecord, codeFor, HARNESS } = await import(${JSON.stringify(entry)});
const [file, worker, count, startAt] = process.argv.slice(2);
while (Date.now() < Number(startAt)) await new Promise((r) => setTimeout(r, 1));
for (let i = 0; i < Number(count); i++) {
  const blockId = "r:w" + worker + "|call_" + i;
  await appendRecord(file, {
    v: 2, kind: "fold-index", harness: HARNESS, session: "s", seq: Number(worker) * 100000 + i,
    at: "2026-07-28T21:14:03.000Z", trigger: "threshold", files: ["src/" + "x".repeat(i % 300) + ".ts"], commands: [],
    errors: [], identifiers: ["w" + worker], userMessages: [],
    spans: [{ blockId, code: codeFor(blockId), turn: 1, log: { bytes: i, lines: 1 } }],
  });
}
`;
}

describe("concurrent appends", () => {
  it("8 processes × 1,000 records leave 8,000 intact, valid lines", async () => {
    const dir = tempDir("sif-conc-");
    const script = join(dir, "child.mjs");
    writeFileSync(script, childScript(pathToFileURL(join(packageDir, "src", "index.ts")).href));
    const file = join(dir, "nested", "seed-index.jsonl");
    const startAt = Date.now() + 1500;
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, worker) =>
        new Promise<{ code: number | null; stderr: string }>((resolve) => {
          const child = spawn(process.execPath, [script, file, String(worker), "1000", String(startAt)], { stdio: ["ignore", "ignore", "pipe"] });
          let stderr = "";
          child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
          child.on("close", (code) => resolve({ code, stderr }));
        }),
      ),
    );
    for (const r of results) expect(r, r.stderr).toMatchObject({ code: 0 });
    const { outcomes } = await readSeedIndexFile(file);
    expect(outcomes).toHaveLength(8000);
    expect(outcomes.filter((o) => o.outcome !== "record")).toEqual([]);
    const seqs = new Set(outcomes.map((o) => (o.outcome === "record" ? o.record.seq : -1)));
    expect(seqs.size).toBe(8000);
  }, 120_000);
});
