// A history block table's page fields (what results show of a block: entry id, role, time, tool names,
// exit code, command, …, and the compactions) are kept as their distinct values and a column of value
// numbers per field (history-table.ts `encodePage`), read without node:zlib: a page of results gives back
// every field of every block as the session's ledger has it, read whole or for ranking first.
import { mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { type Block, readSession } from "@context-fold/ledger-reader";
import { generateSession } from "@context-fold/session-gen";
import { tempDir } from "@context-fold/test-support";
import { HistoryIndex, historyDirFor } from "@context-fold/recall-engine";
import { encodeTable, BlockTable } from "../src/history-table.js";
import { segmentBase } from "../src/history-layout.js";
import { assistant, toolResult, user, writtenByPi } from "./support/pi-session.js";

/** What results show of a block, as the ledger reader gives it (`text` read back apart). */
function shown(b: Block): unknown {
  return {
    index: b.index,
    entryId: b.entryId,
    entryPosition: b.entryPosition,
    kind: b.kind,
    role: b.role,
    turn: b.turn,
    timestamp: b.timestamp,
    line: b.line,
    byteOffset: b.byteOffset,
    byteLength: b.byteLength,
    partIndex: b.partIndex,
    anchor: b.anchor,
    toolName: b.toolName,
    toolCallId: b.toolCallId,
    // Kept as a flag: a block read back from a table carries `isError` only when true (as before).
    isError: b.isError === true,
    exitCode: b.exitCode,
    fullOutputPath: b.fullOutputPath,
    command: b.kind === "bash" ? b.args?.["command"] : undefined,
  };
}

async function tableOf(file: string): Promise<{ tab: string; bytes: Buffer }> {
  const dir = dirname(file);
  const root = tempDir("history-page-root-");
  const history = HistoryIndex.for(dir, { root });
  await history.update();
  const s = history.sessions.find((x) => join(dir, x.path) === file);
  if (s === undefined) throw new Error("no session");
  const tab = `${segmentBase(join(historyDirFor(dir, root), "segments"), file, s.id)}.tab`;
  return { tab, bytes: readFileSync(tab) };
}

function expectSameAsLedger(table: BlockTable, blocks: readonly Block[], compactions: unknown): void {
  const { blocks: read, source } = table.source();
  expect(read.length).toBe(blocks.length);
  for (const b of blocks) expect(shown(read[b.index] as Block), `#${String(b.index)}`).toEqual(shown(b));
  for (const b of blocks) expect((read[b.index] as Block).text, `#${String(b.index)} text`).toBe(b.text);
  expect(source.compactions).toEqual(compactions);
}

describe("history block tables' page fields", () => {
  it("give back every block's fields as the ledger has them: values held once, none, odd characters and numbers", async () => {
    const file = writtenByPi((sm) => {
      sm.appendMessage(user("ünïcödé — “quotes”, a tab\tand \\ backslash, \u2028 a line separator and 🦓 in the user's words"));
      sm.appendMessage(assistant([{ type: "thinking", thinking: "check the build" }, { type: "text", text: "Let me run it:" }, { type: "toolCall", id: "call_1", name: "bash", arguments: { command: "pnpm build" } }]));
      sm.appendMessage(toolResult("call_1", "bash", "error TS2322: Type 'string' is not assignable", true));
      sm.appendMessage(assistant([{ type: "toolCall", id: "call_2", name: "read", arguments: { path: "src/ü.ts" } }, { type: "toolCall", id: "call_3", name: "bash", arguments: { command: "echo 0" } }]));
      sm.appendMessage(toolResult("call_2", "read", "export const ü = 1;"));
      sm.appendMessage(toolResult("call_3", "bash", "0"));
      sm.appendMessage(assistant([{ type: "text", text: "Done: the build error is a type error." }]));
    });
    const session = await readSession(file);
    const { tab, bytes } = await tableOf(file);
    expectSameAsLedger(BlockTable.read(file, bytes, tab, true), session.blocks, session.compactions);
    // Read for ranking first (no page fields), then for a page: the same.
    expectSameAsLedger(BlockTable.forRanking(file, tab), session.blocks, session.compactions);
    // From bytes at an odd offset of their memory (its 32-bit columns then copied out, not viewed): the same.
    const odd = Buffer.concat([Buffer.alloc(1), bytes]).subarray(1);
    const oddTable = BlockTable.read(file, odd, tab, true);
    expectSameAsLedger(oddTable, session.blocks, session.compactions);
    for (const b of session.blocks) expect([oddTable.resultOf(b.index), oddTable.quotedBy(b.index)], `#${String(b.index)}`).toEqual([BlockTable.read(file, bytes, tab).resultOf(b.index), BlockTable.read(file, bytes, tab).quotedBy(b.index)]);
    // The same session gives the same bytes; and its table read back gives its fields.
    const again = encodeTable(session);
    expect(again.equals(encodeTable(session))).toBe(true);
    expectSameAsLedger(BlockTable.read(file, again, "again", true), session.blocks, session.compactions);
  }, 60_000);

  it("give back every field of a generated session's blocks (bash with exit codes, compactions, branches)", async () => {
    const folder = join(tempDir("history-page-gen-"), "--home-dev-page--");
    mkdirSync(folder, { recursive: true });
    const file = join(folder, "s1.jsonl");
    await generateSession(file, { seed: 4242, size: 200_000, cwd: "/home/dev/page" });
    const session = await readSession(file);
    expect(session.blocks.some((b) => b.kind === "bash" || b.exitCode !== undefined || b.toolCallId !== undefined)).toBe(true);
    const { tab, bytes } = await tableOf(file);
    expectSameAsLedger(BlockTable.read(file, bytes, tab, true), session.blocks, session.compactions);
  }, 120_000);

  it("that do not add up are refused as a corrupt table, not read as other fields", async () => {
    const file = writtenByPi((sm) => {
      sm.appendMessage(user("the zebrafish fixture"));
      sm.appendMessage(assistant([{ type: "text", text: "noted" }]));
    });
    const { tab, bytes } = await tableOf(file);
    // The last byte of the page section (a value number of the last column) made one past the values kept.
    const cut = Buffer.from(bytes);
    const pageEnd = cut.length - 32;
    cut[pageEnd - 1] = 0x7f;
    expect(() => BlockTable.read(file, cut, tab).source()).toThrow(/block table fields cannot be read/);
    // A call's result (its column, after the flags, the hashes and the turns, from a 4-byte boundary) past the blocks: refused on read.
    const n = bytes.readUInt32LE(8);
    const results = ((20 + 9 * n + 3) & ~3) + 4 * n;
    const past = Buffer.from(bytes);
    past.writeInt32LE(n, results);
    expect(() => BlockTable.read(file, past, tab)).toThrow(/call #0 → result #2 past the 2 blocks/);
    const read = BlockTable.read(file, bytes, tab);
    const session = await readSession(file);
    expect([read.resultOf(0), read.resultOf(1), read.turnOf(0), read.turnOf(1)]).toEqual([-1, -1, session.blocks[0]?.turn, session.blocks[1]?.turn]);
  }, 60_000);
});
