// parse(render(doc)) = doc for every document the builder can produce, and the parser's string scans
// stay linear on adversarial input.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LINEAR_TIME_MS } from "@context-fold/test-support";
import { emptyDoc, estimateTokens, parseSummary, renderBrackets, SummaryError, type SummaryDoc } from "@context-fold/summary-formatter";

const index = fc.nat({ max: 100_000 });
// One-line text: any characters except newline (the builder flattens these fields).
const oneLine = fc.string({ unit: "grapheme", maxLength: 60 }).map((s) => s.replaceAll("\n", " ").replaceAll("\r", " "));
// Verbatim text: anything, newlines included.
const verbatimText = fc.string({ unit: "grapheme", maxLength: 120 });
const noSep = oneLine.map((s) => s.replaceAll(", ", ",").replaceAll("]", ")")).filter((s) => s !== "" && !s.includes(", "));
const symbol = fc.stringMatching(/^[A-Za-z_$][\w$.]{0,15}$/);
const status = fc.constantFrom("modified" as const, "created" as const, "read" as const);
const omission = fc.record({ count: fc.nat({ max: 999 }), what: fc.constantFrom("more read files", "earlier turns", "more commits"), recall: fc.constantFrom("files", "turns", "#3–#9") });
const briefLine = fc
  .tuple(fc.constantFrom("[user] ", "[assistant] ", "* "), oneLine, index)
  .map(([tag, text, n]) => `${tag}${text} (#${String(n)})`);

const doc: fc.Arbitrary<SummaryDoc> = fc.record({
  goal: fc.option(fc.record({ text: verbatimText, index })),
  scopeChanges: fc.array(fc.record({ text: oneLine, index }), { maxLength: 3 }),
  scopeOmitted: fc.option(omission),
  preferences: fc.array(fc.record({ text: oneLine, index }), { maxLength: 3 }),
  corrections: fc.array(fc.record({ text: verbatimText, index }), { maxLength: 3 }),
  correctionsOmitted: fc.option(omission),
  statements: fc.array(fc.record({ text: oneLine, index, count: fc.integer({ min: 1, max: 99 }) }), { maxLength: 4 }),
  statementsOmitted: fc.option(omission),
  files: fc.array(
    fc.record({ status, path: oneLine.filter((p) => p.trim() !== ""), symbols: fc.array(symbol, { maxLength: 4 }), index }),
    { maxLength: 5 },
  ),
  filesOmitted: fc.array(omission, { maxLength: 2 }),
  commits: fc.array(fc.record({ hash: fc.stringMatching(/^[0-9a-f]{7,12}$/), subject: oneLine, index }), { maxLength: 4 }),
  commitsOmitted: fc.option(omission),
  anchors: fc.record({ commits: fc.array(noSep, { maxLength: 3 }), errors: fc.array(noSep, { maxLength: 3 }), files: fc.array(noSep, { maxLength: 3 }) }),
  previous: fc.array(
    fc.record({
      label: fc.constantFrom("compaction 1", "compaction 2", "file"),
      index: fc.option(index),
      lines: fc.array(oneLine, { maxLength: 5 }),
    }).map((p) => (p.label === "file" ? { ...p, index: null } : p.index === null ? { ...p, index: 0 } : p)),
    { maxLength: 2 },
  ),
  typeCatalog: fc.array(fc.record({ path: noSep, status, lines: fc.array(oneLine, { maxLength: 3 }) }), { maxLength: 3 }),
  typeCatalogOmitted: fc.option(omission),
  outstanding: fc.array(
    fc
      .record({ tag: fc.constantFrom("ERROR" as const, "WARN" as const, "INFO" as const, "RESOLVED" as const), label: noSep, text: oneLine, index, resolvedIndex: fc.option(index) })
      .map(({ resolvedIndex, ...o }) => (resolvedIndex === null ? o : { ...o, resolvedIndex })),
    { maxLength: 4 },
  ),
  outstandingOmitted: fc.option(omission),
  earlierTurns: fc.array(fc.record({ text: oneLine, index }), { maxLength: 4 }),
  earlierTurnsOmitted: fc.option(omission),
  status: fc.record({
    focus: fc.option(fc.record({ text: oneLine, index })),
    lastAction: fc.option(fc.record({ text: oneLine, index })),
    next: fc.array(oneLine, { maxLength: 3 }),
  }),
  brief: fc.array(briefLine, { maxLength: 6 }),
  briefOmitted: fc.option(omission),
  footer: fc.record({
    at: fc.constantFrom("2026-03-01T09:00:00.000Z", "2025-12-09T01:26:35.570Z"),
    messages: fc.nat(),
    windowTokens: fc.nat(),
    summaryTokens: fc.nat(),
    tailMessages: fc.nat(),
    tailTokens: fc.nat(),
    range: fc.option(fc.record({ from: index, to: index })),
  }),
});

describe("parseSummary(renderBrackets(doc))", () => {
  it("returns the document exactly (property)", () => {
    fc.assert(
      fc.property(doc, (d) => {
        expect(parseSummary(renderBrackets(d))).toEqual(d);
      }),
      { numRuns: 400, seed: 20261129 },
    );
  });

  it("keeps hard-to-split values apart: paths ending in ')', refs inside text, section titles inside verbatim text", () => {
    const base = parseSummary(renderBrackets({ ...emptyish(), goal: { text: "fix it\n[Commits]\n---\n- [Scope change] x (#3)", index: 0 } }));
    expect(base.goal?.text).toBe("fix it\n[Commits]\n---\n- [Scope change] x (#3)");
    const files = [
      { status: "read" as const, path: "src/a (b).ts", symbols: [], index: 4 },
      { status: "modified" as const, path: "src/x (y)", symbols: ["z"], index: 5 },
      { status: "created" as const, path: "odd ()", symbols: [], index: 6 },
    ];
    expect(parseSummary(renderBrackets({ ...emptyish(), files })).files).toEqual(files);
    const outstanding = [{ tag: "ERROR" as const, label: "bash:exit 1", text: "failed (#3 → #4) (#9)", index: 10 }];
    expect(parseSummary(renderBrackets({ ...emptyish(), outstanding })).outstanding).toEqual(outstanding);
  });

  it("rejects text it did not write, with a typed error naming the line", () => {
    expect(() => parseSummary("## Goal\nsomething")).toThrow(SummaryError);
    const broken = renderBrackets({ ...emptyish(), commits: [{ hash: "abc1234", subject: "s", index: 1 }] }).replace("(#1)", "(#x)");
    try {
      parseSummary(broken);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(SummaryError);
      expect((error as SummaryError).code).toBe("SUMMARY_PARSE");
      expect((error as SummaryError).line).toBeGreaterThan(1);
    }
  });

  it("parses adversarial 1 MB lines in linear time", { timeout: LINEAR_TIME_MS }, () => {
    const big = "(".repeat(1 << 20);
    const d = { ...emptyish(), earlierTurns: [{ text: big, index: 1 }], files: [{ status: "read" as const, path: `${" (".repeat(1 << 19)})`, symbols: [], index: 2 }] };
    const text = renderBrackets(d);
    const start = performance.now();
    expect(parseSummary(text)).toEqual(d);
    // Generous bound: a quadratic scan of 1 MB would take minutes.
    expect(performance.now() - start).toBeLessThan(5000);
    expect(() => parseSummary(`[context-fold summary v1]\n\n---\nCompacted at ${"9".repeat(1 << 20)}`)).toThrow(SummaryError);
  });

  it("estimates tokens as ceil(UTF-8 bytes / 4)", () => {
    expect(estimateTokens("")).toBe(0);
    expect(estimateTokens("abcde")).toBe(2);
    expect(estimateTokens("é")).toBe(1);
    expect(estimateTokens("€€€€")).toBe(3);
  });
});

function emptyish(): SummaryDoc {
  return emptyDoc({ at: "2026-03-01T09:00:00.000Z", messages: 1, windowTokens: 10, summaryTokens: 5, tailMessages: 1, tailTokens: 3, range: { from: 0, to: 4 } });
}
