// What a demanding user found by trying to break the CLI, each now refused or told: output paths that
// are a session, tool calls that did not verify, a cache that cannot be written, damaged lines dropped
// in silence, vacuous verifies, concurrent `index` runs sharing a seq, a budget exceeded without a word,
// query words ignored, a page past the last, and text that failed its sha256 printed as if good.
import { spawn } from "node:child_process";
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { readSession } from "@context-fold/ledger-reader";
import { readSeedIndexFile, seedIndexPath, sha256Hex } from "@context-fold/seed-index-format";
import { generateSession } from "@context-fold/session-gen";
import { tempDir } from "@context-fold/test-support";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { cli } from "./support/run-cli.js";

afterEach(() => {
  process.exitCode = 0;
});

const mainJs = resolve(import.meta.dirname, "../dist/main.js");

function fileSha(path: string): string {
  return sha256Hex(readFileSync(path, "latin1"));
}

describe("CLI hardening", () => {
  const dir = tempDir("cli-hardening-");
  const file = join(dir, "s.jsonl");
  beforeAll(async () => {
    await generateSession(file, { seed: 91, turns: 40 });
  });

  it("--out that is the session file, or another Pi session, is refused and nothing is written", async () => {
    const copy = join(dir, "victim.jsonl");
    copyFileSync(file, copy);
    const before = fileSha(copy);
    const self = await cli(["handoff", copy, "--out", copy]);
    expect(self.exit).toBe(2);
    expect(self.stderr).toContain("is the session file itself");
    const index = await cli(["index", copy, "--out", copy]);
    expect(index.exit).toBe(2);
    const other = await cli(["handoff", file, "--out", copy]);
    expect(other.exit).toBe(2);
    expect(other.stderr).toContain("is a Pi session file");
    expect(fileSha(copy)).toBe(before);
  });

  it("recall --expand verifies tool calls on an untouched file, and not once a call's arguments change", async () => {
    const session = await readSession(file);
    const calls = session.blocks.filter((b) => b.kind === "toolCall").slice(0, 5);
    expect(calls.length).toBeGreaterThan(0);
    // Without a cache nothing recorded their hashes: not verified, against "none" (and not a finding).
    const none = await cli(["recall", file, "--expand", calls.map((b) => b.index).join(","), "--json", "--no-cache"]);
    expect(none.exit).toBe(0);
    expect((JSON.parse(none.stdout) as { entries: { verified: boolean; verifiedAgainst: string }[] }).entries.map((e) => [e.verified, e.verifiedAgainst])).toEqual(calls.map(() => [false, "none"]));
    const ok = await cli(["recall", file, "--expand", calls.map((b) => b.index).join(","), "--json", "--cache-dir", join(dir, "expand-cache")]);
    expect(ok.exit).toBe(0);
    const entries = (JSON.parse(ok.stdout) as { entries: { verified: boolean; verifiedAgainst: string }[] }).entries;
    expect(entries.map((e) => [e.verified, e.verifiedAgainst])).toEqual(calls.map(() => [true, "block-table"]));

    const copy = join(dir, "args-changed.jsonl");
    const bytes = readFileSync(file);
    const first = calls[0];
    if (first === undefined) throw new Error("no tool call");
    const at = bytes.indexOf('"arguments":{', first.byteOffset) + '"arguments":{'.length;
    expect(at).toBeLessThan(first.byteOffset + first.byteLength);
    // Same length: one character of the first argument's name changes case.
    bytes[at + 1] = (bytes[at + 1] ?? 0) ^ 0x20;
    writeFileSync(copy, bytes);
    // The block as read before the change, checked against the file after it.
    const { openRecall } = await import("@context-fold/recall-engine");
    const recall = await openRecall(file, { cache: false });
    const { ledgerVerifier } = await import("@context-fold/recall-engine");
    const verify = ledgerVerifier({ ...recall.session, path: copy });
    expect(verify(first)).not.toBeNull();
  });

  it("a cache that cannot be written (its folder is a file) leaves recall working in memory, with a warning", async () => {
    const notADir = join(dir, "cache-is-a-file");
    writeFileSync(notADir, "x");
    const r = await cli(["recall", file, "checksum", "--cache-dir", notADir]);
    expect(r.exit).toBe(0);
    expect(r.stderr).toContain("cannot write the recall cache");
    expect(r.stdout.length).toBeGreaterThan(0);
  });

  it("damaged lines are told on stderr, with file, line and byte offset, by the commands that read past them", async () => {
    const copy = join(dir, "damaged.jsonl");
    const lines = readFileSync(file, "utf8").split("\n");
    lines.splice(30, 0, "{this is not json");
    writeFileSync(copy, lines.join("\n"));
    const damage = (await readSession(copy)).damaged.find((d) => d.kind === "malformed");
    if (damage === undefined) throw new Error("no malformed line read");
    expect(damage.line).toBe(31);
    for (const args of [["facts", copy], ["compact", copy], ["artifacts", copy], ["inventory", copy], ["recall", copy, "checksum", "--no-cache"]]) {
      const r = await cli(args);
      expect(r.exit, args[0]).toBe(0);
      expect(r.stderr, args[0]).toContain(`${copy}:31 (byte ${String(damage.byteOffset)}): `);
    }
    // inspect lists damage in its own output, not as a warning.
    const inspect = await cli(["inspect", copy]);
    expect(inspect.stderr).not.toContain("warning");
  });

  it("verify: a session given as the seed index, or an index of another session, is exit 2 with one message", async () => {
    const asIndex = await cli(["verify", file, "--session", file]);
    expect(asIndex.exit).toBe(2);
    expect(asIndex.stderr).toContain("holds no seed-index record");
    const other = join(dir, "other.jsonl");
    await generateSession(other, { seed: 92, turns: 12 });
    const indexed = await cli(["index", other, "--json"]);
    expect(indexed.exit).toBe(0);
    const otherIndex = seedIndexPath(other, (await readSession(other)).header.id);
    const wrong = await cli(["verify", otherIndex, "--session", file]);
    expect(wrong.exit).toBe(2);
    expect(wrong.stderr).toContain("pass the session it was written for");
    expect(wrong.stdout).toBe("");
  });

  it("six `index` runs at once take six different seqs", async () => {
    const copy = join(dir, "concurrent.jsonl");
    copyFileSync(file, copy);
    const runs = Array.from({ length: 6 }, () =>
      new Promise<number>((done, fail) => {
        const child = spawn(process.execPath, [mainJs, "index", copy], { stdio: ["ignore", "ignore", "pipe"] });
        let err = "";
        child.stderr.on("data", (c: Buffer) => (err += c.toString()));
        child.once("error", fail);
        child.once("exit", (code) => (code === 0 ? done(0) : fail(new Error(`index exited ${String(code)}: ${err}`))));
      }),
    );
    await Promise.all(runs);
    const { outcomes } = await readSeedIndexFile(seedIndexPath(copy, (await readSession(copy)).header.id));
    const seqs = outcomes.map((o) => (o.outcome === "record" ? o.record.seq : -1)).sort((a, b) => a - b);
    expect(seqs).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it("compact --previous that is binary, not an earlier summary, is refused", async () => {
    const bin = join(dir, "previous.bin");
    writeFileSync(bin, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff, 0xfe]));
    const r = await cli(["compact", file, "--previous", bin]);
    expect(r.exit).toBe(2);
    expect(r.stderr).toContain("is not UTF-8 text");
    expect(r.stdout).toBe("");
    const nul = join(dir, "previous-nul.txt");
    writeFileSync(nul, "summary\u0000tail");
    expect((await cli(["compact", file, "--previous", nul])).stderr).toContain("NUL byte");
  });

  it("compact under a budget its verbatim part cannot fit says so on stderr", async () => {
    const r = await cli(["compact", file, "--budget", "256"]);
    expect(r.exit).toBe(0);
    expect(r.stderr).toMatch(/over the 256-token budget/);
  });

  it("recall: query words beside --expand/--code are refused; a page past the last is refused", async () => {
    const expand = await cli(["recall", file, "checksum", "--expand", "3", "--no-cache"]);
    expect(expand.exit).toBe(2);
    expect(expand.stderr).toContain("--expand takes no query words");
    const code = await cli(["recall", file, "checksum", "--code", "abc", "--no-cache"]);
    expect(code.exit).toBe(2);
    const past = await cli(["recall", file, "checksum", "--page", "999", "--no-cache"]);
    expect(past.exit).toBe(2);
    expect(past.stderr).toContain("--page 999");
  });

  it("resolve --sha256 that does not match withholds the text from stdout", async () => {
    const session = await readSession(file);
    const block = session.blocks.find((b) => b.anchor !== undefined && b.kind === "toolResult");
    if (block?.anchor === undefined) throw new Error("no anchored result");
    const good = await cli(["resolve", file, block.anchor, "--sha256", sha256Hex(block.text)]);
    expect(good.exit).toBe(0);
    expect(good.stdout).toBe(block.text);
    const bad = await cli(["resolve", file, block.anchor, "--sha256", "0".repeat(64)]);
    expect(bad.exit).toBe(1);
    expect(bad.stdout).toBe("");
    expect(bad.stderr).toContain("text withheld");
  });

  it("files that are not sessions are named precisely: which line, which byte, and why", async () => {
    const pkg = join(dir, "package.json");
    writeFileSync(pkg, `{\n  "name": "x",\n  "dependencies": {\n    "esbuild": "1"\n  }\n}\n"esbuild"\n`);
    const notSession = await cli(["inspect", pkg]);
    expect(notSession.exit).toBe(2);
    expect(notSession.stderr).toContain(`${pkg}:7 (byte `);
    expect(notSession.stderr).toContain("line 1 to 6 do not parse as JSON");
    expect(notSession.stderr).toContain("a JSON string");

    const bom = join(dir, "bom.jsonl");
    writeFileSync(bom, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), readFileSync(file)]));
    const withBom = await cli(["facts", bom]);
    expect(withBom.exit).toBe(2);
    expect(withBom.stderr).toContain(`${bom}:1 (byte 0): starts with a UTF-8 byte-order mark`);

    const newer = join(dir, "newer.jsonl");
    const [header = "", ...rest] = readFileSync(file, "utf8").split("\n");
    writeFileSync(newer, [JSON.stringify({ ...(JSON.parse(header) as object), version: 99 }), ...rest].join("\n"));
    const facts = await cli(["facts", newer]);
    expect(facts.exit).toBe(0);
    expect(facts.stderr).toContain("declares session format v99; read as v3");
    expect((await cli(["inspect", newer])).stdout).toContain("the header declares v99");
  });
});
