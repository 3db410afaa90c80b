// The README's first command: every context-fold job, run through the real `context-fold` CLI, on an
// example session that Pi's own SessionManager writes deterministically (seed 7), and the gardener
// against the local Hindsight-compatible bank seeded with example memories.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { HindsightClient, generateExampleBank } from "@context-fold/memory-gardener-client";
import { seedIndexPath } from "@context-fold/seed-index-format";
import { generateSession, type Manifest } from "@context-fold/session-gen";

const root = resolve(import.meta.dirname, "../../..");
const cli = join(root, "apps", "cli", "dist", "main.js");
const work = join(root, ".demo");
const NOW = "2026-03-02T12:00:00.000Z";
const color = process.stdout.isTTY && !process.env["NO_COLOR"];
const bold = (s: string) => (color ? `\u001b[1m${s}\u001b[22m` : s);
const dim = (s: string) => (color ? `\u001b[2m${s}\u001b[22m` : s);

function heading(step: string, what: string): void {
  process.stdout.write(`\n${bold(`━━ ${step} ━━ ${what}`)}\n`);
}

/** Run the CLI, echo the command line, print its output (optionally only the first lines). */
function context(args: string[], options: { maxLines?: number; allowExit?: number[] } = {}): string {
  const shown = args.map((a) => (a.startsWith(work) ? a.replace(work, ".demo") : a));
  process.stdout.write(`${dim(`$ context-fold ${shown.join(" ")}`)}\n`);
  const result = spawnSync(process.execPath, [cli, ...args], { encoding: "utf8", maxBuffer: 256 << 20, env: { ...process.env, FORCE_COLOR: color ? "1" : "0" } });
  const allowed = options.allowExit ?? [0];
  if (result.status === null || !allowed.includes(result.status)) {
    process.stderr.write(result.stderr);
    throw new Error(`context-fold ${args[0]} exited with ${result.status}`);
  }
  const lines = result.stdout.trimEnd().split("\n");
  const max = options.maxLines ?? Infinity;
  process.stdout.write(`${lines.slice(0, max).join("\n")}\n`);
  if (lines.length > max) process.stdout.write(dim(`… (${lines.length - max} more lines)\n`));
  return result.stdout;
}

function json<T>(args: string[]): T {
  const result = spawnSync(process.execPath, [cli, ...args, "--json"], { encoding: "utf8", maxBuffer: 256 << 20 });
  if (result.status !== 0 && result.status !== 1) throw new Error(`context-fold ${args[0]} --json exited with ${result.status}: ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}

async function startBank(dataDir: string): Promise<{ url: string; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, [cli, "hindsight", "serve", "--port", "0", "--data", dataDir], { stdio: ["ignore", "pipe", "inherit"] });
  const lines = createInterface({ input: child.stdout });
  const url = await new Promise<string>((resolveUrl, reject) => {
    child.once("exit", (code) => reject(new Error(`hindsight serve exited early (${code})`)));
    lines.on("line", (line) => {
      const match = /http:\/\/127\.0\.0\.1:\d+/.exec(line);
      if (match) resolveUrl(match[0]);
    });
  });
  return {
    url,
    stop: () =>
      new Promise<void>((done) => {
        child.removeAllListeners("exit");
        child.once("exit", () => done());
        child.kill("SIGTERM");
      }),
  };
}

async function main(): Promise<void> {
  const started = performance.now();
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  if (!existsSync(cli)) throw new Error(`${cli} is missing: run the build first (pnpm demo does).`);

  heading("0", "an example session, written by Pi's own SessionManager (deterministic, seed 7)");
  const session = join(work, "example-session.jsonl");
  const manifest: Manifest = await generateSession(session, { seed: 7, size: 900_000, startTime: "2026-03-01T09:00:00.000Z" });
  process.stdout.write(
    `${manifest.entries} entries, ${(manifest.bytes / 1e6).toFixed(2)} MB, ${manifest.commits.length} commits, ` +
      `${manifest.compactions.length} compactions, ${manifest.branchPoints.length} branch points, ${manifest.needles.length} planted needles\n`,
  );

  heading("1", "inspect: read the ledger exactly (v1/v2/v3, damage reported, never written)");
  context(["inspect", session]);

  heading("2", "index + verify: append a seed-index v2 record, then re-locate every span by sha256");
  const record = json<{ seq: number; spans: { code: string; blockId: string; tool?: string }[] }>(["index", session, "--trigger", "compact", "--now", NOW]);
  process.stdout.write(`appended record seq ${record.seq} with ${record.spans.length} spans\n`);
  const seedIndex = seedIndexPath(session, manifest.sessionId);
  context(["verify", seedIndex, "--session", session]);

  heading("3", "compact: the structured summary (no model call), merged with earlier compactions");
  context(["compact", session, "--now", NOW], { maxLines: 70 });

  heading("4", "recall: find a planted needle, then expand the hit (verified against the ledger)");
  const needle = manifest.needles.find((n) => n.kind === "identifier" && n.onLineage) ?? manifest.needles[0];
  if (needle) {
    const found = json<{ hits: { index: number }[] }>(["recall", session, needle.value]);
    context(["recall", session, needle.value], { maxLines: 24 });
    const first = found.hits[0];
    if (first) context(["recall", session, "--expand", String(first.index)], { maxLines: 12 });
  }
  const span = record.spans.find((s) => s.tool === "bash") ?? record.spans[0];
  if (span) {
    process.stdout.write(`\nspan recall by fold code ${span.code} (${span.blockId}):\n`);
    context(["recall", session, "--code", span.code], { maxLines: 12 });
  }

  heading("5", "durable artifacts: founding request and corrections verbatim, the re-injection digest");
  const compacted = json<{ digest: string }>(["compact", session, "--now", NOW]);
  process.stdout.write(`${compacted.digest.split("\n").slice(0, 30).join("\n")}\n`);

  heading("6", "garden (report-only) a local Hindsight-compatible bank seeded with example memories");
  const bank = await startBank(join(work, "bank"));
  try {
    const client = new HindsightClient({ baseUrl: bank.url });
    const example = generateExampleBank(7, 600, NOW);
    await client.createBank("demo");
    for (let i = 0; i < example.items.length; i += 100) await client.retain("demo", example.items.slice(i, i + 100));
    process.stdout.write(`${bank.url}: retained ${example.items.length} example memories\n`);
    // Exit 1 means "findings": contradictions await human review.
    context(["garden", "--url", bank.url, "--bank", "demo", "--now", NOW, "--out", join(work, "garden")], { maxLines: 60, allowExit: [0, 1] });
  } finally {
    await bank.stop();
  }

  process.stdout.write(`\n${bold("done")} in ${((performance.now() - started) / 1000).toFixed(1)} s — files in .demo/\n`);
}

await main();
