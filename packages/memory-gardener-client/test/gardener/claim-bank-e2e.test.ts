// The generated claim bank in a real local Hindsight bank: report, then capped apply runs until nothing
// is left to apply. No contradiction member, no look-alike and never both members of a near-duplicate
// pair end up invalidated; every near-duplicate pair loses exactly one member.
import { startLocalBank } from "@context-fold/hindsight-local";
import { HindsightClient, runGardener } from "@context-fold/memory-gardener-client";
import { tempDir } from "@context-fold/test-support";
import { describe, expect, it } from "vitest";
import { DEV_FRAMES, generateClaimBank } from "./claim-bank.js";

const NOW = "2026-11-20T12:00:00.000Z";
const BANK = "claims";

describe("the claim bank against a real local bank", () => {
  it("flags every contradiction, and capped apply runs retire one member of each near-duplicate pair only", async () => {
    const server = await startLocalBank({ port: 0 });
    try {
      const client = new HindsightClient({ baseUrl: server.url, backoffMs: 5, maxBackoffMs: 50 });
      const bank = generateClaimBank(2026, { frames: DEV_FRAMES, contradictions: 36, duplicates: 50, lookalikes: 1000, now: NOW });
      await client.createBank(BANK, {});
      for (let i = 0; i < bank.items.length; i += 250) await client.retain(BANK, bank.items.slice(i, i + 250));

      const report = await runGardener(client, { bankId: BANK, outDir: tempDir(), now: NOW });
      const flagged = report.contradictions.map((c) => c.members.map((m) => m.text).sort().join("\n"));
      for (const pair of bank.contradictions) expect(flagged).toContain([...pair].sort().join("\n"));
      expect(report.contradictions).toHaveLength(bank.contradictions.length);
      expect(report.actions.supersede).toBe(bank.duplicates.length);

      const ledger = { serverUrl: server.url, dir: tempDir() };
      const applied: number[] = [];
      for (let run = 0; run < 5; run++) {
        const r = await runGardener(client, { bankId: BANK, outDir: tempDir(), now: NOW, apply: true, ledger });
        expect(r.applied).toBeLessThanOrEqual(25);
        expect(r.failedApply).toEqual([]);
        applied.push(r.applied);
        if (r.applied === 0) break;
      }
      expect(applied).toEqual([25, 25, 0]);

      const invalidated = new Set<string>();
      for await (const m of client.listAll(BANK, { state: "invalidated" })) invalidated.add(m.text);
      expect(invalidated.size).toBe(bank.duplicates.length);
      for (const t of bank.contradictions.flat()) expect(invalidated.has(t)).toBe(false);
      for (const t of bank.lookalikes) expect(invalidated.has(t)).toBe(false);
      for (const [a, b] of bank.duplicates) expect(Number(invalidated.has(a)) + Number(invalidated.has(b))).toBe(1);
    } finally {
      await server.close();
    }
  });
});
