// Containment dedupe of user statements is bounded: a new statement is compared with the latest
// CONTAINMENT_WINDOW distinct ones, so many messages never cost a quadratic number of comparisons.
import { describe, expect, it } from "vitest";
import { CONTAINMENT_WINDOW, StatementLedger } from "../../src/facts/statement-ledger.js";

const stmt = (text: string, index: number) => ({ text, turn: index, index });

describe("statement ledger containment window", () => {
  it("folds a statement into one it contains within the window, not beyond it; equal ones always", () => {
    const ledger = new StatementLedger();
    ledger.add(stmt("keep the staging database on port 5433", 0));
    for (let i = 1; i <= CONTAINMENT_WINDOW; i++) ledger.add(stmt(`distinct request number ${String(i)} about module m${String(i)}`, i));
    // Contained in the first statement, which is now just outside the window: listed on its own.
    ledger.add(stmt("the staging database on port 5433", 1000));
    // Equal (after normalisation) to the first: counted there however far back it is.
    ledger.add(stmt("Keep the staging database on port 5433!", 1001));
    // Contained in a statement inside the window: folded into it.
    ledger.add(stmt(`distinct request number ${String(CONTAINMENT_WINDOW)}`, 1002));
    const snap = ledger.snapshot();
    expect(snap.find((s) => s.index === 0)?.count).toBe(2);
    expect(snap.some((s) => s.index === 1000)).toBe(true);
    expect(snap.find((s) => s.index === CONTAINMENT_WINDOW)?.count).toBe(2);
    expect(snap).toHaveLength(CONTAINMENT_WINDOW + 2);
  });
});
