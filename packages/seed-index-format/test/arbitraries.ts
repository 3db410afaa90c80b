// fast-check generators for valid records, retractions and ids with the awkward characters.
import fc from "fast-check";
import { codeFor, formatAnchor, HARNESS, type Anchor, type FoldIndexRecord, type FoldRetractRecord, type Span } from "@context-fold/seed-index-format";

const idChars = fc.constantFrom(..."abcXYZ019:|_-p.é".split(""));
/** Ids built mostly from the characters the grammar must carry through (`:`, `|`, `_`, `-`). */
export const awkwardId = fc.string({ unit: idChars, minLength: 1, maxLength: 24 });
export const editId = fc.oneof(
  fc.stringMatching(/^[0-9a-f]{8}$/),
  fc.uuid().map((u) => u.toLowerCase()),
);

export const anchorArb: fc.Arbitrary<Anchor> = fc
  .tuple(
    fc.oneof(
      awkwardId.map((toolCallId): Anchor => ({ kind: "result", toolCallId })),
      fc.tuple(awkwardId, fc.nat({ max: 10_000 })).map(([responseId, part]): Anchor => ({ kind: "part", responseId, part })),
    ),
    fc.option(editId, { nil: undefined }),
  )
  .map(([anchor, edit]) => (edit === undefined ? anchor : { ...anchor, editId: edit }));

const iso = fc.date({ min: new Date("2000-01-01T00:00:00Z"), max: new Date("2100-01-01T00:00:00Z"), noInvalidDate: true }).map((d) => d.toISOString());
const hex64 = fc.stringMatching(/^[0-9a-f]{64}$/);

const spanArb: fc.Arbitrary<Span> = fc
  .record({
    anchor: anchorArb,
    tool: fc.option(fc.constantFrom("bash", "read", "edit"), { nil: undefined }),
    turn: fc.nat({ max: 500 }),
    bytes: fc.nat(),
    lines: fc.nat(),
    sha256: fc.option(hex64, { nil: undefined }),
    fullOutputPath: fc.option(fc.constant("/tmp/tool-output/x.txt"), { nil: undefined }),
  })
  .map((s) => {
    const blockId = formatAnchor(s.anchor);
    const span: Span = { blockId, code: codeFor(blockId), turn: s.turn, log: { bytes: s.bytes, lines: s.lines } };
    if (s.tool !== undefined) span.tool = s.tool;
    if (s.sha256 !== undefined) span.sha256 = s.sha256;
    if (s.fullOutputPath !== undefined && s.anchor.editId === undefined) span.fullOutputPath = s.fullOutputPath;
    return span;
  });

export const recordArb = (seq: fc.Arbitrary<number> = fc.nat({ max: 20 })): fc.Arbitrary<FoldIndexRecord> =>
  fc
    .record({
      session: fc.string(),
      seq,
      at: iso,
      trigger: fc.constantFrom("threshold" as const, "cap" as const, "compact" as const),
      usage: fc.option(fc.record({ tokens: fc.nat(), contextWindow: fc.integer({ min: 1, max: 2_000_000 }), fraction: fc.double({ min: 0, max: 2, noNaN: true }) }), { nil: undefined }),
      files: fc.array(fc.string()),
      commands: fc.array(fc.string()),
      errors: fc.array(fc.string()),
      identifiers: fc.array(fc.string()),
      userMessages: fc.array(fc.record({ turn: fc.nat({ max: 500 }), firstLine: fc.string({ maxLength: 200 }) })),
      spans: fc.array(spanArb, { maxLength: 4 }),
      extra: fc.option(fc.jsonValue(), { nil: undefined }),
    })
    .map(({ usage, extra, ...rest }) => {
      const record: FoldIndexRecord = { v: 2, kind: "fold-index", harness: HARNESS, ...rest };
      if (usage !== undefined) record.usage = usage;
      if (extra !== undefined) (record as Record<string, unknown>)["x-extra"] = extra;
      return record;
    });

export const retractArb = (seq: fc.Arbitrary<number> = fc.nat({ max: 20 })): fc.Arbitrary<FoldRetractRecord> =>
  fc.record({ seq, at: iso }).map(({ seq: s, at }) => ({ v: 2, kind: "fold-retract", seq: s, at }));
