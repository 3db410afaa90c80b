// Runs every shipped conformance vector against the implementation: reader outcomes, union views,
// anchors, block text, codes and paths.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "@context-fold/test-support";
import {
  type Anchor,
  archivalUnion,
  blockLog,
  codeFor,
  currentView,
  formatAnchor,
  handoffPath,
  joinTextParts,
  assistantPartText,
  nextSeq,
  parseAnchor,
  readSeedIndexFile,
  seedIndexPath,
  sha256Hex,
  verifySpanText,
  type FoldIndexRecord,
  type ReadOutcome,
} from "@context-fold/seed-index-format";
import { describe, expect, it } from "vitest";
import { recordCases, vectors } from "./vectors.js";

function pointer(value: unknown, path: string): unknown {
  let at: unknown = value;
  for (const key of path.split("/").slice(1)) at = (at as Record<string, unknown>)[key.replaceAll("~1", "/").replaceAll("~0", "~")];
  return at;
}

describe("conformance: records.json", () => {
  const dir = tempDir("sif-conf-");
  const cases = recordCases();
  it("ships cases covering every outcome", () => {
    const seen = new Set(cases.flatMap((c) => c.expected.map((e) => e.outcome)));
    expect([...seen].sort()).toEqual(["invalid", "record", "retract", "skipped", "torn-tail"]);
  });
  cases.forEach((testCase, index) => {
    it(testCase.name, async () => {
      const file = join(dir, `case-${index}.jsonl`);
      writeFileSync(file, testCase.file);
      const { outcomes, exists } = await readSeedIndexFile(file);
      expect(exists).toBe(true);
      expect(outcomes.map((o) => ({ line: o.line, byteOffset: o.byteOffset, outcome: o.outcome }))).toEqual(
        testCase.expected.map((e) => ({ line: e.line, byteOffset: e.byteOffset, outcome: e.outcome })),
      );
      testCase.expected.forEach((e, i) => {
        const o = outcomes[i] as ReadOutcome;
        if (o.outcome === "skipped" || o.outcome === "invalid" || o.outcome === "torn-tail") expect(o.reason.length).toBeGreaterThan(0);
        if (e.errorPaths !== undefined) {
          expect(o.outcome).toBe("invalid");
          const paths = o.outcome === "invalid" ? (o.errors ?? []).map((err) => err.path) : [];
          for (const path of e.errorPaths) expect(paths).toContain(path);
        }
      });
      const lineOf = new Map<FoldIndexRecord, number>();
      for (const o of outcomes) if (o.outcome === "record") lineOf.set(o.record, o.line);
      if (testCase.current !== undefined) expect(currentView(outcomes).map((r) => lineOf.get(r))).toEqual(testCase.current);
      if (testCase.archival !== undefined) expect(archivalUnion(outcomes).map((r) => lineOf.get(r))).toEqual(testCase.archival);
      if (testCase.nextSeq !== undefined) expect(nextSeq(outcomes)).toBe(testCase.nextSeq);
      for (const p of testCase.preserved ?? []) {
        const o = outcomes[p.line - 1];
        expect(o?.outcome).toBe("record");
        if (o?.outcome === "record") expect(pointer(o.record, p.pointer)).toEqual(p.value);
      }
      for (const u of testCase.upgraded ?? []) {
        const o = outcomes[u.line - 1];
        expect(o?.outcome).toBe("record");
        if (o?.outcome === "record") {
          expect(o.record.spans).toEqual(u.spans);
          expect(o.upgradedFrom?.v).toBe(1);
        }
      }
    });
  });
});

describe("conformance: anchors.json", () => {
  const { valid, invalid } = vectors<{ valid: { text: string; anchor: Anchor }[]; invalid: { text: string; reason: string }[] }>("anchors.json");
  for (const v of valid) {
    it(`parses and formats ${JSON.stringify(v.text)}`, () => {
      expect(parseAnchor(v.text)).toEqual({ ok: true, anchor: v.anchor });
      expect(formatAnchor(v.anchor)).toBe(v.text);
    });
  }
  for (const v of invalid) {
    it(`rejects ${JSON.stringify(v.text)} (${v.reason})`, () => {
      const parsed = parseAnchor(v.text);
      expect(parsed.ok).toBe(false);
      if (!parsed.ok) expect(parsed.reason.length).toBeGreaterThan(0);
    });
  }
});

describe("conformance: block-text.json", () => {
  const { cases } = vectors<{ cases: { rule: string; content: unknown; text: string; bytes: number; lines: number; sha256: string }[] }>("block-text.json");
  cases.forEach((c, index) => {
    it(`${c.rule} #${index}`, () => {
      const text = c.rule.startsWith("assistant") ? assistantPartText(c.content) : joinTextParts(c.content);
      expect(text).toBe(c.text);
      expect(blockLog(c.text)).toEqual({ bytes: c.bytes, lines: c.lines });
      expect(sha256Hex(c.text)).toBe(c.sha256);
      expect(verifySpanText({ sha256: c.sha256, log: { bytes: c.bytes, lines: c.lines } }, c.text)).toEqual({ verified: true });
    });
  });
});

describe("conformance: codes.json", () => {
  const { cases } = vectors<{ cases: { blockId: string; code10: string; code12: string }[] }>("codes.json");
  for (const c of cases) {
    it(`codes of ${JSON.stringify(c.blockId)}`, () => {
      expect(codeFor(c.blockId)).toBe(c.code10);
      expect(codeFor(c.blockId, 12)).toBe(c.code12);
    });
  }
});

describe("conformance: paths.json", () => {
  const { cases, refused } = vectors<{ cases: { sessionFile: string; sessionId: string; seedIndex: string; handoff: string }[]; refused: string[] }>("paths.json");
  for (const c of cases) {
    it(`paths for ${c.sessionFile}`, () => {
      expect(seedIndexPath(c.sessionFile, c.sessionId)).toBe(c.seedIndex);
      expect(handoffPath(c.sessionFile, c.sessionId)).toBe(c.handoff);
    });
  }
  for (const id of refused) {
    it(`refuses session id ${JSON.stringify(id)}`, () => {
      expect(() => seedIndexPath("/x/s.jsonl", id)).toThrow(expect.objectContaining({ code: "INVALID_SESSION_ID" }));
    });
  }
});
