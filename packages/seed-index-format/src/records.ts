// TypeBox schemas and static types of the seed-index records (fold-index v2, fold-retract, the v1 shapes
// kept for reading old files), and `validateRecord`, the one shape check used by the writer and reader.
import { Type, type Static } from "typebox";
import { Compile } from "typebox/compile";
import { parseAnchor } from "./anchors.js";

/** The `harness` value context-fold writes. */
export const HARNESS = "pi-context-fold";
/** The highest record version this package understands; higher `v` lines are skipped. */
export const SEED_INDEX_VERSION = 2;

const ISO_8601 = "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\\.[0-9]{1,9})?(?:Z|[+-][0-9]{2}:[0-9]{2})$";
const ENTRY_ID = "(?:[0-9a-f]{8}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})";
/** The anchor grammar as a pattern (parseAnchor is the reference; this mirrors it for schema-only readers). */
const ANCHOR = `^(?:r:[\\s\\S]+|a:[\\s\\S]+:p(?:0|[1-9][0-9]{0,14}))(?::edit:${ENTRY_ID})?$`;
const EDIT_ANCHOR = `:edit:${ENTRY_ID}$`;
const NON_NEGATIVE_INT = { minimum: 0 } as const;

/** Why a fold fired. `compact` records re-extract all compacted history on the active branch. */
export const SeedTriggerSchema = Type.Union([Type.Literal("threshold"), Type.Literal("cap"), Type.Literal("compact")], {
  description: "Why this fold fired: threshold | cap | compact.",
});
export type SeedTrigger = Static<typeof SeedTriggerSchema>;

/** Context-window usage when the fold fired; absent on records made outside a live session. */
export const UsageSchema = Type.Object(
  {
    tokens: Type.Integer({ ...NON_NEGATIVE_INT, description: "Tokens in context when the fold fired." }),
    contextWindow: Type.Integer({ minimum: 1, description: "The model's context window in tokens." }),
    fraction: Type.Number({ minimum: 0, description: "tokens / contextWindow." }),
  },
  { additionalProperties: true, description: "Context usage at fold time." },
);
export type Usage = Static<typeof UsageSchema>;

/** First line of a user message in the folded span, with its turn. */
export const UserMessageSchema = Type.Object(
  {
    turn: Type.Integer({ ...NON_NEGATIVE_INT, description: "1-based count of user messages on the path to this message." }),
    firstLine: Type.String({ description: "First line of the user message, at most 200 characters." }),
  },
  { additionalProperties: true },
);
export type UserMessageRef = Static<typeof UserMessageSchema>;

/** Extent of a block's text: UTF-8 bytes and lines (0 for empty, else newlines + 1). */
export const SpanLogSchema = Type.Object(
  {
    bytes: Type.Integer({ ...NON_NEGATIVE_INT, description: "UTF-8 byte length of the block text." }),
    lines: Type.Integer({ ...NON_NEGATIVE_INT, description: "0 for empty text, otherwise the number of \"\\n\" + 1." }),
  },
  { additionalProperties: true },
);
export type SpanLog = Static<typeof SpanLogSchema>;

/** A recovery pointer: a folded block, its recall handle, extent and hash. Edit spans omit fullOutputPath. */
export const SpanSchema = Type.Object(
  {
    blockId: Type.String({ pattern: ANCHOR, description: "Anchor into the session file: r:<toolCallId> or a:<responseId>:p<n>, optionally :edit:<entryId>." }),
    code: Type.String({ pattern: "^[a-z0-9]+$", description: "In-context recall handle: first 10 chars of base32(sha256(blockId)), 12 on collision." }),
    tool: Type.Optional(Type.String({ description: "Tool name for toolResult blocks." })),
    turn: Type.Integer({ ...NON_NEGATIVE_INT, description: "Turn of the block (1-based count of user messages on its path)." }),
    log: SpanLogSchema,
    sha256: Type.Optional(Type.String({ pattern: "^[0-9a-f]{64}$", description: "Hex sha256 of the block text at fold time; absent only on spans restored from pre-v2 records." })),
    fullOutputPath: Type.Optional(Type.String({ minLength: 1, description: "The tool's own full-output file (holds more than the block text). Untrusted: resolve under known roots." })),
  },
  {
    additionalProperties: true,
    // An edit span's text is the replacement, which the tool's file does not contain.
    if: { properties: { blockId: { type: "string", pattern: EDIT_ANCHOR } }, required: ["blockId"] },
    then: { not: { properties: { fullOutputPath: {} }, required: ["fullOutputPath"] } },
  },
);
export type Span = Static<typeof SpanSchema>;

const recordBody = {
  harness: Type.String({ minLength: 1, description: `Writer of the record; context-fold writes "${HARNESS}".` }),
  session: Type.String({ description: "Session id from the session header." }),
  seq: Type.Integer({ ...NON_NEGATIVE_INT, description: "Fold event sequence number, monotonic per session; the latest record for a seq wins." }),
  at: Type.String({ pattern: ISO_8601, description: "ISO-8601 time taken from input (last entry read, or --now), never the clock." }),
  trigger: SeedTriggerSchema,
  usage: Type.Optional(UsageSchema),
  files: Type.Array(Type.String(), { description: "Paths the folded span touched; repo-relative when resolvable; deduplicated, insertion order." }),
  commands: Type.Array(Type.String(), { description: "Shell commands executed in the folded span, verbatim, deduplicated." }),
  errors: Type.Array(Type.String(), { description: "Error lines found by the error lexicon, verbatim, clipped to 240 chars, deduplicated." }),
  identifiers: Type.Array(Type.String(), { description: "Exact identifiers and numbers for lexical recall, at most 64." }),
  userMessages: Type.Array(UserMessageSchema, { description: "First line of each user message in the folded span." }),
};

/** A `fold-index` v2 record: one per fold event, plus one at hard compaction. Unknown fields are allowed. */
export const FoldIndexRecordSchema = Type.Object(
  {
    v: Type.Literal(2),
    kind: Type.Literal("fold-index"),
    ...recordBody,
    spans: Type.Array(SpanSchema, { description: "Recovery pointers into the session file." }),
  },
  { additionalProperties: true, $id: "https://context-fold.dev/schema/fold-index-v2.json", title: "fold-index v2 record" },
);
export type FoldIndexRecord = Static<typeof FoldIndexRecordSchema>;

/** Voids the fold-index records with this seq appended before it (a compaction that failed after emitting). */
export const FoldRetractRecordSchema = Type.Object(
  {
    v: Type.Literal(2),
    kind: Type.Literal("fold-retract"),
    seq: Type.Integer({ ...NON_NEGATIVE_INT, description: "The seq whose earlier records are voided." }),
    at: Type.String({ pattern: ISO_8601, description: "ISO-8601 time taken from input." }),
    harness: Type.Optional(Type.String({ minLength: 1 })),
    session: Type.Optional(Type.String()),
    reason: Type.Optional(Type.String({ description: "Why the record was retracted, for people." })),
  },
  { additionalProperties: true, title: "fold-retract record" },
);
export type FoldRetractRecord = Static<typeof FoldRetractRecordSchema>;

/** v1 span: `log` addressed a per-session spool (removed in v2); no sha256 on the span. */
export const V1SpanSchema = Type.Object(
  {
    blockId: Type.String({ minLength: 1 }),
    code: Type.String({ minLength: 1 }),
    tool: Type.Optional(Type.String()),
    turn: Type.Integer(NON_NEGATIVE_INT),
    log: Type.Object(
      {
        path: Type.String({ description: "Spool file (inert since v2)." }),
        byteStart: Type.Integer(NON_NEGATIVE_INT),
        byteEnd: Type.Integer(NON_NEGATIVE_INT),
      },
      { additionalProperties: true },
    ),
    fullOutputPath: Type.Optional(Type.String({ minLength: 1 })),
  },
  { additionalProperties: true, title: "v1 span" },
);
export type V1Span = Static<typeof V1SpanSchema>;

/** A v1 `fold-index` record, read (never written) for old sessions. */
export const FoldIndexV1RecordSchema = Type.Object(
  {
    v: Type.Literal(1),
    kind: Type.Literal("fold-index"),
    ...recordBody,
    spans: Type.Array(V1SpanSchema),
  },
  { additionalProperties: true, title: "fold-index v1 record" },
);
export type FoldIndexV1Record = Static<typeof FoldIndexV1RecordSchema>;

export interface ShapeError {
  /** JSON pointer to the failing value ("" is the record itself). */
  path: string;
  message: string;
}

export type RecordValidation = { ok: true; kind: "record" | "retract" } | { ok: false; errors: ShapeError[] };

function compileChecks() {
  return { record: Compile(FoldIndexRecordSchema), retract: Compile(FoldRetractRecordSchema), v1: Compile(FoldIndexV1RecordSchema), span: Compile(SpanSchema) };
}
let compiledChecks: ReturnType<typeof compileChecks> | undefined;
/**
 * The schemas' checkers, compiled on first use: compiling costs tens of ms, paid at import by every
 * process that loads this package (a `recall --sessions` query only hashes), though few validate.
 */
function checks(): ReturnType<typeof compileChecks> {
  return (compiledChecks ??= compileChecks());
}

/** Patterns explained in words: a regex in an error message helps nobody. */
const PATTERN_MESSAGES: Record<string, string> = {
  blockId: "is not an anchor: r:<toolCallId> or a:<responseId>:p<n> (n without leading zeros), optionally followed by :edit:<8 hex or UUID>",
  at: "must be an ISO-8601 timestamp: YYYY-MM-DDTHH:MM:SS[.fraction] then Z or ±HH:MM",
  sha256: "must be 64 lowercase hex characters",
  code: "must be lowercase letters and digits",
};

interface RawError {
  keyword: string;
  instancePath: string;
  params: unknown;
  message: string;
}

function toShapeErrors(errors: readonly RawError[]): ShapeError[] {
  const out: ShapeError[] = [];
  const seen = new Set<string>();
  for (const error of errors) {
    // Compiled if/then/not errors repeat; name the rule instead of the JSON-Schema plumbing.
    const params = error.params as { requiredProperties?: unknown } | undefined;
    const missing = error.keyword === "required" && Array.isArray(params?.requiredProperties) ? (params.requiredProperties as string[]) : undefined;
    const items: ShapeError[] =
      missing !== undefined
        ? missing.map((name) => ({ path: `${error.instancePath}/${name}`, message: "is required" }))
        : error.keyword === "not" || error.keyword === "if"
          ? [{ path: `${error.instancePath}/fullOutputPath`, message: "must be absent on an edit span (blockId ends in :edit:<entryId>)" }]
          : [{ path: error.instancePath, message: (error.keyword === "pattern" ? PATTERN_MESSAGES[error.instancePath.split("/").pop() ?? ""] : undefined) ?? error.message }];
    for (const item of items) {
      const key = `${item.path}\u0000${item.message}`;
      if (!seen.has(key)) {
        seen.add(key);
        out.push(item);
      }
    }
  }
  return out;
}

function shapeErrors(check: { Errors(value: unknown): readonly RawError[] }, value: unknown): ShapeError[] {
  const errors = toShapeErrors(check.Errors(value));
  return errors.length > 0 ? errors : [{ path: "", message: "does not match the schema" }];
}

/** Validate a v1 fold-index record (reading only). */
export function validateV1Record(value: unknown): { ok: true } | { ok: false; errors: ShapeError[] } {
  return checks().v1.Check(value) ? { ok: true } : { ok: false, errors: shapeErrors(checks().v1, value) };
}

/** Anchor checks beyond the schema pattern (parseAnchor is the reference grammar). */
function anchorErrors(record: FoldIndexRecord): ShapeError[] {
  const errors: ShapeError[] = [];
  record.spans.forEach((span, index) => {
    const parsed = parseAnchor(span.blockId);
    if (!parsed.ok) errors.push({ path: `/spans/${index}/blockId`, message: parsed.reason });
  });
  return errors;
}

/**
 * Is `value` a valid v2 `fold-index` or `fold-retract` record? Errors carry the failing JSON path.
 * (Version and kind tolerance, i.e. skipping unknown kinds and higher `v`, is the reader's job.)
 */
export function validateRecord(value: unknown): RecordValidation {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { ok: false, errors: [{ path: "", message: "must be a JSON object" }] };
  }
  const kind = (value as { kind?: unknown }).kind;
  if (kind === "fold-retract") {
    return checks().retract.Check(value) ? { ok: true, kind: "retract" } : { ok: false, errors: shapeErrors(checks().retract, value) };
  }
  if (kind === "fold-index") {
    if (!checks().record.Check(value)) return { ok: false, errors: shapeErrors(checks().record, value) };
    const errors = anchorErrors(value);
    return errors.length === 0 ? { ok: true, kind: "record" } : { ok: false, errors };
  }
  return { ok: false, errors: [{ path: "/kind", message: 'must be "fold-index" or "fold-retract"' }] };
}

/**
 * Is `value` a valid span (`index` in its record's `spans`)? A record is valid exactly when it is with
 * `spans: []` and each of its spans is: what a writer or reader checks of a record whose spans it does
 * not hold all at once. Errors carry the span's path in the record.
 */
export function validateSpan(value: unknown, index: number): { ok: true } | { ok: false; errors: ShapeError[] } {
  const prefix = `/spans/${String(index)}`;
  if (!checks().span.Check(value)) {
    return { ok: false, errors: shapeErrors(checks().span, value).map((e) => ({ path: `${prefix}${e.path}`, message: e.message })) };
  }
  const parsed = parseAnchor((value as Span).blockId);
  return parsed.ok ? { ok: true } : { ok: false, errors: [{ path: `${prefix}/blockId`, message: parsed.reason }] };
}

/** The JSON Schema 2020-12 document shipped as schema.json: one file, both record kinds. */
export function schemaDocument(): Record<string, unknown> {
  const strip = (schema: unknown): unknown => JSON.parse(JSON.stringify(schema)) as unknown;
  const record = strip(FoldIndexRecordSchema) as Record<string, unknown>;
  delete record["$id"];
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    $id: "https://context-fold.dev/schema/seed-index-v2.json",
    title: "context-fold seed-index v2 line",
    description:
      "One line of <session dir>/context-fold/<session id>/seed-index.jsonl: a fold-index v2 record or a fold-retract record. Readers skip blank lines, unknown kinds and v > 2 instead of rejecting them; see the package README.",
    oneOf: [{ $ref: "#/$defs/FoldIndexRecord" }, { $ref: "#/$defs/FoldRetractRecord" }],
    $defs: {
      FoldIndexRecord: record,
      FoldRetractRecord: strip(FoldRetractRecordSchema),
      FoldIndexV1Record: strip(FoldIndexV1RecordSchema),
    },
  };
}
