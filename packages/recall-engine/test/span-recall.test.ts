// Span recall through a real seed index written with the format package's own writer.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readSession, type Block } from "@context-fold/ledger-reader";
import { appendRecord, blockLog, codeFor, type FoldIndexRecord, seedIndexPath, sha256Hex } from "@context-fold/seed-index-format";
import { generateSession } from "@context-fold/session-gen";
import { LINEAR_TIME_MS, tempDir } from "@context-fold/test-support";
import { RecallError, RecallPatternError, spanRecall } from "@context-fold/recall-engine";

function spanOf(block: Block, sha?: string, fullOutputPath?: string): FoldIndexRecord["spans"][number] {
  const anchor = block.anchor ?? "";
  return {
    blockId: anchor,
    code: codeFor(anchor),
    turn: block.turn,
    log: blockLog(block.text),
    sha256: sha ?? sha256Hex(block.text),
    ...(block.toolName === undefined ? {} : { tool: block.toolName }),
    ...(fullOutputPath === undefined ? {} : { fullOutputPath }),
  };
}

describe("spanRecall", async () => {
  const dir = tempDir("recall-span-");
  const file = join(dir, "s.jsonl");
  await generateSession(file, { seed: 21, turns: 50 });
  const session = await readSession(file);
  const results = session.blocks.filter((b) => b.kind === "toolResult" && b.anchor !== undefined && b.text.split("\n").length > 5);
  const [a, b, c] = results as [Block, Block, Block];
  const outputs = join(dir, "tool-output");
  mkdirSync(outputs);
  const fullPath = join(outputs, "full.txt");
  writeFileSync(fullPath, `${b.text}\nEXTRA tail line only in the full output\n`);
  const record: FoldIndexRecord = {
    v: 2,
    kind: "fold-index",
    harness: "pi-context-fold",
    session: session.header.id,
    seq: 0,
    at: "2026-03-01T10:00:00.000Z",
    trigger: "threshold",
    files: ["src/quokka/pool.ts"],
    commands: [],
    errors: ["npm ERR! code ELIFECYCLE"],
    identifiers: ["wombatFactor_9"],
    userMessages: [],
    spans: [spanOf(a), spanOf(b, undefined, fullPath), spanOf(c, "0".repeat(64))],
  };
  const seedIndex = seedIndexPath(file, session.header.id);
  await appendRecord(seedIndex, record);

  it("by code: the whole span, verified by sha256", async () => {
    const r = await spanRecall(session, { code: codeFor(a.anchor ?? "") });
    expect(r.spans).toHaveLength(1);
    expect(r.spans[0]?.status).toBe("verified");
    expect(r.spans[0]?.text).toBe(a.text);
    expect(r.spans[0]?.index).toBe(a.index);
  });
  it("by anchor; a sha256 mismatch is flagged, never verified", async () => {
    const r = await spanRecall(session, { anchor: c.anchor ?? "" });
    expect(r.spans[0]?.status).toBe("mismatch");
    expect(r.spans[0]?.verified).toBe(false);
    expect(r.spans[0]?.reason).toMatch(/sha256 mismatch/);
  });
  it("by a term in identifiers/errors/files: every span of the record", async () => {
    for (const term of ["WOMBATFACTOR", "ELIFECYCLE", "quokka/pool"]) {
      const r = await spanRecall(session, { term });
      expect(r.spans.map((s) => s.blockId)).toEqual([a.anchor, b.anchor, c.anchor]);
    }
    await expect(spanRecall(session, { term: "nothing-like-this" })).rejects.toThrow(RecallError);
  });
  it("scans inside a span: grep and line range", async () => {
    const lines = a.text.split("\n");
    const word = (lines[2] ?? "").trim().split(/\s+/)[0] ?? "";
    const grep = await spanRecall(session, { code: codeFor(a.anchor ?? ""), scan: { grep: word.replace(/[^A-Za-z0-9]/g, ".") } });
    expect(grep.spans[0]?.text).toBeUndefined();
    expect(grep.spans[0]?.scan?.lines.some((l) => l.line === 3)).toBe(true);
    const range = await spanRecall(session, { code: codeFor(a.anchor ?? ""), scan: { lines: { from: 2, to: 3 } } });
    expect(range.spans[0]?.scan?.lines).toEqual([
      { line: 2, text: lines[1] },
      { line: 3, text: lines[2] },
    ]);
    await expect(spanRecall(session, { code: codeFor(a.anchor ?? ""), scan: { grep: "(a" } })).rejects.toThrow(RecallPatternError);
  });
  it("scans Pi's full-output file only under allowed roots", async () => {
    const code = codeFor(b.anchor ?? "");
    const inside = await spanRecall(session, { code, scan: { grep: "EXTRA tail", fullOutput: true }, roots: [outputs] });
    expect(inside.spans[0]?.scan?.source).toBe("full-output");
    expect(inside.spans[0]?.scan?.lines[0]?.text).toBe("EXTRA tail line only in the full output");
    const outside = await spanRecall(session, { code, scan: { grep: "EXTRA tail", fullOutput: true }, roots: [join(dir, "elsewhere")] });
    expect(outside.spans[0]?.scan?.source).toBe("span");
    expect(outside.spans[0]?.scan?.refused).toMatch(/outside the allowed roots/);
    expect(outside.spans[0]?.scan?.matched).toBe(0);
  });
  it("a grep scan over a 1 MB line terminates (adversarial pattern)", { timeout: LINEAR_TIME_MS }, async () => {
    const big = join(outputs, "big.txt");
    writeFileSync(big, `${"a".repeat(1 << 20)}\n`);
    const other = { ...record, seq: 1, spans: [spanOf(b, undefined, big)] };
    const idx = join(dir, "other-seed-index.jsonl");
    await appendRecord(idx, other);
    const r = await spanRecall(session, { seedIndex: idx, anchor: b.anchor ?? "", scan: { grep: "(a+)+$", fullOutput: true }, roots: [outputs] });
    expect(r.spans[0]?.scan?.matched).toBe(1);
  });
  it("no seed index: a typed error", async () => {
    await expect(spanRecall(session, { code: "x", seedIndex: join(dir, "none.jsonl") })).rejects.toMatchObject({ code: "SEED_INDEX_MISSING" });
  });
});
