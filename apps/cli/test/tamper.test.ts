// Verified means verified against the first hash: after a same-length edit, a length-changing edit and a
// swapped line inside a folded block, `verify`, `recall --code`, `recall --expand` and search each report
// it. Always on a copy of a generated session in a temp dir (the hashes were recorded before the edit).
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readSession, type Block } from "@context-fold/ledger-reader";
import { seedIndexPath } from "@context-fold/seed-index-format";
import { generateSession } from "@context-fold/session-gen";
import { tempDir } from "@context-fold/test-support";
import { beforeAll, describe, expect, it } from "vitest";
import { cli } from "./support/run-cli.js";

interface Span {
  code: string;
  blockId: string;
}

let base: string;
let target: Block;
let code: string;
let word: string;

beforeAll(async () => {
  base = tempDir("cf-tamper-");
  const file = join(base, "session.jsonl");
  await generateSession(file, { seed: 23, turns: 40 });
  // Record the first hashes: a seed-index record (spans with sha256) and the recall block table.
  expect((await cli(["index", file, "--json"])).exit).toBe(0);
  // The default cache sits beside the seed index, so a copy of that folder carries the block table.
  expect((await cli(["recall", file, "anything"])).exit).toBe(0);
  const session = await readSession(file);
  const record = JSON.parse(readFileSync(seedIndexPath(file, session.header.id), "utf8").trim().split("\n").at(-1) ?? "{}") as { spans: Span[] };
  // A folded tool result with several lines and a distinctive word, away from the file's edges.
  const bytes = readFileSync(file);
  const candidate = session.blocks.find(
    (b) => b.kind === "toolResult" && b.anchor !== undefined && record.spans.some((s) => s.blockId === b.anchor) && b.text.split("\n").length >= 3 && b.text.split("\n")[0] !== b.text.split("\n")[1] && /[a-z]{7,}/.test(b.text) && b.byteOffset > 1000 && b.byteOffset + b.byteLength < bytes.length - 1000,
  );
  if (candidate === undefined) throw new Error("no folded multi-line tool result in the generated session");
  target = candidate;
  code = record.spans.find((s) => s.blockId === target.anchor)?.code ?? "";
  word = /[a-z]{7,}/.exec(target.text)?.[0] ?? "";
});

/** A copy of the session, its seed index and its cache, with the target block's text changed by `edit`. */
function tamperedCopy(name: string, edit: (text: string) => string): string {
  const dir = join(base, name);
  cpSync(join(base, "session.jsonl"), join(dir, "session.jsonl"));
  cpSync(join(base, "context-fold"), join(dir, "context-fold"), { recursive: true });
  const file = join(dir, "session.jsonl");
  const bytes = readFileSync(file);
  const line = bytes.subarray(target.byteOffset, target.byteOffset + target.byteLength).toString("utf8");
  const escaped = JSON.stringify(target.text).slice(1, -1);
  expect(line).toContain(escaped);
  const changed = JSON.stringify(edit(target.text)).slice(1, -1);
  writeFileSync(file, Buffer.concat([bytes.subarray(0, target.byteOffset), Buffer.from(line.replace(escaped, changed), "utf8"), bytes.subarray(target.byteOffset + target.byteLength)]));
  return file;
}

const edits: [string, (text: string) => string, boolean][] = [
  ["same-length edit", (t) => t.replace(/[a-z]{7,}/, (w) => w.toUpperCase()), true],
  ["length-changing edit", (t) => t.replace(/[a-z]{7,}/, (w) => `${w} (and more)`), true],
  [
    "swapped line",
    (t) => {
      const lines = t.split("\n");
      [lines[0], lines[1]] = [lines[1] as string, lines[0] as string];
      return lines.join("\n");
    },
    false,
  ],
];

describe("tampered text is never certified", () => {
  it("the untouched copy verifies everywhere", async () => {
    const file = tamperedCopy("untouched", (t) => t);
    const session = await readSession(file);
    const verified = await cli(["verify", seedIndexPath(file, session.header.id), "--session", file, "--json"]);
    expect(verified.exit, verified.stderr).toBe(0);
    const byCode = await cli(["recall", file, "--code", code, "--json"]);
    expect(JSON.parse(byCode.stdout).spans[0]).toMatchObject({ verified: true, verifiedAgainst: "seed-index" });
    const expanded = await cli(["recall", file, "--expand", String(target.index), "--json"]);
    expect(JSON.parse(expanded.stdout).entries[0]).toMatchObject({ verified: true, verifiedAgainst: "seed-index" });
    const searched = await cli(["recall", file, word, "--scope", "all", "--json"]);
    expect(searched.exit).toBe(0);
    expect(searched.stdout).not.toContain('"changed"');
  });

  for (const [name, edit, keepsWord] of edits) {
    it(`${name}: verify, --code, --expand and search each report it`, async () => {
      const file = tamperedCopy(name.replace(/ /g, "-"), edit);
      const session = await readSession(file);
      const block = session.blocks.find((b) => b.anchor === target.anchor) as Block;
      expect(block.text).not.toBe(target.text);
  
      const verified = await cli(["verify", seedIndexPath(file, session.header.id), "--session", file, "--json"]);
      expect(verified.exit, verified.stdout + verified.stderr).toBe(1);
      expect(JSON.stringify(JSON.parse(verified.stdout).mismatched)).toContain(target.anchor as string);

      const byCode = await cli(["recall", file, "--code", code, "--json"]);
      expect(byCode.exit, byCode.stdout).toBe(1);
      expect(JSON.parse(byCode.stdout).spans[0]).toMatchObject({ verified: false, verifiedAgainst: "seed-index", status: "mismatch" });

      const expanded = await cli(["recall", file, "--expand", String(block.index), "--json"]);
      expect(expanded.exit, expanded.stdout).toBe(1);
      expect(JSON.parse(expanded.stdout).entries[0]).toMatchObject({ index: block.index, text: block.text, verified: false, verifiedAgainst: "seed-index" });

      const resolved = await cli(["resolve", file, target.anchor as string, "--json"]);
      expect(resolved.exit, resolved.stdout + resolved.stderr).toBe(1);
      expect(JSON.parse(resolved.stdout)).toMatchObject({ verified: false, verifiedAgainst: "seed-index" });

      // Search finds the block by a word it still holds and marks it as changed.
      const query = keepsWord ? word : (target.text.split("\n")[1] ?? "").split(/\W+/).filter((w) => w.length > 3).slice(0, 3).join(" ");
      const searched = await cli(["recall", file, query, "--scope", "all", "--page-size", "200", "--json"]);
      expect(searched.exit, searched.stderr).toBe(1);
      const hit = (JSON.parse(searched.stdout) as { hits: { index: number; changed?: boolean; verifiedAgainst?: string }[] }).hits.find((h) => h.index === block.index);
      expect(hit).toMatchObject({ changed: true });
      expect(searched.stderr).toContain(`#${String(block.index)}: its text in the ledger changed since it was first indexed`);
    });
  }
});

describe("a block no seed-index span covers", () => {
  it("is checked against the block table's first hash: a same-length edit of a user message is reported by --expand", async () => {
    const original = await readSession(join(base, "session.jsonl"));
    const user = original.blocks.find((b) => b.kind === "user" && b.anchor === undefined && /[a-z]{6,}/.test(b.text) && b.byteOffset > 1000) as Block;
    expect(user).toBeDefined();
    const saved = target;
    target = user;
    try {
      const file = tamperedCopy("user-message", (t) => t.replace(/[a-z]{6,}/, (w) => w.toUpperCase()));
      const expanded = await cli(["recall", file, "--expand", String(user.index), "--json"]);
      expect(expanded.exit).toBe(1);
      expect(JSON.parse(expanded.stdout).entries[0]).toMatchObject({ verified: false, verifiedAgainst: "block-table" });
      // Reading it again (the table is rewritten for the new bytes) never turns the first hash into the new one.
      const again = await cli(["recall", file, "--expand", String(user.index), "--json"]);
      expect(JSON.parse(again.stdout).entries[0]).toMatchObject({ verified: false, verifiedAgainst: "block-table" });
    } finally {
      target = saved;
    }
  });
});
