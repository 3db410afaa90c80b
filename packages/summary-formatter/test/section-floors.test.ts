// Budget sharing between sections on a session written by Pi's SessionManager: when higher-ranked
// sections (user statements, written files, commits) could fill the whole budget, each lower-ranked
// section still keeps its floor — the open failures are named, not only counted.
import { readSession } from "@context-fold/ledger-reader";
import { tempDir } from "@context-fold/test-support";
import { compactSession, estimateTokens, parseSummary } from "@context-fold/summary-formatter";
import { describe, expect, it } from "vitest";
import { piWriter } from "./pi-session.js";

const NOW = "2026-03-01T10:00:00.000Z";

async function crowdedSession(): Promise<ReturnType<typeof readSession>> {
  const w = piWriter(tempDir());
  w.user("Port the billing module to the new ledger API and keep every public function's signature.");
  for (let i = 0; i < 30; i++) {
    const id = `e${String(i)}`;
    w.assistant([{ type: "toolCall", id, name: "edit", arguments: { path: `src/billing/module-${String(i)}.ts`, oldText: "a", newText: "b" } }]);
    w.result(id, "edit", `Successfully replaced text in src/billing/module-${String(i)}.ts.`);
    w.user(`module ${String(i)} must keep reading the invoice totals from ledger account ${String(1000 + i)}, the finance team reconciles them nightly`);
  }
  // Two checks that fail and are never fixed: the open failures a continuation must see.
  w.assistant([{ type: "toolCall", id: "t1", name: "bash", arguments: { command: "pnpm exec tsc --noEmit" } }]);
  w.result("t1", "bash", "src/billing/ledger.ts(12,5): error TS2322: Type 'Cents' is not assignable to type 'number'.\n\nCommand exited with code 2", true);
  w.assistant([{ type: "toolCall", id: "t2", name: "bash", arguments: { command: "pnpm test" } }]);
  w.result("t2", "bash", " FAIL  test/billing.test.ts > totals match the ledger\nTests  1 failed | 9 passed\n\nCommand exited with code 1", true);
  w.assistant([{ type: "text", text: "Both checks still fail; the ledger types need a Cents conversion." }]);
  w.user("ok");
  return readSession(w.file);
}

describe("section floors", () => {
  it("names open failures within the budget when statements, files and commits could take all of it", async () => {
    const session = await crowdedSession();
    for (const budget of [1200, 1600]) {
      const r = compactSession(session, { now: NOW, budget });
      expect(estimateTokens(r.summary)).toBeLessThanOrEqual(budget);
      const doc = parseSummary(r.summary);
      // The failures are named (the ERRORs first), what the floor left out is counted with a pointer.
      const errors = doc.outstanding.filter((o) => o.tag === "ERROR");
      expect(errors.length, r.summary).toBeGreaterThan(0);
      const named = doc.outstanding.length + (doc.outstandingOmitted?.count ?? 0);
      expect(named).toBeGreaterThanOrEqual(2);
      if (doc.outstandingOmitted !== null) expect(r.summary).toContain(`- … and ${String(doc.outstandingOmitted.count)} more outstanding items (recall: errors)`);
      // The sections above it in rank still have theirs: statements and written files are named, the rest counted.
      expect(doc.statements.length).toBeGreaterThan(0);
      expect(doc.files.filter((f) => f.status !== "read").length).toBeGreaterThan(0);
      expect(compactSession(session, { now: NOW, budget })).toEqual(r);
    }
  });

});
