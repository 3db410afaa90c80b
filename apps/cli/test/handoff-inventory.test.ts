// `context-fold handoff` and `context-fold inventory` on generated sessions (written by Pi's
// SessionManager) and real fixtures: atomic writes beside the seed index, pointers that recall, totals.
import { cp, readdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { sessionInventory, type ContextInventory } from "@context-fold/extractors";
import { readSession } from "@context-fold/ledger-reader";
import { handoffPath, seedIndexPath } from "@context-fold/seed-index-format";
import { generateSession } from "@context-fold/session-gen";
import type { HandoffPointer } from "@context-fold/summary-formatter";
import { describeShared, sessionFixtures, tempDir } from "@context-fold/test-support";
import { afterEach, describe, expect, it } from "vitest";
import { cli } from "./support/run-cli.js";

afterEach(() => {
  process.exitCode = 0;
});

interface HandoffJson {
  path: string;
  bytes: number;
  goal: { text: string; source: string; index?: number };
  openErrors: { text: string; resolved: boolean }[];
  pointers: HandoffPointer[];
}

function checkTotals(inv: ContextInventory): void {
  const sum = inv.items.reduce((s, i) => s + i.tokens, 0);
  expect(inv.total.conversation).toBe(sum);
  expect(inv.total.tokens).toBe(sum + inv.floor.tokens);
  expect(inv.toolOutput.tokens + inv.dormant.tokens + inv.live.tokens).toBe(sum);
  expect(inv.toolOutput.byTool.reduce((s, t) => s + t.tokens, 0)).toBe(inv.toolOutput.tokens);
}

describe("context-fold handoff", () => {
  it("writes handoff-<id>.md beside the seed index; every pointer recalls; --json names the path; repeat is identical", async () => {
    const file = join(tempDir("cli-handoff-"), "session.jsonl");
    const manifest = await generateSession(file, { seed: 31, turns: 44, compactions: 1 });
    expect((await cli(["index", file, "--trigger", "threshold"])).exit).toBe(0);
    const result = await cli(["handoff", file, "--json"]);
    expect(result.exit, result.stderr).toBe(0);
    const doc = JSON.parse(result.stdout) as HandoffJson;
    const target = handoffPath(file, manifest.sessionId);
    expect(doc.path).toBe(target);
    expect(dirname(target)).toBe(dirname(seedIndexPath(file, manifest.sessionId)));
    const text = await readFile(target, "utf8");
    expect(doc.bytes).toBe(Buffer.byteLength(text));
    expect(doc.goal).toMatchObject({ text: manifest.foundingRequest, source: "founding-request" });
    expect(text).toContain(manifest.foundingRequest);
    for (const line of manifest.errorsOpenAtEnd) {
      expect(text).toContain(line.trim());
      expect(doc.openErrors.some((e) => e.text.includes(line.trim()) && !e.resolved)).toBe(true);
    }
    const spans = doc.pointers.filter((p) => p.kind === "span");
    expect(spans.length).toBeGreaterThan(0);
    for (const p of spans) {
      const recall = await cli(["recall", file, "--code", p.code ?? "", "--json"]);
      expect(recall.exit, recall.stderr).toBe(0);
      const found = JSON.parse(recall.stdout) as { spans: { status: string; blockId: string }[] };
      expect(found.spans.map((s) => [s.status, s.blockId])).toEqual([["verified", p.anchor]]);
    }
    for (const p of doc.pointers.filter((x) => x.kind === "block")) {
      const expand = await cli(["recall", file, "--expand", String(p.index), "--json"]);
      expect(expand.exit, expand.stderr).toBe(0);
      const entries = (JSON.parse(expand.stdout) as { entries: { index: number; verified: boolean }[] }).entries;
      expect(entries.map((e) => e.index)).toEqual([p.index]);
    }
    // Human output is the path; the file is replaced whole and no temp file is left behind.
    await writeFile(target, "stale ".repeat(100_000));
    const human = await cli(["handoff", file]);
    expect(human.stdout).toBe(`${target}\n`);
    expect(await readFile(target, "utf8")).toBe(text);
    const files = await readdir(dirname(target));
    expect(files).toContain(`handoff-${manifest.sessionId}.md`);
    expect(files.filter((f) => f.startsWith(".") || f.endsWith(".tmp"))).toEqual([]);
  });

  it("--goal leads with the given goal, --out and --now are honoured, bad options exit 2", async () => {
    const dir = tempDir("cli-handoff-");
    const file = join(dir, "session.jsonl");
    const manifest = await generateSession(file, { seed: 32, turns: 30 });
    const out = join(dir, "elsewhere", "next.md");
    const result = await cli(["handoff", file, "--goal", "Finish the recall path", "--out", out, "--now", "2026-05-05T05:05:05.000Z", "--json"]);
    expect(result.exit, result.stderr).toBe(0);
    const doc = JSON.parse(result.stdout) as HandoffJson;
    expect(doc.path).toBe(out);
    expect(doc.goal).toEqual({ text: "Finish the recall path", source: "given" });
    const text = await readFile(out, "utf8");
    expect(text).toContain("Written 2026-05-05T05:05:05.000Z");
    expect(text).toContain(manifest.foundingRequest);
    expect(text).toContain("Folded spans: none in the seed index.");
    expect((await cli(["handoff", file, "--now", "yesterday"])).exit).toBe(2);
    expect((await cli(["handoff", join(dir, "missing.jsonl")])).exit).toBe(2);
    const unwritable = await cli(["handoff", file, "--out", dir]);
    expect(unwritable.exit).toBe(2);
    expect(unwritable.stderr).toContain("cannot write the handoff");
  });
});

describe("context-fold inventory", () => {
  it("--json is the library's accounting with seed-index folds; totals add up; text names the unknown floor", async () => {
    const file = join(tempDir("cli-inventory-"), "session.jsonl");
    await generateSession(file, { seed: 33, turns: 40, compactions: 1 });
    expect((await cli(["index", file, "--trigger", "threshold"])).exit).toBe(0);
    const result = await cli(["inventory", file, "--json"]);
    expect(result.exit, result.stderr).toBe(0);
    const inv = JSON.parse(result.stdout) as ContextInventory;
    checkTotals(inv);
    expect(inv.floor.known).toBe(false);
    expect(inv.items.some((i) => i.folded)).toBe(true);
    for (const item of inv.items) if (item.folded) expect(item.tokens).toBeLessThanOrEqual(inv.stubTokens);
    const plain = sessionInventory(await readSession(file));
    expect(plain.total.conversation).toBeGreaterThan(inv.total.conversation);
    const text = await cli(["inventory", file]);
    expect(text.stdout).toContain("floor        unknown (no live Pi)");
    expect(text.stdout).toContain("Tool output by tool:");
    expect((await cli(["inventory", file])).stdout).toBe(text.stdout);
    const floored = JSON.parse((await cli(["inventory", file, "--system-prompt-tokens", "3000", "--tools-tokens", "1500", "--json"])).stdout) as ContextInventory;
    expect(floored.floor).toEqual({ known: true, tokens: 4500, systemPrompt: 3000, tools: 1500 });
    expect(floored.total.tokens).toBe(inv.total.tokens + 4500);
    expect((await cli(["inventory", file, "--dormant-turns", "x"])).exit).toBe(2);
  });
});

describeShared("real fixtures through the CLI", () => {
  it("inventory totals add up and handoff writes for every fixture", async () => {
    const dir = tempDir("cli-hi-fixtures-");
    for (const fixture of sessionFixtures()) {
      const copy = join(dir, fixture.split("/").pop() ?? "s.jsonl");
      await cp(fixture, copy);
      const inv = await cli(["inventory", copy, "--json"]);
      expect(inv.exit, `${copy}: ${inv.stderr}`).toBe(0);
      checkTotals(JSON.parse(inv.stdout) as ContextInventory);
      const handoff = await cli(["handoff", copy, "--now", "2026-01-01T00:00:00.000Z", "--json"]);
      expect(handoff.exit, `${copy}: ${handoff.stderr}`).toBe(0);
      const doc = JSON.parse(handoff.stdout) as HandoffJson;
      const text = await readFile(doc.path, "utf8");
      if (doc.goal.source === "founding-request") expect(text).toContain(doc.goal.text);
    }
  });
});
