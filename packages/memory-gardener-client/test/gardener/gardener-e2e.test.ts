import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "@context-fold/test-support";
import { applyCandidates, ledgerFileFor, readActions, renderReport, runGardener, type GardenerProgress } from "@context-fold/memory-gardener-client";
import { formatScore, scoreActions } from "./bank-scoring.js";
import { BANK, NOW, loadExampleBank, stateOf, type LoadedBank } from "./load-bank.js";

describe("the gardener against a real local bank (report only)", () => {
  let loaded: LoadedBank;
  beforeAll(async () => {
    loaded = await loadExampleBank(11, 600);
  });
  afterAll(async () => {
    await loaded.server.close();
  });

  it("finds the planted clusters, changes nothing, and flags contradictions for human review", async () => {
    const { client, bank, idOf } = loaded;
    const outDir = tempDir();
    const report = await runGardener(client, { bankId: BANK, outDir, mode: "recent", now: NOW, shardSize: 120 });
    const actions = readActions(outDir).actions;
    const score = scoreActions(actions, bank.truth);
    console.log(formatScore(`e2e report-only, ${bank.items.length} memories`, score));
    for (const kind of ["near_duplicate", "contradiction", "expired_ephemera"] as const) {
      expect(score[kind].expected).toBeGreaterThan(5);
      expect(score[kind].precision).toBeGreaterThanOrEqual(0.95);
      expect(score[kind].recall).toBeGreaterThanOrEqual(0.9);
    }
    // Invalidated rows and observations never reach the manifest.
    const manifest = JSON.parse(readFileSync(join(outDir, "manifest.json"), "utf8")) as { entries: { id: string }[] };
    const inManifest = new Set(manifest.entries.map((e) => e.id));
    for (const t of [...bank.truth.toInvalidate, ...bank.truth.observations]) expect(inManifest.has(idOf.get(t) ?? "")).toBe(false);
    expect(report.manifest.fetched).toBe(bank.items.length - bank.truth.toInvalidate.length - bank.truth.observations.length);
    expect(report.applied).toBe(0);
    // The canonical dispute is flagged with both members, never resolved.
    const auth = report.contradictions.find((c) => c.members.some((m) => m.text.includes("/v1/auth")));
    expect(auth?.members.map((m) => m.text).sort()).toEqual(["The auth endpoint is /v1/auth.", "The auth endpoint moved to /v2/auth."]);
    expect(report.actions.flag_contradiction).toBe(bank.truth.contradictionGroups.flat().length);
    const text = renderReport(report);
    expect(text).toContain("Contradictions flagged (human review required):");
    expect(text).toContain("/v2/auth");
    expect(readFileSync(join(outDir, "report.txt"), "utf8")).toBe(text);
    // Report-only: every planted memory is still valid.
    for (const t of [...bank.truth.expiredEphemera, ...bank.truth.duplicateGroups.flat()]) expect(await stateOf(client, idOf.get(t) ?? "")).toBe("valid");
  });

  it("is deterministic: the same bank and now give the same report", async () => {
    const a = await runGardener(loaded.client, { bankId: BANK, outDir: tempDir(), now: NOW, shardSize: 120 });
    const b = await runGardener(loaded.client, { bankId: BANK, outDir: tempDir(), now: NOW, shardSize: 120 });
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
  });

  it("samples by probe (ids deduped across probes) and by window (inclusive, client-side)", async () => {
    const { client, idOf } = loaded;
    const probe = await runGardener(client, { bankId: BANK, outDir: tempDir(), mode: "probe", probes: ["auth endpoint", "auth endpoint /v2/auth"], now: NOW });
    expect(probe.contradictions.some((c) => c.members.some((m) => m.id === idOf.get("The auth endpoint is /v1/auth.")))).toBe(true);
    const outDir = tempDir();
    await runGardener(client, { bankId: BANK, outDir, mode: "window", from: "2026-10-21", to: "2026-11-20", now: NOW });
    const manifest = JSON.parse(readFileSync(join(outDir, "manifest.json"), "utf8")) as { entries: { date: string }[]; fetched: number };
    expect(manifest.fetched).toBeGreaterThan(0);
    for (const e of manifest.entries) {
      expect(e.date >= "2026-10-21").toBe(true);
      expect(e.date <= "2026-11-20T23:59:59.999Z").toBe(true);
    }
  });

  it("resumes from the last finished phase", async () => {
    const outDir = tempDir();
    const events: GardenerProgress[] = [];
    let crashed = false;
    await expect(runGardener(loaded.client, {
      bankId: BANK, outDir, now: NOW, shardSize: 120,
      onProgress: (e) => {
        if (e.phase === "shards" && e.status === "done") {
          crashed = true;
          throw new Error("simulated crash after the shard phase");
        }
      },
    })).rejects.toThrow("simulated crash");
    expect(crashed).toBe(true);
    const manifestBefore = readFileSync(join(outDir, "manifest.json"), "utf8");
    const report = await runGardener(loaded.client, { bankId: BANK, outDir, now: NOW, shardSize: 120, onProgress: (e) => void events.push(e) });
    expect(events.slice(0, 3)).toEqual([{ phase: "manifest", status: "resumed" }, { phase: "shards", status: "resumed" }, { phase: "judge", status: "done" }]);
    expect(readFileSync(join(outDir, "manifest.json"), "utf8")).toBe(manifestBefore);
    expect(report.clusters.contradiction).toBeGreaterThan(0);
    await expect(runGardener(loaded.client, { bankId: BANK, outDir, now: "2026-12-01T00:00:00Z" })).rejects.toMatchObject({ code: "GARDENER_STATE" });
  });
});

describe("the gardener's apply against a real local bank", () => {
  it("invalidates at most 25, only planted losers or expired ephemera, verified; contradictions, observations and fresh ephemera untouched", async () => {
    const loaded = await loadExampleBank(23, 700);
    try {
      const { client, bank, idOf, textOf } = loaded;
      const outDir = tempDir();
      const report = await runGardener(client, { bankId: BANK, outDir, now: NOW, apply: true, ledger: { serverUrl: loaded.server.url, dir: tempDir() } });
      expect(report.applied).toBeGreaterThan(0);
      expect(report.applied).toBeLessThanOrEqual(25);
      expect(report.failedApply).toEqual([]);
      const invalidated: string[] = [];
      for await (const m of client.listAll(BANK, { state: "invalidated" })) invalidated.push(m.id);
      const retiredBefore = new Set(bank.truth.toInvalidate.map((t) => idOf.get(t)));
      const byGardener = invalidated.filter((id) => !retiredBefore.has(id));
      expect(byGardener.length).toBe(report.applied);
      const allowed = new Set([...bank.truth.duplicateGroups.flat(), ...bank.truth.expiredEphemera]);
      for (const id of byGardener) expect(allowed.has(textOf.get(id) ?? "")).toBe(true);
      // Each duplicate group keeps at least one valid member.
      for (const group of bank.truth.duplicateGroups) {
        const states = await Promise.all(group.map((t) => stateOf(client, idOf.get(t) ?? "")));
        expect(states).toContain("valid");
      }
      for (const t of [...bank.truth.contradictionGroups.flat(), ...bank.truth.freshEphemera]) expect(await stateOf(client, idOf.get(t) ?? "")).toBe("valid");
      for (const t of bank.truth.observations) expect(await stateOf(client, idOf.get(t) ?? "")).toBe("valid");
      // The reason names the gardener and the run's now.
      const one = await client.getMemory(BANK, byGardener[0] ?? "");
      expect(one.invalidationReason).toContain(`context-fold garden ${NOW}`);
    } finally {
      await loaded.server.close();
    }
  });

  it("survives 429/500 (retried) and lists a PATCH that does not stick in failedApply, not applied", async () => {
    const loaded = await loadExampleBank(31, 600);
    try {
      const { client, server } = loaded;
      // Faults in every phase that talks to the bank: listing, fetching by id, patching.
      server.faults.set({ status429: 2, status500: 1 });
      const report = await runGardener(client, {
        bankId: BANK, outDir: tempDir(), now: NOW, apply: true, maxApply: 10, ledger: { serverUrl: loaded.server.url, dir: tempDir() },
        onProgress: (e) => {
          if (e.phase === "manifest" && e.status === "done") server.faults.set({ status500: 2, status429: 1 });
          if (e.phase === "judge" && e.status === "done") server.faults.set({ status429: 1, patchNoop: 2 });
        },
      });
      const counters = server.faults.counters();
      expect(counters.injected429).toBe(4);
      expect(counters.injected500).toBe(3);
      expect(counters.patchNoops).toBe(2);
      expect(report.failedApply).toHaveLength(2);
      for (const f of report.failedApply) {
        expect(f.status).toBe(200);
        expect(f.detail).toContain("re-GET shows state \"valid\"");
        expect(await stateOf(client, f.id)).toBe("valid");
      }
      expect(report.applied).toBe(8);
      expect(renderReport(report)).toContain("Failed apply (not counted as applied):");
    } finally {
      await loaded.server.close();
    }
  });

  it("reports the API's detail when a PATCH is rejected", async () => {
    const loaded = await loadExampleBank(37, 600);
    try {
      const { client, server } = loaded;
      // Exhaust the client's retries on the first PATCH with 500s.
      const outDir = tempDir();
      await runGardener(client, { bankId: BANK, outDir, now: NOW });
      // The first candidate's first request (the PATCH, or for a supersede the survivor check) fails
      // through all the client's retries. Bank ids are random, so which kind comes first varies.
      const first = applyCandidates(readActions(outDir).actions)[0];
      server.faults.set({ status500: 4 });
      const report = await runGardener(client, { bankId: BANK, outDir, now: NOW, apply: true, maxApply: 3, ledger: { serverUrl: loaded.server.url, dir: tempDir() } });
      expect(report.failedApply).toHaveLength(1);
      expect(report.failedApply[0]?.id).toBe(first?.id);
      expect(report.failedApply[0]?.status).toBe(500);
      expect(report.failedApply[0]?.detail).toContain("Internal Server Error");
      // A failed PATCH counts toward the cap; a supersede never sent does not.
      expect(report.applied).toBe(first?.action === "expire" ? 2 : 3);
    } finally {
      await loaded.server.close();
    }
  });

  it("never exceeds the cap across a crash between apply batches: the ledger resumes the run, then a new run starts", async () => {
    const loaded = await loadExampleBank(41, 900);
    try {
      const { client, bank, idOf } = loaded;
      const ledger = { serverUrl: loaded.server.url, dir: tempDir() };
      await expect(runGardener(client, {
        bankId: BANK, outDir: tempDir(), now: NOW, apply: true, maxApply: 12, ledger,
        onProgress: (e) => {
          if (e.phase === "apply" && e.status === "batch" && e.batch === 1) throw new Error("simulated crash between apply batches");
        },
      })).rejects.toThrow("simulated crash");
      const file = ledgerFileFor(ledger.dir, { serverUrl: ledger.serverUrl, bankId: BANK });
      const state = JSON.parse(readFileSync(file, "utf8")) as { runs: { run: number; attempted: string[]; completedAt: string | null }[] };
      expect(state.runs).toHaveLength(1);
      expect(state.runs[0]?.attempted).toHaveLength(10);
      expect(state.runs[0]?.completedAt).toBeNull();
      // A fresh output directory (the phases recomputed, the bank already changed): the ledger, not the
      // directory, carries the count.
      const report = await runGardener(client, { bankId: BANK, outDir: tempDir(), now: NOW, apply: true, maxApply: 12, ledger });
      expect(report.applied).toBe(12);
      expect(report.context.run).toMatchObject({ number: 1, resumed: true, attempted: 12 });
      expect(renderReport(report)).toContain("run 1 (resumed after an interruption), 12 of its cap of 12 memories attempted so far");
      const retired = new Set(bank.truth.toInvalidate.map((t) => idOf.get(t)));
      const countByGardener = async (): Promise<number> => {
        let n = 0;
        for await (const m of client.listAll(BANK, { state: "invalidated" })) if (!retired.has(m.id)) n++;
        return n;
      };
      expect(await countByGardener()).toBe(12);
      // The run completed: the next --apply is run 2 with a cap of its own.
      const again = await runGardener(client, { bankId: BANK, outDir: tempDir(), now: NOW, apply: true, maxApply: 12, ledger });
      expect(again.context.run).toMatchObject({ number: 2, resumed: false });
      expect(again.applied).toBeLessThanOrEqual(12);
      expect(await countByGardener()).toBe(12 + again.applied);
    } finally {
      await loaded.server.close();
    }
  });

  it("--new-run closes an unfinished run; a ledger that cannot be read or written refuses apply before any PATCH", async () => {
    const loaded = await loadExampleBank(47, 600);
    try {
      const { client } = loaded;
      const ledger = { serverUrl: loaded.server.url, dir: tempDir() };
      await expect(runGardener(client, {
        bankId: BANK, outDir: tempDir(), now: NOW, apply: true, maxApply: 10, ledger,
        onProgress: (e) => {
          if (e.phase === "apply" && e.status === "batch") throw new Error("killed");
        },
      })).rejects.toThrow("killed");
      const fresh = await runGardener(client, { bankId: BANK, outDir: tempDir(), now: NOW, apply: true, maxApply: 2, ledger: { ...ledger, newRun: true } });
      expect(fresh.context.run).toMatchObject({ number: 2, resumed: false, attempted: 2 });

      const invalidatedNow = async (): Promise<number> => {
        let n = 0;
        for await (const m of client.listAll(BANK, { state: "invalidated" })) if (m.id !== "") n++;
        return n;
      };
      const before = await invalidatedNow();
      const corrupt = tempDir();
      writeFileSync(ledgerFileFor(corrupt, { serverUrl: ledger.serverUrl, bankId: BANK }), "{ not json");
      await expect(runGardener(client, { bankId: BANK, outDir: tempDir(), now: NOW, apply: true, ledger: { serverUrl: ledger.serverUrl, dir: corrupt } })).rejects.toMatchObject({ code: "GARDENER_LEDGER" });
      // A ledger folder that is a file cannot be written, whoever runs the test.
      const blocked = join(tempDir(), "not-a-dir");
      writeFileSync(blocked, "");
      await expect(runGardener(client, { bankId: BANK, outDir: tempDir(), now: NOW, apply: true, ledger: { serverUrl: ledger.serverUrl, dir: blocked } })).rejects.toMatchObject({ code: "GARDENER_LEDGER" });
      expect(await invalidatedNow()).toBe(before);
      // Report-only runs never touch the ledger.
      await runGardener(client, { bankId: BANK, outDir: tempDir(), now: NOW, ledger: { serverUrl: ledger.serverUrl, dir: blocked } });
    } finally {
      await loaded.server.close();
    }
  });

  it("does not supersede a memory whose survivor is no longer valid", async () => {
    const loaded = await loadExampleBank(43, 600);
    try {
      const { client } = loaded;
      const outDir = tempDir();
      await runGardener(client, { bankId: BANK, outDir, now: NOW });
      const supersede = applyCandidates(readActions(outDir).actions).find((a) => a.action === "supersede");
      expect(supersede?.survivorId).toBeDefined();
      await client.patchMemory(BANK, supersede?.survivorId ?? "", { state: "invalidated", reason: "retired by a human meanwhile" });
      const report = await runGardener(client, { bankId: BANK, outDir, now: NOW, apply: true, ledger: { serverUrl: loaded.server.url, dir: tempDir() } });
      const failed = report.failedApply.find((f) => f.id === supersede?.id);
      expect(failed?.detail).toContain("not sent: its survivor");
      expect(await stateOf(client, supersede?.id ?? "")).toBe("valid");
      // Not sent, so not counted by the cap: the run still applied a full 25.
      expect(report.applied).toBe(25);
    } finally {
      await loaded.server.close();
    }
  });

  it("refuses a cap above 25", async () => {
    const loaded = await loadExampleBank(5, 500);
    try {
      await expect(runGardener(loaded.client, { bankId: BANK, outDir: tempDir(), now: NOW, apply: true, maxApply: 26, ledger: { serverUrl: loaded.server.url, dir: tempDir() } })).rejects.toMatchObject({ code: "GARDENER_OPTIONS" });
    } finally {
      await loaded.server.close();
    }
  });
});
