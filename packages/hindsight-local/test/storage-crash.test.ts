// Crash injection at every write of the journal and snapshot, through a file layer that cuts a write
// short, fails with ENOSPC, or "dies" between two calls: every acknowledged change survives, a change
// that was refused never appears, and the next start names what it found.
import { readdirSync } from "node:fs";
import { faultyFs, type FaultKind, SimulatedCrash, tempDir } from "@context-fold/test-support";
import { describe, expect, it } from "vitest";
import { BankStore, type RetainInput } from "../src/bank-store.js";
import { SnapshotFailedError } from "../src/errors.js";
import type { StoredMemory } from "../src/records.js";

const NOW = "2026-01-02T03:04:05.000Z";
const item = (content: string): RetainInput => ({ content, timestamp: NOW, context: null, metadata: {}, documentId: null, entities: [], tags: [] });

interface Outcome {
  readonly acknowledged: Map<string, StoredMemory>;
  /** The change in flight when the process died: it may or may not have reached the disk. */
  readonly inFlight: Map<string, StoredMemory>;
  readonly crashed: boolean;
  readonly calls: number;
  readonly log: readonly string[];
}

/** A fixed workload: an existing bank reopened, retains, curations, two snapshots on the way, close. */
function workload(dir: string, failAt: number, kind: FaultKind): Outcome {
  const fs = faultyFs(failAt, kind, 2);
  const acknowledged = new Map<string, StoredMemory>();
  const inFlight = new Map<string, StoredMemory>();
  const run = (step: () => void): boolean => {
    try {
      step();
      return true;
    } catch (error) {
      if (error instanceof SimulatedCrash || fs.crashed) return false;
      // ENOSPC or a short write: refused, nothing acknowledged; the disk frees up for later steps.
      return true;
    }
  };
  let store: BankStore;
  try {
    store = new BankStore(dir, fs, 7);
  } catch {
    return { acknowledged, inFlight, crashed: fs.crashed, calls: fs.calls, log: fs.log };
  }
  for (let batch = 0; batch < 6 && !fs.crashed; batch++) {
    const ok = run(() => {
      for (const memory of store.retain("b", [item(`batch ${String(batch)} a`), item(`batch ${String(batch)} b ${"x".repeat(200)}`)], NOW)) acknowledged.set(memory.id, memory);
    });
    if (!ok) break;
    const target = [...acknowledged.values()][batch];
    if (target === undefined) continue;
    if (
      !run(() => {
        const next = store.patch("b", target.id, { state: "invalidated", reason: `r${String(batch)}` }, NOW, true);
        if (next.kind === "ok") inFlight.set(target.id, next.memory);
        const out = store.patch("b", target.id, { state: "invalidated", reason: `r${String(batch)}` }, NOW, false);
        if (out.kind === "ok") acknowledged.set(target.id, out.memory);
        inFlight.clear();
      })
    )
      break;
  }
  if (!fs.crashed) {
    try {
      store.close();
    } catch (error) {
      if (!(error instanceof SimulatedCrash)) expect(error).toBeInstanceOf(SnapshotFailedError);
    }
  }
  return { acknowledged, inFlight, crashed: fs.crashed, calls: fs.calls, log: fs.log };
}

function seed(dir: string): Map<string, StoredMemory> {
  const store = new BankStore(dir);
  const made = store.retain("b", [item("from before 1"), item("from before 2")], NOW);
  store.close();
  return new Map(made.map((m) => [m.id, m]));
}

describe("journal and snapshot under injected faults", () => {
  const clean = (() => {
    const dir = tempDir("hl-crash-");
    seed(dir);
    return workload(dir, 0, "crash");
  })();

  it("the workload writes through both the journal and the snapshot", () => {
    expect(clean.calls).toBeGreaterThan(30);
    expect(clean.log.some((l) => l.startsWith("rename"))).toBe(true);
    expect(clean.log.some((l) => l.includes("journal.jsonl"))).toBe(true);
  });

  for (const kind of ["short-write", "enospc", "crash"] as const) {
    it(`a ${kind} at each of the workload's writes loses nothing acknowledged`, () => {
      for (let at = 1; at <= clean.calls; at++) {
        const dir = tempDir("hl-crash-");
        const before = seed(dir);
        const outcome = workload(dir, at, kind);
        const where = `${kind} at call ${String(at)} (${outcome.log[at - 1] ?? "?"})`;
        const reopened = new BankStore(dir);
        for (const [id, memory] of [...before, ...outcome.acknowledged]) {
          const expected = outcome.acknowledged.get(id) ?? memory;
          const found = reopened.get("b", id);
          const pending = outcome.inFlight.get(id);
          if (pending !== undefined && outcome.crashed && JSON.stringify(found) === JSON.stringify(pending)) continue;
          expect(found, where).toEqual(expected);
        }
        if (!outcome.crashed) {
          // Nothing refused was stored: exactly the acknowledged memories are there.
          const stored = reopened.select("b", { type: null, q: null, state: "valid", tags: null, tagsMatch: "any", documentId: null }).length +
            reopened.select("b", { type: null, q: null, state: "invalidated", tags: null, tagsMatch: "any", documentId: null }).length;
          expect(stored, where).toBe(new Set([...before.keys(), ...outcome.acknowledged.keys()]).size);
          expect(reopened.damage, where).toEqual([]);
        } else {
          // A crash may leave a cut last line: reported, and never as "nothing lost".
          for (const d of reopened.damage) expect(d.lost, where).toBe("unknown");
        }
        reopened.close();
        expect(readdirSync(dir).filter((n) => n.endsWith(".tmp")), where).toEqual([]);
      }
    }, 120_000);
  }
});
