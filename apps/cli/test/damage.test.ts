// Damaged sessions through the CLI: commands act on Pi's view, recall reaches what Pi drops, inspect says
// what each damaged line does, and one exit-code policy (result commands 0, check commands 1).
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SessionManager } from "@earendil-works/pi-coding-agent";
import { describeShared, sharedFixture, tempDir } from "@context-fold/test-support";
import { afterEach, describe, expect, it } from "vitest";
import { readSession } from "@context-fold/ledger-reader";
import { CliError } from "../src/output.js";
import { refuseCutOffPiBranch } from "../src/session-input.js";
import { cli } from "./support/run-cli.js";

afterEach(() => {
  process.exitCode = 0;
});

let clock = 1_795_000_000_000;
const t = (): number => (clock += 1000);
const usage = { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 15, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
type Message = Parameters<SessionManager["appendMessage"]>[0];
const user = (text: string): Message => ({ role: "user", content: text, timestamp: t() }) as Message;
const reply = (text: string, id: string): Message =>
  ({ role: "assistant", content: [{ type: "text", text }], api: "anthropic-messages", provider: "anthropic", model: "m", usage, stopReason: "stop", timestamp: t(), responseId: id }) as unknown as Message;

/** A clean v3 session written by Pi (six turns), as lines. */
function cleanLines(dir: string): string[] {
  const sm = SessionManager.create("/project", dir);
  sm.appendMessage(user("founding request: build the zebra parser"));
  sm.appendMessage(reply("plan for the zebra parser", "resp_0"));
  for (let i = 1; i <= 5; i++) {
    sm.appendMessage(user(`turn ${String(i)}: keep going with step ${String(i)}`));
    sm.appendMessage(reply(`done with step ${String(i)} of the quokka work`, `resp_${String(i)}`));
  }
  const file = sm.getSessionFile();
  if (file === undefined) throw new Error("Pi wrote no file");
  return readFileSync(file, "utf8").split("\n").filter((l) => l !== "");
}

function write(dir: string, name: string, lines: string[]): string {
  const file = join(dir, name);
  writeFileSync(file, `${lines.join("\n")}\n`);
  return file;
}

/** Lines 4 and 5 (1-based; a user and its reply) glued: a torn write in the middle of the session. */
function tornMiddle(dir: string): { file: string; piBranch: Set<string> } {
  const lines = cleanLines(dir);
  const damaged = [...lines.slice(0, 3), `${lines[3] ?? ""}${lines[4] ?? ""}`, ...lines.slice(5)];
  const file = write(dir, "torn-middle.jsonl", damaged);
  const copy = write(dir, "pi-copy.jsonl", damaged);
  const piBranch = new Set(SessionManager.open(copy, dir).getBranch().map((e) => e.id));
  return { file, piBranch };
}

/** Line 4 (a user message) broken by the real masking damage (a lone backslash before `*`). */
function brokenEscape(dir: string): string {
  const lines = cleanLines(dir);
  const broken = (lines[3] ?? "").replace("turn 1: keep going", "turn 1: mail \\***@***.*** and keep going");
  return write(dir, "broken-escape.jsonl", [...lines.slice(0, 3), broken, ...lines.slice(4)]);
}

describe("compact acts on Pi's view", () => {
  it("a torn line in the middle: the cut is on Pi's branch, the damage and the orphaned founding request are named", async () => {
    const dir = tempDir();
    const { file, piBranch } = tornMiddle(dir);
    const { stdout, stderr, exit } = await cli(["compact", file, "--json", "--keep-tail", "1"]);
    expect(exit).toBe(0);
    const result = JSON.parse(stdout) as { firstKeptEntryId: string };
    expect(piBranch.has(result.firstKeptEntryId)).toBe(true);
    expect(stderr).toMatch(/torn-middle\.jsonl:4 \(byte \d+\): 2 JSON objects glued/);
    expect(stderr).toMatch(/cuts Pi's branch short; compact's founding request/);
    expect(stderr).toContain('the session\'s founding request is #0 "founding request: build the zebra parser"');
  });

  it("a compaction glued to the last line (the real v1 case): Pi's context is compacted, not 'nothing to compact'", async () => {
    const dir = tempDir();
    const lines = cleanLines(dir);
    const compaction = JSON.stringify({ type: "compaction", id: "c0ffee00", parentId: JSON.parse(lines.at(-1) ?? "{}").id as string, timestamp: "2026-11-01T00:00:00.000Z", summary: "old", firstKeptEntryId: "ffffffff", tokensBefore: 5 });
    const file = write(dir, "glued-compaction.jsonl", [...lines.slice(0, -1), `${lines.at(-1) ?? ""}${compaction}`]);
    const { stdout, exit } = await cli(["compact", file, "--json", "--keep-tail", "1"]);
    expect(exit).toBe(0);
    expect((JSON.parse(stdout) as { stats: { summarizedMessages: number } }).stats.summarizedMessages).toBeGreaterThan(0);
    const inventory = await cli(["inventory", file, "--json"]);
    expect(inventory.exit).toBe(0);
  });
});

describe("a cut outside Pi's branch is refused, as the extension refuses it", () => {
  it("a recovered entry or another branch's entry as firstKeptEntryId: CUT_MISMATCH; Pi's own entries pass", async () => {
    const dir = tempDir();
    const { file, piBranch } = tornMiddle(dir);
    const session = await readSession(file);
    for (const id of piBranch) expect(() => refuseCutOffPiBranch(session, id)).not.toThrow();
    const recovered = session.entries.find((e) => e.recovered);
    expect(recovered).toBeDefined();
    let error: unknown;
    try {
      refuseCutOffPiBranch(session, recovered?.id ?? "");
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).code).toBe("CUT_MISMATCH");
    expect((error as CliError).message).toContain("recovered from the torn line 4");
    // Before the break: in the file, not on Pi's branch.
    expect(() => refuseCutOffPiBranch(session, session.entries[0]?.id ?? "")).toThrow(/not on the branch Pi loads/);
  });
});

describe("inspect links each damaged line to its consequence", () => {
  it("a torn line in the middle: dropped by Pi, orphans the next entry, cuts Pi's branch short", async () => {
    const dir = tempDir();
    const { file, piBranch } = tornMiddle(dir);
    const { stdout, exit } = await cli(["inspect", file, "--json"]);
    expect(exit).toBe(1);
    const doc = JSON.parse(stdout) as { lineage: { length: number }; damaged: { line: number; consequences: { kind: string; entryId?: string; entriesBefore?: number }[] }[] };
    expect(doc.lineage.length).toBe(piBranch.size);
    const kinds = doc.damaged[0]?.consequences.map((c) => c.kind);
    expect(kinds).toEqual(["dropped-by-pi", "orphaned-entry", "branch-cut-short"]);
    // Lines 2 and 3, and the two objects of line 4.
    expect(doc.damaged[0]?.consequences[2]?.entriesBefore).toBe(4);
    const text = await cli(["inspect", file]);
    expect(text.stdout).toMatch(/damaged line 4 .*\n {2}→ Pi drops 2 entries recovered here\n {2}→ orphans entry [0-9a-f]{8} \(line 5\)/);
  });

  it("a broken escape: the salvaged id and parentId link the line to the entry it orphans", async () => {
    const dir = tempDir();
    const file = brokenEscape(dir);
    const { stdout, exit } = await cli(["inspect", file]);
    expect(exit).toBe(1);
    expect(stdout).toMatch(/salvaged: message, id [0-9a-f]{8}, parent [0-9a-f]{8}, user; \d+ characters of text/);
    expect(stdout).toMatch(/→ orphans entry [0-9a-f]{8} \(line 5\): Pi starts a new root there/);
    expect(stdout).toMatch(/→ Pi's active branch starts at [0-9a-f]{8}: 2 entries before the break/);
    const handoff = await cli(["handoff", file, "--out", join(dir, "handoff.md")]);
    expect(handoff.exit).toBe(0);
    expect(handoff.stderr).toMatch(/handoff's founding request \(#\d+ "turn 2: keep going/);
    expect(handoff.stderr).toContain('founding request is #0 "founding request: build the zebra parser"');
  });
});

describe("recall reaches what Pi drops", () => {
  it("recovered torn-line objects and the salvaged text of a broken line are found", async () => {
    const dir = tempDir();
    const { file } = tornMiddle(dir);
    const torn = await cli(["recall", file, "step", "1", "--no-cache", "--json"]);
    expect(torn.exit).toBe(0);
    expect(torn.stdout).toContain("turn 1: keep going with step 1");
    const broken = brokenEscape(dir);
    const found = await cli(["recall", broken, "mail", "--no-cache"]);
    expect(found.exit).toBe(0);
    expect(found.stdout).toContain("line 4 (salvaged) user: turn 1: mail ***@***.*** and keep going");
    const json = await cli(["recall", broken, "mail", "--no-cache", "--json"]);
    expect((JSON.parse(json.stdout) as { salvaged: { line: number }[] }).salvaged.map((s) => s.line)).toEqual([4]);
  });
});

describe("one damage policy: result commands exit 0 and name the damage, check commands exit 1", () => {
  it("on a torn line in the middle", async () => {
    const dir = tempDir();
    const { file } = tornMiddle(dir);
    const anchor = "r:none";
    const results: [string, string[]][] = [
      ["index", ["index", file, "--out", join(dir, "seed.jsonl")]],
      ["compact", ["compact", file, "--keep-tail", "1"]],
      ["facts", ["facts", file]],
      ["artifacts", ["artifacts", file]],
      ["recall", ["recall", file, "zebra", "--no-cache"]],
      ["handoff", ["handoff", file, "--out", join(dir, "h.md")]],
      ["inventory", ["inventory", file]],
    ];
    for (const [name, args] of results) {
      const r = await cli(args);
      expect([name, r.exit]).toEqual([name, 0]);
      expect([name, r.stderr]).toEqual([name, expect.stringMatching(/torn-middle\.jsonl:4 \(byte \d+\): 2 JSON objects glued/)]);
    }
    // resolve exits 1 only for its own finding (a missing anchor), never for the damage.
    const resolved = await cli(["resolve", file, anchor]);
    expect(resolved.stderr).toMatch(/torn-middle\.jsonl:4/);
    expect((await cli(["inspect", file])).exit).toBe(1);
    const verify = await cli(["verify", join(dir, "seed.jsonl"), "--session", file]);
    expect(verify.exit).toBe(1);
    expect(verify.stderr).toMatch(/torn-middle\.jsonl:4/);
  });
});

describeShared("damaged real fixtures", () => {
  it("pinion05 03: line 31 (masking damage) orphans line 32; its salvaged text is found by recall", async () => {
    const file = sharedFixture("real", "pinion05-act-3ae80f5__03-raddit-dashboard-pr.jsonl");
    const { stdout, exit } = await cli(["inspect", file, "--json"]);
    expect(exit).toBe(1);
    const doc = JSON.parse(stdout) as { damaged: { line: number; consequences: { kind: string; line?: number }[] }[] };
    const line31 = doc.damaged.find((d) => d.line === 31);
    expect(line31?.consequences).toContainEqual(expect.objectContaining({ kind: "orphaned-entry", line: 32 }));
    expect(line31?.consequences).toContainEqual(expect.objectContaining({ kind: "branch-cut-short" }));
    const found = await cli(["recall", file, "/\\*\\*\\*@\\*\\*\\*/", "--no-cache", "--json"]);
    expect(found.exit).toBe(0);
    expect((JSON.parse(found.stdout) as { salvaged?: { line: number }[] }).salvaged?.map((s) => s.line)).toContain(31);
  });

  it("pi-mono-history: both glued objects of line 440 are found by recall under the default scope", async () => {
    const file = sharedFixture("sessions", "pi-mono-history__session.jsonl");
    const torn = readFileSync(file, "utf8").split("\n")[439] ?? "";
    const seam = torn.indexOf('}{"type"') + 1;
    const objects = [torn.slice(0, seam), torn.slice(seam)];
    for (const [k, json] of objects.entries()) {
      // The first is cut short (no closing brackets): read its first text the way the file holds it.
      const text = /"(?:thinking|text)":"([^"\\]*)"/.exec(json)?.[1] ?? "";
      expect(text.length).toBeGreaterThan(0);
      const words = text.split(/\s+/).filter((w) => /^[a-z]{4,}$/i.test(w));
      const query = words.length >= 3 ? words.slice(0, 6) : [`/^${text}$/`];
      const { stdout, exit } = await cli(["recall", file, ...query, "--no-cache", "--json", "--page-size", "500"]);
      expect(exit).toBe(0);
      const doc = JSON.parse(stdout) as { hits: { entryId: string }[] };
      expect(doc.hits.map((h) => h.entryId)).toContain(k === 0 ? "v1-000440" : "v1-000440-2");
    }
  });
});

describe("--fragment: inspect, facts and recall read a headerless file on request", () => {
  it("without the flag every command refuses it as before; with it the id is fragment-<sha256 prefix> and caches go under it", async () => {
    const dir = tempDir();
    const lines = cleanLines(dir);
    const file = write(dir, "fragment.jsonl", lines.slice(3));
    const id = `fragment-${createHash("sha256").update(readFileSync(file)).digest("hex").slice(0, 12)}`;
    for (const args of [["inspect", file], ["facts", file], ["recall", file, "quokka"], ["index", file], ["compact", file], ["handoff", file]]) {
      const r = await cli(args);
      expect([args[0], r.exit]).toEqual([args[0], 2]);
      expect(r.stderr).toContain("not the {\"type\":\"session\"} header: a fragment of a Pi session?");
    }
    const inspect = await cli(["inspect", file, "--fragment", "--json"]);
    expect(inspect.exit).toBe(1);
    expect(JSON.parse(inspect.stdout)).toMatchObject({ sessionId: id, fragment: true, version: 3 });
    expect(inspect.stderr).toContain(`fragment.jsonl:1 (byte 0): no session header (a fragment of a session; Pi refuses it); read as ${id}`);
    const facts = await cli(["facts", file, "--fragment", "--json"]);
    expect(facts.exit).toBe(0);
    const recall = await cli(["recall", file, "quokka", "step", "3", "--fragment"]);
    expect(recall.exit).toBe(0);
    expect(recall.stdout).toContain("done with step 3 of the quokka work");
    expect(existsSync(join(dir, "context-fold", id))).toBe(true);
    // index, compact and handoff take no --fragment: they act for Pi, which refuses the file.
    for (const command of ["index", "compact", "handoff"]) expect((await cli([command, file, "--fragment"])).exit).not.toBe(0);
  });
});

describeShared("the real headerless fragment", () => {
  it("pinion05 01: read with --fragment; its text (and line 60's salvaged text) is searchable", async () => {
    const dir = tempDir();
    const file = join(dir, "noheader.jsonl");
    copyFileSync(sharedFixture("real", "pinion05-act-3ae80f5__01-youtube-noheader.jsonl"), file);
    const inspect = await cli(["inspect", file, "--fragment", "--json"]);
    expect(inspect.exit).toBe(1);
    const doc = JSON.parse(inspect.stdout) as { sessionId: string; entries: number; damaged: { line: number; kind: string }[] };
    expect(doc.sessionId).toMatch(/^fragment-[0-9a-f]{12}$/);
    expect(doc.entries).toBeGreaterThan(100);
    expect(doc.damaged.map((d) => [d.line, d.kind])).toContainEqual([60, "malformed"]);
    const recall = await cli(["recall", file, "youtube", "transcript", "--fragment", "--json"]);
    expect(recall.exit).toBe(0);
    expect((JSON.parse(recall.stdout) as { total: number }).total).toBeGreaterThan(0);
  });
});
