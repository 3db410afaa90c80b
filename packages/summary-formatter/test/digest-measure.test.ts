// The digest's trimming measures its size without rendering (`measure`, from per-list line sizes): it must
// equal the rendered digest's UTF-8 size in every state trimming can reach, or the digest would trim
// differently from what it renders.
import type { DurableArtifacts, UserStatementFact } from "@context-fold/extractors";
import { buildDigest } from "@context-fold/summary-formatter";
import { describe, expect, it } from "vitest";
import { digestState, type Memo, measure, renderedBytes, sizesOf } from "../src/build-digest.js";

const said = (text: string, index: number): { text: string; index: number; turn: number } => ({ text, index, turn: index });

function artifacts(n: number): DurableArtifacts {
  return {
    initialPrompts: [said("Build the importer.\nKeep the CSV path — and the “quoted” one.", 0)],
    corrections: Array.from({ length: n }, (_, i) => said(`No, use ${"ü".repeat(i % 5)} option ${String(i)}\n  indented`, 10 + i)),
    errorLedger: Array.from({ length: n * 2 }, (_, i) => ({ text: `error ${String(i)}: ${"x".repeat(i * 7)}`, source: "tsc" as const, severity: "ERROR" as const, resolved: i % 3 === 0, index: 100 + i })),
    workingCommands: Array.from({ length: n }, (_, i) => ({ command: `pnpm test --filter p${String(i)}`, failedIndex: 200 + i, succeededIndex: 300 + i })),
    hexConstants: Array.from({ length: n }, (_, i) => ({ value: `0x${(0xbeef + i).toString(16)}`, index: 400 + i })),
    files: Array.from({ length: n }, (_, i) => `src/ünï/file-${String(i)}.ts`),
  } as unknown as DurableArtifacts;
}

const statements = (n: number): UserStatementFact[] =>
  Array.from({ length: n }, (_, i) => ({ text: `we ship on friday ${"é".repeat(i % 4)} ${String(i)}`, index: 500 + i, turn: i, count: 1 + (i % 3) }));

describe("digest measure", () => {
  it("equals the rendered size in every state trimming reaches (ends dropped, omissions counted, prompts clipped)", () => {
    for (const n of [0, 1, 3, 12]) {
      const s = digestState(artifacts(n), statements(n));
      const memo: Memo = { lines: new Map(), textBytes: new Map() };
      const sizes = sizesOf(s, memo);
      const check = (): void => expect(measure(s, memo, sizes)).toBe(renderedBytes(s, memo));
      check();
      // The steps' order and ends, one item at a time, checking after each.
      const drops: (() => boolean)[] = [
        () => (s.files.pop() !== undefined ? (s.omitted.files++, true) : false),
        () => (s.hex.pop() !== undefined ? (s.omitted.hexConstants++, true) : false),
        () => (s.commands.pop() !== undefined ? (s.omitted.workingCommands++, true) : false),
        () => (s.errors.pop() !== undefined ? (s.omitted.errorLedger++, true) : false),
        () => (s.statements.shift() !== undefined ? (s.omitted.statements++, true) : false),
        () => (s.corrections.shift() !== undefined ? (s.omitted.corrections++, true) : false),
      ];
      for (const drop of drops) while (drop()) check();
      const p = s.prompts[0];
      if (p !== undefined) {
        s.prompts[0] = { ...p, text: "Build … (clipped; recall #0)" };
        s.clipped.push(p.index);
        check();
      }
    }
  });

  it("keeps the digest within its budget as it trims", () => {
    for (const budget of [300, 400, 800, 1500]) {
      const d = buildDigest(artifacts(12), { budget, statements: statements(12) });
      expect(d.stats.estimatedTokens).toBeLessThanOrEqual(budget);
    }
  });
});
