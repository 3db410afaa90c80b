// The trimming loop sizes the bracketed summary after every step without rendering it whole: per section,
// made again only when the fields it reads were replaced. Its figure must be the rendered text's size at
// every step, or a summary could pass its budget by a stale count.
import { readSession } from "@context-fold/ledger-reader";
import { tempDir } from "@context-fold/test-support";
import { compactSession, fitToBudget, parseSummary, renderBrackets, utf8Bytes } from "@context-fold/summary-formatter";
import { describe, expect, it } from "vitest";
import { bracketsBytes } from "../src/render-brackets.js";
import { importerSession } from "./pi-session.js";

const NOW = "2026-03-01T10:00:00.000Z";

describe("bracketsBytes", () => {
  it("is the rendered summary's UTF-8 size at every trimming step, sections replaced one at a time", async () => {
    const w = importerSession(tempDir(), "Build the CSV importer for the billing service — every column kept, rejected rows logged (ünïcödé).", 60);
    const whole = compactSession(await readSession(w.file), { budget: 40_000, now: NOW });
    const doc = parseSummary(whole.summary);
    let steps = 0;
    const measure = (d: typeof doc): number => {
      steps++;
      const bytes = bracketsBytes(d);
      expect(bytes).toBe(utf8Bytes(renderBrackets(d)));
      // Asked again about the same doc: the remembered sizes still agree.
      expect(bracketsBytes(d)).toBe(bytes);
      return bytes;
    };
    const fitted = fitToBudget(doc, renderBrackets, 700, measure);
    expect(steps).toBeGreaterThan(3);
    expect(utf8Bytes(renderBrackets(fitted.doc))).toBeLessThanOrEqual(700 * 4);
    // A doc that differs from a measured one in one field only (an omission) is measured anew.
    const changed = { ...fitted.doc, statementsOmitted: { count: 99_999, what: "more user statements", recall: "user messages" } };
    expect(bracketsBytes(changed)).toBe(utf8Bytes(renderBrackets(changed)));
  });
});
