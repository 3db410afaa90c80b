// A lineage route (`lineageRoute`) keeps only each lineage entry's position and a hash of its id, so a
// command can let a large session's shape go before it streams. Streaming from the route must meet the
// same entries as `streamLineage`, skip the branch off the lineage, and refuse a file whose entry at a
// route position is another one (replaced between the reads), naming the line and byte.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "@context-fold/test-support";
import { LedgerError, lineageRoute, readSessionShape, streamLineage, streamRoute } from "@context-fold/ledger-reader";
import { describe, expect, it } from "vitest";

const header = JSON.stringify({ type: "session", version: 3, id: "s1", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/p" });
function user(id: string, parentId: string | null, text = id): string {
  return JSON.stringify({ type: "message", id, parentId, timestamp: "2026-01-01T00:00:01.000Z", message: { role: "user", content: text, timestamp: 1 } });
}
function assistant(id: string, parentId: string): string {
  return JSON.stringify({ type: "message", id, parentId, timestamp: "2026-01-01T00:00:02.000Z", message: { role: "assistant", content: [{ type: "text", text: `reply ${id}` }], timestamp: 2 } });
}

function write(file: string, lines: readonly string[]): void {
  writeFileSync(file, `${[header, ...lines].join("\n")}\n`);
}

async function collect<T>(items: AsyncIterable<{ entry: { id: string; position: number }; blocks: readonly T[] }>): Promise<string[]> {
  const out: string[] = [];
  for await (const { entry, blocks } of items) out.push(`${entry.id}@${String(entry.position)}:${String(blocks.length)}`);
  return out;
}

describe("lineageRoute / streamRoute", () => {
  it("meets the lineage's entries as streamLineage does, the branch off it skipped", async () => {
    const file = join(tempDir(), "s.jsonl");
    // b2 branches off a1; the leaf c hangs off b1, so b2 is off the lineage.
    write(file, [user("u1", null), assistant("a1", "u1"), user("b2", "a1", "other branch"), user("b1", "a1"), assistant("c", "b1")]);
    const { session } = await readSessionShape(file);
    const route = lineageRoute(session);
    expect([...route.positions]).toEqual(session.lineage.map((e) => e.position));
    const fromRoute = await collect(streamRoute(route));
    expect(fromRoute).toEqual(await collect(streamLineage(session)));
    expect(fromRoute.map((s) => s.split("@")[0])).toEqual(["u1", "a1", "b1", "c"]);
  });

  it("refuses a file whose entry at a route position has another id (LEDGER_CHANGED, with line and byte)", async () => {
    const file = join(tempDir(), "s.jsonl");
    write(file, [user("u1", null), assistant("a1", "u1"), user("u2", "a1")]);
    const route = lineageRoute((await readSessionShape(file)).session);
    // Same shape, same positions, other ids: only the id hashes can tell.
    write(file, [user("x1", null), assistant("y1", "x1"), user("z2", "y1")]);
    const error = await collect(streamRoute(route)).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(LedgerError);
    expect(error).toMatchObject({ code: "LEDGER_CHANGED", line: 2 });
    expect((error as LedgerError).message).toMatch(/entry 0 is x1/);
  });

  it("refuses a file that lost lineage entries since the route was taken", async () => {
    const file = join(tempDir(), "s.jsonl");
    write(file, [user("u1", null), assistant("a1", "u1"), user("u2", "a1")]);
    const route = lineageRoute((await readSessionShape(file)).session);
    write(file, [user("u1", null)]);
    await expect(collect(streamRoute(route))).rejects.toMatchObject({ code: "LEDGER_CHANGED" });
  });
});
