// recallFile, the one entry point: the first plain search reads the ledger and saves the block table,
// the next is answered from the table alone with the same result; a stale table falls back to the full
// read; expand and span requests always read the ledger and verify.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readSession } from "@context-fold/ledger-reader";
import { generateSession } from "@context-fold/session-gen";
import { tempDir } from "@context-fold/test-support";
import { recallFile, renderExpanded } from "@context-fold/recall-engine";

describe("recallFile", () => {
  const dir = tempDir("recall-file-");
  const file = join(dir, "s.jsonl");
  const cacheDir = join(dir, "cache");

  it("answers a word query from the block table once a full read saved it, with the same result", async () => {
    await generateSession(file, { seed: 61, turns: 40 });
    const first = await recallFile(file, { query: "checksum drift", open: { cacheDir } });
    if (first.kind !== "search") throw new Error(first.kind);
    expect(first.recall).not.toBeNull();
    const second = await recallFile(file, { query: "checksum drift", open: { cacheDir } });
    if (second.kind !== "search") throw new Error(second.kind);
    expect(second.recall).toBeNull(); // no ledger parse
    expect(JSON.stringify(second.result)).toBe(JSON.stringify(first.result));
    // A regex is never answered from the table.
    const regex = await recallFile(file, { query: "check.*drift", regex: true, open: { cacheDir } });
    expect(regex.kind === "search" && regex.recall !== null).toBe(true);
  });

  it("falls back to the full read when a shown block changed under the table", async () => {
    const before = await recallFile(file, { query: "checksum", open: { cacheDir } });
    if (before.kind !== "search") throw new Error(before.kind);
    const hit = before.result.hits[0];
    if (hit === undefined) throw new Error("no hit");
    const session = await readSession(file);
    const block = session.blocks[hit.index];
    if (block === undefined) throw new Error("no block");
    const bytes = readFileSync(file);
    const at = bytes.indexOf("checksum", block.byteOffset);
    bytes.write("CHECKSUM", at);
    writeFileSync(file, bytes);
    const after = await recallFile(file, { query: "checksum", open: { cacheDir } });
    if (after.kind !== "search") throw new Error(after.kind);
    expect(after.recall).not.toBeNull();
    expect(JSON.stringify(after.result.hits)).toContain("CHECKSUM");
  });

  it("expands verified against the ledger, rendered in the one expand format", async () => {
    const answer = await recallFile(file, { expand: [1, 2], open: { cacheDir } });
    if (answer.kind !== "expand") throw new Error(answer.kind);
    expect(answer.entries.map((e) => e.index)).toEqual([1, 2]);
    const text = renderExpanded(answer.entries, { session: "s.jsonl" });
    expect(text).toMatch(/^=== s\.jsonl #1 \[/);
    expect(text).toContain((answer.entries[1]?.text ?? "").slice(0, 40));
    expect(renderExpanded([])).toBe("No such entries.\n");
  });
});
