// Same arguments → byte-identical files and manifests; ids and times come from the seed, not the clock.
import { readFileSync } from "node:fs";
import nodeCrypto from "node:crypto";
import { join } from "node:path";
import { tempDir } from "@context-fold/test-support";
import { generateSession } from "@context-fold/session-gen";
import { describe, expect, it } from "vitest";

describe("determinism", () => {
  it("two runs with the same options write the same bytes and the same manifest", async () => {
    const dir = tempDir();
    const a = await generateSession(join(dir, "a.jsonl"), { seed: 7, size: 300_000, damage: { tornLines: 1, malformedLines: 2, truncatedTail: true } });
    const b = await generateSession(join(dir, "b.jsonl"), { seed: 7, size: 300_000, damage: { tornLines: 1, malformedLines: 2, truncatedTail: true } });
    expect(readFileSync(join(dir, "a.jsonl")).equals(readFileSync(join(dir, "b.jsonl")))).toBe(true);
    expect({ ...a, file: "" }).toEqual({ ...b, file: "" });
  });

  it("another seed writes another session", async () => {
    const dir = tempDir();
    await generateSession(join(dir, "a.jsonl"), { seed: 7, turns: 12 });
    await generateSession(join(dir, "b.jsonl"), { seed: 8, turns: 12 });
    expect(readFileSync(join(dir, "a.jsonl")).equals(readFileSync(join(dir, "b.jsonl")))).toBe(false);
  });

  it("timestamps start at startTime and never go backwards in file order", async () => {
    const file = join(tempDir(), "t.jsonl");
    await generateSession(file, { seed: 5, turns: 20, startTime: "2025-12-24T18:00:00.000Z" });
    const times = readFileSync(file, "utf8").trim().split("\n").map((l) => Date.parse((JSON.parse(l) as { timestamp: string }).timestamp));
    expect(times[0]).toBe(Date.parse("2025-12-24T18:00:00.000Z"));
    for (let i = 1; i < times.length; i++) expect(times[i]).toBeGreaterThanOrEqual(times[i - 1] ?? 0);
  });

  it("restores the real clock and id source afterwards", async () => {
    const before = Date.now();
    await generateSession(join(tempDir(), "r.jsonl"), { seed: 1, turns: 3 });
    expect(Date.now()).toBeGreaterThanOrEqual(before);
    expect(new Date(0).getTime()).toBe(0);
    expect(nodeCrypto.randomUUID()).not.toBe(nodeCrypto.randomUUID());
  });
});
