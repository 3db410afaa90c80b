// The shape read (readSessionShape) keeps its lineage without an id → index map or id set, and the
// whole read counts children per entry position instead of a second id map. Both must answer exactly
// as before on the trees that stress them: an id written twice, a parent cycle, a branch point under a
// repeated id, and a compaction whose kept entry is looked up on the lineage.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "@context-fold/test-support";
import { readSession, readSessionShape, streamEntries } from "@context-fold/ledger-reader";
import { describe, expect, it } from "vitest";

const header = JSON.stringify({ type: "session", version: 3, id: "s1", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/p" });
function user(id: string, parentId: string | null, text = id): string {
  return JSON.stringify({ type: "message", id, parentId, timestamp: "2026-01-01T00:00:01.000Z", message: { role: "user", content: text, timestamp: 1 } });
}
function assistant(id: string, parentId: string): string {
  return JSON.stringify({ type: "message", id, parentId, timestamp: "2026-01-01T00:00:02.000Z", message: { role: "assistant", content: [{ type: "text", text: `reply ${id}` }], timestamp: 2 } });
}
function compaction(id: string, parentId: string, firstKeptEntryId: string): string {
  return JSON.stringify({ type: "compaction", id, parentId, timestamp: "2026-01-01T00:00:03.000Z", summary: "s", firstKeptEntryId, tokensBefore: 10 });
}

function write(lines: readonly string[]): string {
  const file = join(tempDir(), "s.jsonl");
  writeFileSync(file, `${[header, ...lines].join("\n")}\n`);
  return file;
}

async function expectShapeLikeWhole(file: string): Promise<void> {
  const whole = await readSession(file);
  const { session: shape } = await readSessionShape(file);
  expect(shape.lineage.map((e) => e.position)).toEqual(whole.lineage.map((e) => e.position));
  expect([...shape.lineageIds]).toEqual([...whole.lineageIds]);
  expect([...shape.lineageIds.keys()]).toEqual([...whole.lineageIds.values()]);
  expect(shape.lineageIds.size).toBe(whole.lineageIds.size);
  const seen: string[] = [];
  shape.lineageIds.forEach((id, same, set) => {
    expect(same).toBe(id);
    expect(set).toBe(shape.lineageIds);
    seen.push(id);
  });
  expect(seen).toEqual([...whole.lineageIds]);
  for (const id of [...whole.byId.keys(), "never-written"]) expect(shape.lineageIds.has(id)).toBe(whole.lineageIds.has(id));
  expect([...shape.recoveredLineageIds]).toEqual([...whole.recoveredLineageIds]);
  expect(shape.compactions).toEqual(whole.compactions);
  expect(shape.branchPoints).toEqual(whole.branchPoints);
  expect(shape.roots).toEqual(whole.roots);
  expect(shape.entries.map((e) => e.turn)).toEqual(whole.entries.map((e) => e.turn));
  // The streaming read keeps its own id → node map: the same turns.
  const streamed: number[] = [];
  for await (const item of streamEntries(file)) if (item.kind === "entry") streamed.push(item.entry.turn);
  expect(streamed).toEqual(whole.entries.map((e) => e.turn));
}

describe("shape lineage and child counts", () => {
  it("an id written twice keeps the children counted under it: one branch point, not two", async () => {
    // a has b and c (a branch point), then a second entry with id a under c; d and e hang under it.
    const file = write([user("a", null), assistant("b", "a"), assistant("c", "a"), user("a", "c", "again"), assistant("d", "a"), assistant("e", "a"), user("f", "e")]);
    const whole = await readSession(file);
    expect(whole.branchPoints).toEqual(["a"]);
    expect(whole.entries.map((e) => e.turn)).toEqual([1, 1, 1, 2, 2, 2, 3]);
    await expectShapeLikeWhole(file);
  });

  it("a parent cycle ends the lineage walk where an entry repeats", async () => {
    const file = write([user("x", "y"), assistant("y", "x"), user("z", "y")]);
    const whole = await readSession(file);
    expect(whole.lineage.map((e) => e.id)).toEqual(["x", "y", "z"]);
    await expectShapeLikeWhole(file);
  });

  it("compactions find their kept entry on the lineage, and ids off the lineage are not in it", async () => {
    const file = write([
      user("u1", null),
      assistant("a1", "u1"),
      user("side", "a1", "a branch"),
      user("u2", "a1"),
      assistant("a2", "u2"),
      compaction("c1", "a2", "u2"),
      user("u3", "c1"),
      assistant("a3", "u3"),
      compaction("c2", "a3", "not-on-lineage"),
      user("u4", "c2"),
    ]);
    const whole = await readSession(file);
    expect(whole.compactions.map((c) => c.entryIds.length)).toEqual([2, 5]);
    expect(whole.lineageIds.has("side")).toBe(false);
    await expectShapeLikeWhole(file);
  });
});
