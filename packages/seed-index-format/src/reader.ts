// The tolerant, streaming seed-index reader: one outcome per line (record / retract / skipped / invalid /
// torn-tail) with line number, byte offset, reason and failing JSON paths. Unknown fields are kept as read.
import { createReadStream } from "node:fs";
import { SeedIndexUnreadableError } from "./errors.js";
import {
  SEED_INDEX_VERSION,
  type FoldIndexRecord,
  type FoldIndexV1Record,
  type FoldRetractRecord,
  type ShapeError,
  type Span,
  validateRecord,
  validateV1Record,
} from "./records.js";

export type ReadOutcome = { line: number; byteOffset: number } & (
  | { outcome: "record"; record: FoldIndexRecord; upgradedFrom?: FoldIndexV1Record }
  | { outcome: "retract"; record: FoldRetractRecord }
  | { outcome: "skipped"; reason: string; raw?: unknown }
  | { outcome: "invalid"; reason: string; errors?: ShapeError[] }
  | { outcome: "torn-tail"; reason: string }
);

export type LineOutcome = ReadOutcome extends infer O ? (O extends unknown ? Omit<O, "line" | "byteOffset"> : never) : never;

function describe(errors: readonly ShapeError[]): string {
  const first = errors[0];
  if (first === undefined) return "shape error";
  const more = errors.length > 1 ? ` (+${errors.length - 1} more)` : "";
  return `shape error at ${first.path === "" ? "/" : first.path}: ${first.message}${more}`;
}

/**
 * A v1 record seen through the v2 shape: spans keep blockId/code/tool/turn/fullOutputPath, lose the spool
 * address, carry no sha256 (served unverified), and `log` becomes {bytes: byteEnd - byteStart, lines: 0}
 * because v1 never stored the block's line count. The stored record is kept as `upgradedFrom`.
 */
export function upgradeV1Record(stored: FoldIndexV1Record): FoldIndexRecord {
  const spans: Span[] = stored.spans.map((span) => {
    const { log, ...rest } = span;
    return { ...rest, log: { bytes: Math.max(0, log.byteEnd - log.byteStart), lines: 0 } };
  });
  return { ...stored, v: 2, spans };
}

/**
 * Classify one line (without its newline). `isTornCandidate` is true for a last line that had no newline:
 * if it does not parse it is a torn tail, not an invalid line.
 */
export function classifyLine(text: string, isTornCandidate = false): LineOutcome {
  if (text.trim().length === 0) return { outcome: "skipped", reason: "blank line" };
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    if (isTornCandidate) return { outcome: "torn-tail", reason: `last line has no newline and does not parse (${why}); an interrupted append` };
    return { outcome: "invalid", reason: `malformed JSON: ${why}` };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { outcome: "invalid", reason: "malformed record: a line must be a JSON object", errors: [{ path: "", message: "must be a JSON object" }] };
  }
  const { kind, v } = value as { kind?: unknown; v?: unknown };
  if (kind !== "fold-index" && kind !== "fold-retract") {
    return { outcome: "skipped", reason: `unknown kind ${JSON.stringify(kind) ?? "(missing)"}`, raw: value };
  }
  if (typeof v === "number" && Number.isInteger(v) && v > SEED_INDEX_VERSION) {
    return { outcome: "skipped", reason: `${kind} v${v} is newer than this reader (understands v${SEED_INDEX_VERSION})`, raw: value };
  }
  if (kind === "fold-index" && v === 1) {
    const v1 = validateV1Record(value);
    if (!v1.ok) return { outcome: "invalid", reason: `v1 record: ${describe(v1.errors)}`, errors: v1.errors };
    const stored = value as FoldIndexV1Record;
    return { outcome: "record", record: upgradeV1Record(stored), upgradedFrom: stored };
  }
  const checked = validateRecord(value);
  if (!checked.ok) return { outcome: "invalid", reason: describe(checked.errors), errors: checked.errors };
  return checked.kind === "record"
    ? { outcome: "record", record: value as FoldIndexRecord }
    : { outcome: "retract", record: value as FoldRetractRecord };
}

const NEWLINE = 0x0a;

/** Stream a seed index of any size, one outcome per line. Throws SeedIndexUnreadableError on I/O failure. */
export async function* readSeedIndex(path: string): AsyncIterable<ReadOutcome> {
  const decoder = new TextDecoder("utf-8");
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let lineStart = 0;
  let line = 0;
  const stream = createReadStream(path, { highWaterMark: 1 << 20 });
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      let from = 0;
      for (let at = chunk.indexOf(NEWLINE, from); at !== -1; at = chunk.indexOf(NEWLINE, from)) {
        const piece = chunk.subarray(from, at);
        const bytes = pendingBytes === 0 ? piece : Buffer.concat([...pending, piece], pendingBytes + piece.length);
        line += 1;
        const text = decoder.decode(bytes).replace(/\r$/, "");
        yield { line, byteOffset: lineStart, ...classifyLine(text, false) } as ReadOutcome;
        lineStart += bytes.length + 1;
        pending = [];
        pendingBytes = 0;
        from = at + 1;
      }
      if (from < chunk.length) {
        pending.push(chunk.subarray(from));
        pendingBytes += chunk.length - from;
      }
    }
  } catch (error) {
    throw new SeedIndexUnreadableError(path, error);
  }
  if (pendingBytes > 0) {
    line += 1;
    const text = decoder.decode(Buffer.concat(pending, pendingBytes));
    yield { line, byteOffset: lineStart, ...classifyLine(text, true) } as ReadOutcome;
  }
}

/** Read a whole seed index. A missing file is an empty index (`exists: false`), not an error. */
export async function readSeedIndexFile(path: string): Promise<{ outcomes: ReadOutcome[]; exists: boolean }> {
  const outcomes: ReadOutcome[] = [];
  try {
    for await (const outcome of readSeedIndex(path)) outcomes.push(outcome);
  } catch (error) {
    const cause = error instanceof SeedIndexUnreadableError ? error.cause : error;
    if ((cause as NodeJS.ErrnoException | undefined)?.code === "ENOENT") return { outcomes: [], exists: false };
    throw error;
  }
  return { outcomes, exists: true };
}
