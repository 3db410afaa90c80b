// The block table's bytes (block-table.ts): every field a block can carry comes back exactly as written,
// whatever its characters, absent fields stay absent, and bytes of another shape are refused (null).
import type { Block } from "@context-fold/ledger-reader";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "@context-fold/test-support";
import { BlockTable, encodeBlockTable } from "../src/block-table.js";
import { SnapshotStaleError } from "../src/errors.js";
import { CACHE_FORMAT } from "../src/index-cache.js";

const key = { format: CACHE_FORMAT, sessionId: "s-1", byteLength: 123, head: "h".repeat(64), tail: "t".repeat(64), blockCount: 3, lastEntryId: "e3" };

/** Blocks with the awkward values: non-Latin-1 text, a lone surrogate, empty strings, zeros, a byte offset past 4 GiB. */
const blocks = [
  { index: 0, entryId: "e1", entryPosition: 1, kind: "user", role: "user", turn: 1, timestamp: "2026-01-01T00:00:00.000Z", line: 2, byteOffset: 100, byteLength: 50, text: "" },
  {
    index: 1,
    entryId: "é2-\ud83d\ude00",
    entryPosition: 2,
    kind: "toolResult",
    role: "toolResult",
    turn: 1,
    timestamp: undefined,
    line: 3,
    byteOffset: 5 * 2 ** 32 + 7,
    byteLength: 0,
    partIndex: 0,
    toolName: "bash",
    toolCallId: "call\ud800",
    isError: true,
    exitCode: 0,
    fullOutputPath: "",
    anchor: "a:1",
    text: "",
  },
  { index: 2, entryId: "e3", entryPosition: 3, kind: "bash", role: "user", turn: 2, timestamp: "", line: 4, byteOffset: 9, byteLength: 1, args: { command: "ls -la ~/\u4e2d" }, exitCode: -1, text: "" },
] as unknown as Block[];
const shaHex = ["0123456789abcdef0123", "fedcba9876543210", "00000000000000ff"];

function roundTrip(bytes: Buffer): BlockTable {
  const table = BlockTable.decode(bytes);
  if (table === null) throw new Error("table not read back");
  return table;
}

describe("the block table's bytes", () => {
  const bytes = encodeBlockTable({ key, blocks, shaHex, lineageIds: new Set(["e1", "e3", "ü"]), notHistory: Uint8Array.of(0, 1, 0), callResults: Int32Array.of(-1, 2, -1), compactions: [{ number: 1, segment: { from: 0, to: 1 }, entryIds: ["e1"] }] });

  it("give back every field exactly, absent ones absent", () => {
    const t = roundTrip(bytes);
    expect(t.count).toBe(3);
    expect(t.key).toEqual(key);
    expect(t.compactions).toEqual([{ number: 1, segment: { from: 0, to: 1 }, entryIds: ["e1"] }]);
    expect(t.lineageIds()).toEqual(["e1", "e3", "ü"]);
    expect([...t.lineageMask()]).toEqual([1, 0, 1]);
    expect([...t.notHistoryMask()]).toEqual([0, 1, 0]);
    expect([...t.callResults()]).toEqual([-1, 2, -1]);
    const read = (i: number): Record<string, unknown> => ({
      entryId: t.string("entryId", i),
      entryPosition: t.entryPosition(i),
      kind: t.kind(i),
      role: t.string("role", i),
      turn: t.turn(i),
      timestamp: t.string("timestamp", i),
      line: t.line(i),
      byteOffset: t.byteOffset(i),
      byteLength: t.byteLength(i),
      partIndex: t.partIndex(i),
      toolName: t.string("toolName", i),
      toolCallId: t.string("toolCallId", i),
      isError: t.isError(i),
      exitCode: t.exitCode(i),
      fullOutputPath: t.string("fullOutputPath", i),
      anchor: t.string("anchor", i),
      command: t.string("command", i),
      sha: t.shaHex(i),
    });
    expect(read(0)).toEqual({ entryId: "e1", entryPosition: 1, kind: "user", role: "user", turn: 1, timestamp: "2026-01-01T00:00:00.000Z", line: 2, byteOffset: 100, byteLength: 50, partIndex: undefined, toolName: undefined, toolCallId: undefined, isError: false, exitCode: undefined, fullOutputPath: undefined, anchor: undefined, command: undefined, sha: "0123456789abcdef" });
    expect(read(1)).toEqual({ entryId: "é2-\ud83d\ude00", entryPosition: 2, kind: "toolResult", role: "toolResult", turn: 1, timestamp: undefined, line: 3, byteOffset: 5 * 2 ** 32 + 7, byteLength: 0, partIndex: 0, toolName: "bash", toolCallId: "call\ud800", isError: true, exitCode: 0, fullOutputPath: "", anchor: "a:1", command: undefined, sha: "fedcba9876543210" });
    expect(read(2)).toMatchObject({ kind: "bash", timestamp: "", exitCode: -1, command: "ls -la ~/\u4e2d", sha: "00000000000000ff" });
    expect(t.recorded()).toEqual({ entryId: ["e1", "é2-\ud83d\ude00", "e3"], sha: ["0123456789abcdef", "fedcba9876543210", "00000000000000ff"] });
  });

  it("are read from a buffer at any alignment", () => {
    const shifted = Buffer.alloc(bytes.length + 3);
    bytes.copy(shifted, 3);
    expect(roundTrip(shifted.subarray(3)).string("entryId", 1)).toBe("é2-\ud83d\ude00");
  });

  it("of another shape are refused: torn, padded, another format, another file", () => {
    expect(BlockTable.decode(bytes.subarray(0, bytes.length - 8))).toBeNull();
    expect(BlockTable.decode(Buffer.concat([bytes, Buffer.alloc(8)]))).toBeNull();
    const other = Buffer.from(bytes);
    other.writeUInt32LE(1, 4);
    expect(BlockTable.decode(other)).toBeNull();
    const badKind = Buffer.from(bytes);
    // The kind column follows the f64 and six i32 columns; 200 is no kind.
    const metaEnd = (12 + bytes.readUInt32LE(8) + 7) & ~7;
    badKind[metaEnd + 3 * 8 + 7 * ((3 * 4 + 7) & ~7)] = 200;
    expect(BlockTable.decode(badKind)?.kind(0)).toBeUndefined();
    // All the kinds at once (what a snapshot opens with) are refused for the one block without one.
    expect(BlockTable.decode(badKind)?.kinds()).toBeNull();
    expect(BlockTable.decode(Buffer.from('{"format":1,"blocks":{}}'))).toBeNull();
    expect(BlockTable.decode(Buffer.alloc(0))).toBeNull();
  });

  it("with a string column that does not add up are stale when that column is first read", () => {
    const bad = Buffer.from(bytes);
    // The entryId lengths follow the f64, seven i32, four u8 and sha sections (3 blocks each).
    const metaEnd = (12 + bytes.readUInt32LE(8) + 7) & ~7;
    const at = metaEnd + 3 * 8 + 7 * 16 + 4 * 8 + 24;
    expect(bad.readInt32LE(at)).toBe(2);
    bad.writeInt32LE(5, at);
    const t = roundTrip(bad);
    expect(t.string("role", 0)).toBe("user");
    expect(() => t.string("entryId", 0)).toThrow(SnapshotStaleError);
  });

  it("are the same for the same input", () => {
    expect(encodeBlockTable({ key, blocks, shaHex, lineageIds: new Set(["e1", "e3", "ü"]), notHistory: Uint8Array.of(0, 1, 0), callResults: Int32Array.of(-1, 2, -1), compactions: [{ number: 1, segment: { from: 0, to: 1 }, entryIds: ["e1"] }] }).equals(bytes)).toBe(true);
  });

  it("read from their file by offset give what the bytes in memory give: every field of every block, values across text windows", () => {
    // Enough blocks that every string column's text runs over several 64 KiB windows, in both encodings
    // (Latin-1 entry ids and roles, UTF-16 anchors), values of every length straddling window edges.
    const many: Block[] = [];
    const hashes: string[] = [];
    for (let i = 0; i < 6000; i++) {
      const base = blocks[i % 3] as unknown as Record<string, unknown>;
      many.push({ ...base, index: i, entryId: `entry-${String(i)}-${"x".repeat(i % 37)}`, anchor: i % 5 === 0 ? undefined : `anchor \u4e2d ${"y".repeat(i % 53)} ${String(i)}`, line: i + 2, byteOffset: i * 1000 + 2 ** 33 } as unknown as Block);
      hashes.push((i * 7919).toString(16).padStart(16, "0"));
    }
    const lineage = new Set(many.filter((_, i) => i % 3 !== 1).map((b) => b.entryId));
    const big = encodeBlockTable({ key: { ...key, blockCount: many.length }, blocks: many, shaHex: hashes, lineageIds: lineage, notHistory: Uint8Array.from(many, (_, i) => (i % 7 === 0 ? 1 : 0)), callResults: Int32Array.from(many, (_, i) => (i % 11 === 0 ? i + 1 : -1)), compactions: [] });
    expect(big.length).toBeGreaterThan(4 * 64 * 1024);
    const path = join(tempDir("block-table-file-"), "t.blocks");
    writeFileSync(path, big);
    const inMemory = roundTrip(big);
    const fromFile = BlockTable.open(path);
    if (fromFile === null) throw new Error("table not opened from its file");
    const names = ["entryId", "role", "timestamp", "anchor", "toolName", "toolCallId", "command", "fullOutputPath"] as const;
    const fields = (t: BlockTable, i: number): unknown[] => [t.kind(i), t.byteOffset(i), t.entryPosition(i), t.turn(i), t.partIndex(i), t.line(i), t.byteLength(i), t.exitCode(i), t.isError(i), t.shaHex(i), ...names.map((name) => t.string(name, i))];
    // Backwards first: values are read in an order where windows are evicted and read again.
    for (let i = many.length - 1; i >= 0; i--) expect(fields(fromFile, i), `#${String(i)}`).toEqual(fields(inMemory, i));
    for (let i = 0; i < many.length; i += 97) expect(fields(fromFile, i)).toEqual(fields(inMemory, i));
    expect(fromFile.kinds()).toEqual(many.map((_, i) => inMemory.kind(i)));
    expect([...fromFile.lineageMask()]).toEqual([...inMemory.lineageMask()]);
    expect([...fromFile.notHistoryMask()]).toEqual([...inMemory.notHistoryMask()]);
    expect([...fromFile.callResults()]).toEqual([...inMemory.callResults()]);
    expect(fromFile.lineageIds()).toEqual([...lineage]);
    expect(fromFile.recorded()).toEqual(inMemory.recorded());
    expect(fromFile.key).toEqual(inMemory.key);
    writeFileSync(path, big.subarray(0, big.length - 8));
    expect(BlockTable.open(path)).toBeNull();
    expect(BlockTable.open(join(path, "missing"))).toBeNull();
  });
});
