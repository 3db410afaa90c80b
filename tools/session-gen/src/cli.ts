// `pnpm gen -- --size 4mb --seed 7 --out x.jsonl --manifest x.json`: writes a session and its manifest.
import { parseArgs } from "node:util";
import { generateSession } from "./generate.js";
import { writeManifest, type GenerateOptions } from "./manifest.js";
import { parseSize } from "./size.js";

const USAGE = `usage: session-gen --out <file.jsonl> [--seed N] [--size 4mb | --turns N] [--manifest <file.json>]
  [--cwd DIR] [--start-time ISO] [--compactions N] [--no-branches] [--no-context-edits] [--no-unknown-entries]
  [--torn-lines N] [--malformed-lines N] [--truncated-tail]`;

function int(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^-?\d+$/.test(value)) throw new Error(`--${name} must be an integer, got "${value}"`);
  return Number(value);
}

async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv.filter((a) => a !== "--"),
    options: {
      out: { type: "string" },
      manifest: { type: "string" },
      seed: { type: "string" },
      size: { type: "string" },
      turns: { type: "string" },
      cwd: { type: "string" },
      "start-time": { type: "string" },
      compactions: { type: "string" },
      "no-branches": { type: "boolean" },
      "no-context-edits": { type: "boolean" },
      "no-unknown-entries": { type: "boolean" },
      "torn-lines": { type: "string" },
      "malformed-lines": { type: "string" },
      "truncated-tail": { type: "boolean" },
      help: { type: "boolean" },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (values.out === undefined) throw new Error("--out is required");
  const options: GenerateOptions = { seed: int("seed", values.seed) ?? 1 };
  if (values.size !== undefined) options.size = parseSize(values.size);
  const turns = int("turns", values.turns);
  if (turns !== undefined) options.turns = turns;
  if (values.cwd !== undefined) options.cwd = values.cwd;
  if (values["start-time"] !== undefined) options.startTime = values["start-time"];
  const compactions = int("compactions", values.compactions);
  if (compactions !== undefined) options.compactions = compactions;
  if (values["no-branches"]) options.branches = false;
  if (values["no-context-edits"]) options.contextEdits = false;
  if (values["no-unknown-entries"]) options.unknownEntries = false;
  const torn = int("torn-lines", values["torn-lines"]);
  const malformed = int("malformed-lines", values["malformed-lines"]);
  if (torn !== undefined || malformed !== undefined || values["truncated-tail"]) {
    options.damage = {};
    if (torn !== undefined) options.damage.tornLines = torn;
    if (malformed !== undefined) options.damage.malformedLines = malformed;
    if (values["truncated-tail"]) options.damage.truncatedTail = true;
  }
  const started = performance.now();
  const manifest = await generateSession(values.out, options);
  if (values.manifest !== undefined) await writeManifest(values.manifest, manifest);
  const seconds = ((performance.now() - started) / 1000).toFixed(2);
  process.stderr.write(`session-gen: wrote ${values.out} (${manifest.bytes} bytes, ${manifest.entries} entries, ${manifest.needles.length} needles) in ${seconds} s\n`);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    const e = error as { message?: string; code?: string };
    process.stderr.write(`session-gen: ${e.code ? `${e.code}: ` : ""}${e.message ?? String(error)}\n${USAGE}\n`);
    process.exitCode = 2;
  },
);
