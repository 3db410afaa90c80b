// Size targets are met roughly; the damage options produce exactly the damage they report; the
// replication path (used above 160 MiB, lowered here) keeps the tree valid in Pi's eyes.
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { LINEAR_TIME_MS, tempDir } from "@context-fold/test-support";
import { generateSession, parseSize, SizeParseError } from "@context-fold/session-gen";
import { describe, expect, it } from "vitest";
import { openInPi, readEntries } from "./helpers.js";

describe("size targets", () => {
  for (const size of [100 * 1024, 1024 * 1024, 4 * 1024 * 1024]) {
    it(`~${size} bytes`, async () => {
      const file = join(tempDir(), "s.jsonl");
      const m = await generateSession(file, { seed: 2, size });
      expect(m.bytes).toBe(statSync(file).size);
      expect(m.bytes).toBeGreaterThan(size * 0.9);
      expect(m.bytes).toBeLessThan(size * 1.25);
      expect(m.compactions.length).toBe(Math.floor(size / (400 * 1024)));
    });
  }

  it("--turns counts the user's turns on the lineage plus the abandoned ones", async () => {
    const file = join(tempDir(), "t.jsonl");
    const m = await generateSession(file, { seed: 4, turns: 30, branches: false });
    const users = readEntries(file).filter((e) => e.type === "message" && (e.message as { role: string }).role === "user");
    expect(users.length).toBe(30);
    expect(m.branchPoints).toEqual([]);
    expect(m.compactions.length).toBe(1);
  });

  it("parses human sizes, rejects others, and stays linear on a 1 MB input", { timeout: LINEAR_TIME_MS }, () => {
    expect(parseSize("4mb")).toBe(4 * 1024 * 1024);
    expect(parseSize("100KB")).toBe(100 * 1024);
    expect(parseSize("1gb")).toBe(1024 ** 3);
    expect(parseSize("250000")).toBe(250_000);
    expect(() => parseSize("4 parsecs")).toThrow(SizeParseError);
    expect(() => parseSize(`${"1".repeat(1_000_000)}x`)).toThrow(SizeParseError);
    expect(() => parseSize(" ".repeat(1_000_000))).toThrow(SizeParseError);
  });
});

describe("damage", () => {
  it("torn lines, malformed lines and a truncated tail are where the report says", async () => {
    const dir = tempDir();
    const clean = join(dir, "clean.jsonl");
    const damaged = join(dir, "damaged.jsonl");
    const cm = await generateSession(clean, { seed: 9, turns: 25 });
    const m = await generateSession(damaged, { seed: 9, turns: 25, damage: { tornLines: 3, malformedLines: 2, truncatedTail: true } });
    const report = m.damage;
    expect(report).toBeDefined();
    if (!report) return;
    const text = readFileSync(damaged, "utf8");
    expect(text.endsWith("\n")).toBe(false);
    const lines = text.split("\n");
    expect(report.tornLines.length).toBe(3);
    expect(report.malformedLines.length).toBe(2);
    expect(report.lostEntryIds.length).toBe(3 * 2 + 1);
    const parses = (l: string): boolean => {
      try {
        JSON.parse(l);
        return true;
      } catch {
        return false;
      }
    };
    for (const n of report.tornLines) {
      const l = lines[n - 1] ?? "";
      expect(parses(l)).toBe(false);
      expect(l.includes(`}{"type":`)).toBe(true);
    }
    for (const n of report.malformedLines) expect(parses(lines[n - 1] ?? "")).toBe(false);
    expect(parses(lines[lines.length - 1] ?? "")).toBe(false);
    const bad = lines.map((l, i) => (parses(l) ? -1 : i + 1)).filter((i) => i > 0);
    expect(bad).toEqual([...report.tornLines, ...report.malformedLines, lines.length].sort((a, b) => a - b));
    // Everything else is the clean file's content, and Pi loads all but the lost entries.
    const sm = openInPi(damaged);
    const loaded = new Set(sm.getEntries().map((e) => e.id));
    for (const id of report.lostEntryIds) expect(loaded.has(id)).toBe(false);
    expect(loaded.size).toBe(cm.entries - report.lostEntryIds.length);
  });

  it("refuses to tear more lines than the file has", async () => {
    await expect(generateSession(join(tempDir(), "x.jsonl"), { seed: 1, turns: 2, damage: { tornLines: 10_000 } })).rejects.toMatchObject({ code: "E_GEN_DAMAGE" });
  });
});

describe("replication", () => {
  it("grows a Pi-written base with fresh ids; Pi loads the whole tree and ends on the manifest's leaf", async () => {
    const file = join(tempDir(), "big.jsonl");
    const m = await generateSession(file, { seed: 3, size: 4 * 1024 * 1024, replication: { thresholdBytes: 1_600_000, baseBytes: 1_500_000 } });
    expect(m.replication).toBeDefined();
    expect(m.replication?.baseBytes).toBeLessThan(1_700_000);
    expect(m.bytes).toBeGreaterThanOrEqual(4 * 1024 * 1024);
    const entries = readEntries(file);
    expect(entries.length).toBe(m.entries);
    const ids = entries.map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    const toolCallIds = entries.flatMap((e) => {
      const msg = e.message as { role?: string; toolCallId?: string } | undefined;
      return msg?.role === "toolResult" && msg.toolCallId ? [msg.toolCallId] : [];
    });
    expect(new Set(toolCallIds).size).toBe(toolCallIds.length);
    const outputPaths = entries.flatMap((e) => {
      const msg = e.message as { details?: { fullOutputPath?: string } } | undefined;
      return msg?.details?.fullOutputPath ? [msg.details.fullOutputPath] : [];
    });
    expect(outputPaths.length).toBeGreaterThan(0);
    expect(new Set(outputPaths).size).toBe(outputPaths.length);
    const responseIds = entries.flatMap((e) => {
      const msg = e.message as { responseId?: string } | undefined;
      return msg?.responseId ? [msg.responseId] : [];
    });
    expect(new Set(responseIds).size).toBe(responseIds.length);
    const sm = openInPi(file);
    expect(sm.getEntries().length).toBe(entries.length);
    expect(sm.getLeafId()).toBe(m.leafId);
    const lineage = sm.getBranch();
    // The lineage runs from the last replica back through the base to the first entry.
    expect(lineage[0]?.parentId).toBeNull();
    for (const c of m.compactions) expect(lineage.some((e) => e.id === c.entryId)).toBe(true);
    for (const n of m.needles.filter((x) => x.onLineage)) expect(lineage.some((e) => e.id === n.entryId)).toBe(true);
    const times = entries.map((e) => Date.parse(String(e.timestamp)));
    for (let i = 1; i < times.length; i++) expect(times[i]).toBeGreaterThanOrEqual(times[i - 1] ?? 0);
  });
});
