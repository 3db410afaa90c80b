// eval's streamed recall part verifies its hits over the block table the streamed build writes
// (`tableVerifier`): its verdict must be the whole read's (`ledgerVerifier`) for every block, an
// anchor carried by two blocks (ambiguous) and an entry changed in the file included.
import { appendFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { readSession } from "@context-fold/ledger-reader";
import { buildRecallFilesStreamed, ledgerVerifier, openRecallSnapshot } from "@context-fold/recall-engine";
import { tempDir } from "@context-fold/test-support";
import { describe, expect, it } from "vitest";
import { tableVerifier } from "../src/eval/recall-check.js";

describe("tableVerifier", () => {
  it("gives ledgerVerifier's verdict on every block, an anchor carried twice included", async () => {
    const dir = tempDir();
    const file = join(dir, "s.jsonl");
    const { generateSession } = await import("@context-fold/session-gen");
    await generateSession(file, { seed: 8, turns: 30 });
    // A second entry carrying a tool result's anchor (same toolCallId, another id): that anchor is ambiguous.
    const lines = readFileSync(file, "utf8").split("\n").filter((l) => l.length > 0);
    const result = lines.find((l) => l.includes('"role":"toolResult"'));
    expect(result).toBeDefined();
    const copy = JSON.parse(result ?? "{}") as Record<string, unknown>;
    copy["id"] = "dup00001";
    appendFileSync(file, `${JSON.stringify(copy)}\n`);

    const whole = await readSession(file);
    const cachePath = join(dir, "cache", "recall-index");
    expect(await buildRecallFilesStreamed(file, { cachePath })).not.toBeNull();
    const snapshot = openRecallSnapshot(file, { cachePath });
    expect(snapshot).not.toBeNull();
    const blocks = snapshot?.session.blocks ?? [];
    expect(blocks.length).toBe(whole.blocks.length);
    const all = blocks.map((b) => b.index);
    const byTable = tableVerifier(file, blocks, all);
    const byLedger = ledgerVerifier(whole);
    const verdicts = whole.blocks.map((b) => byLedger(b));
    expect(blocks.map((b) => byTable(b))).toEqual(verdicts);
    // Not a comparison of all-null verdicts: the duplicated anchor is ambiguous on both.
    expect(verdicts.filter((v) => v !== null && v.includes("ambiguous")).length).toBe(2);
    // Asked for one of the two blocks only, the table still finds the other (one pass over every block).
    const twice = whole.blocks.filter((b, i) => verdicts[i]?.includes("ambiguous") === true).map((b) => b.index);
    const one = twice[0] ?? -1;
    const block = blocks[one];
    expect(block).toBeDefined();
    if (block !== undefined) expect(tableVerifier(file, blocks, [one])(block)).toBe(verdicts[one]);
  });
});
