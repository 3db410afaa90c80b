// Span recall through the seed index: choose spans by fold code, anchor or a term in a record's
// identifiers/errors/files; pull each whole span from the ledger, verify its sha256; scan inside one
// span (grep or line range), or inside Pi's full-output file when allowed roots hold it.
import { createReadStream } from "node:fs";
import { tmpdir } from "node:os";
import { createInterface } from "node:readline";
import { resolveAnchor, type Session } from "@context-fold/ledger-reader";
import {
  archivalUnion,
  currentView,
  type FoldIndexRecord,
  forEachSpan,
  readSeedIndexFileLean,
  resolveFullOutputPath,
  seedIndexPath,
  type Span,
  type SpansInFile,
  verifySpanText,
} from "@context-fold/seed-index-format";
import { RecallError } from "./errors.js";
import { compilePattern } from "./query.js";

export interface SpanScan {
  /** Lines whose text the pattern matches (re2js, case-insensitive). */
  readonly grep?: string;
  /** 1-based inclusive line range. */
  readonly lines?: { readonly from: number; readonly to: number };
  /** Scan Pi's full-output file instead of the span text (only when it resolves under `roots`). */
  readonly fullOutput?: boolean;
}

export interface SpanRecallOptions {
  readonly code?: string;
  readonly anchor?: string;
  /** Picks every span of the records whose identifiers, errors or files contain it (case-insensitive). */
  readonly term?: string;
  /** `archival` (default): every standing record; `current`: the latest record per seq. */
  readonly view?: "archival" | "current";
  /** Seed index file; default beside the session (`seedIndexPath`). */
  readonly seedIndex?: string;
  readonly scan?: SpanScan;
  /** Allowed roots for full-output files (default: the OS temp dir, where Pi spills them). */
  readonly roots?: readonly string[];
  /** Most matching/ranged lines returned per scan (default 200). */
  readonly maxLines?: number;
}

export interface ScanLine {
  readonly line: number;
  readonly text: string;
}

export interface ScanResult {
  readonly source: "span" | "full-output";
  readonly path?: string;
  readonly lines: readonly ScanLine[];
  /** Lines that matched (grep) or fell in the range, before the `maxLines` cap. */
  readonly matched: number;
  readonly linesRead: number;
  readonly truncated: boolean;
  /** Why the full-output file was not scanned (then the span text was). */
  readonly refused?: string;
}

export interface RecalledSpan {
  readonly code: string;
  readonly blockId: string;
  readonly tool?: string;
  readonly turn: number;
  /** Seq of the record the span was taken from (the latest one naming it). */
  readonly seq: number;
  /** verified: sha256 (and log) match; unverified: the span has no sha256; mismatch: the ledger text differs. */
  readonly status: "verified" | "unverified" | "mismatch" | "missing" | "ambiguous" | "malformed";
  readonly verified: boolean;
  /** The span's own sha256 (recorded when it was folded) is the hash checked: "seed-index"; none → "none". */
  readonly verifiedAgainst: "seed-index" | "none";
  readonly reason?: string;
  /** `#N` of the block in the ledger, when found. */
  readonly index?: number;
  /** The whole span text (absent with a scan or when the anchor is not found). */
  readonly text?: string;
  readonly scan?: ScanResult;
  readonly fullOutputPath?: string;
}

export interface SpanRecallResult {
  readonly seedIndex: string;
  readonly records: number;
  readonly spans: readonly RecalledSpan[];
}

function contains(list: readonly string[], term: string): boolean {
  return list.some((value) => value.toLowerCase().includes(term));
}

/** Spans chosen by code, anchor or term, latest record first per blockId, in record order. */
export function pickSpans(records: readonly FoldIndexRecord[], options: Pick<SpanRecallOptions, "code" | "anchor" | "term">): { span: Span; seq: number }[] {
  return pickSpansIn(records, new Map(), options);
}

/**
 * `pickSpans` over a lean read: a record whose long line left its spans in the file (`where`) has them
 * read back from there one at a time, and only the chosen ones are held (an `index` record of a 1 GB
 * session is a million spans on one 213 MB line, 1.5 GB as objects).
 */
function pickSpansIn(
  records: readonly FoldIndexRecord[],
  where: ReadonlyMap<FoldIndexRecord, SpansInFile>,
  options: Pick<SpanRecallOptions, "code" | "anchor" | "term">,
): { span: Span; seq: number }[] {
  const term = options.term?.toLowerCase();
  const chosen = new Map<string, { span: Span; seq: number }>();
  for (const record of records) {
    const byTerm = term !== undefined && term.length > 0 && (contains(record.identifiers, term) || contains(record.errors, term) || contains(record.files, term));
    forEachSpan(record, where.get(record), (span) => {
      const hit = byTerm || (options.code !== undefined && span.code === options.code) || (options.anchor !== undefined && span.blockId === options.anchor);
      if (hit) chosen.set(span.blockId, { span, seq: record.seq });
    });
  }
  return [...chosen.values()];
}

function scanText(text: string, scan: SpanScan, maxLines: number): ScanResult {
  const pattern = scan.grep === undefined ? null : compilePattern(scan.grep, "i");
  const lines: ScanLine[] = [];
  let matched = 0;
  let n = 0;
  let start = 0;
  while (start <= text.length) {
    const end = text.indexOf("\n", start);
    const line = text.slice(start, end < 0 ? text.length : end);
    n++;
    const inRange = scan.lines === undefined || (n >= scan.lines.from && n <= scan.lines.to);
    if (inRange && (pattern === null || pattern.test(line))) {
      matched++;
      if (lines.length < maxLines) lines.push({ line: n, text: line });
    }
    if (end < 0 || (scan.lines !== undefined && n >= scan.lines.to)) break;
    start = end + 1;
  }
  return { source: "span", lines, matched, linesRead: n, truncated: matched > lines.length };
}

/** Streams a file line by line (never whole in memory), stopping after a range's end. */
export async function scanFile(path: string, scan: SpanScan, maxLines: number): Promise<ScanResult> {
  const pattern = scan.grep === undefined ? null : compilePattern(scan.grep, "i");
  const lines: ScanLine[] = [];
  let matched = 0;
  let n = 0;
  const stream = createReadStream(path, { encoding: "utf8" });
  const reader = createInterface({ input: stream, crlfDelay: Infinity });
  try {
    for await (const line of reader) {
      n++;
      const inRange = scan.lines === undefined || (n >= scan.lines.from && n <= scan.lines.to);
      if (inRange && (pattern === null || pattern.test(line))) {
        matched++;
        if (lines.length < maxLines) lines.push({ line: n, text: line });
      }
      if (scan.lines !== undefined && n >= scan.lines.to) break;
    }
  } finally {
    reader.close();
    stream.destroy();
  }
  return { source: "full-output", path, lines, matched, linesRead: n, truncated: matched > lines.length };
}

/** Pulls the chosen spans from `session` (read from `sessionFile`), verified; scans when asked. */
export async function spanRecall(session: Session, options: SpanRecallOptions): Promise<SpanRecallResult> {
  const seedIndex = options.seedIndex ?? seedIndexPath(session.path, session.header.id);
  // Lean: a line too long to hold leaves its spans in the file, read back span by span as they are picked.
  const { outcomes, exists } = await readSeedIndexFileLean(seedIndex);
  if (!exists) throw new RecallError("SEED_INDEX_MISSING", `no seed index at ${seedIndex} (nothing was folded in this session yet)`, { file: seedIndex });
  const records = options.view === "current" ? currentView(outcomes) : archivalUnion(outcomes);
  if (options.code === undefined && options.anchor === undefined && (options.term === undefined || options.term.length === 0)) {
    throw new RecallError("SPAN_NOT_FOUND", "span recall needs a fold code, an anchor or a term");
  }
  const where = new Map<FoldIndexRecord, SpansInFile>();
  for (const o of outcomes) if (o.outcome === "record" && o.spansInFile !== undefined) where.set(o.record, o.spansInFile);
  const picked = pickSpansIn(records, where, options);
  if (picked.length === 0) {
    const what = options.code !== undefined ? `code ${options.code}` : options.anchor !== undefined ? `anchor ${options.anchor}` : `term ${JSON.stringify(options.term)}`;
    throw new RecallError("SPAN_NOT_FOUND", `no record in ${seedIndex} names ${what}`, { file: seedIndex });
  }
  const maxLines = options.maxLines ?? 200;
  const roots = options.roots ?? [tmpdir()];
  const out: RecalledSpan[] = [];
  for (const { span, seq } of picked) {
    const base = {
      code: span.code,
      blockId: span.blockId,
      turn: span.turn,
      seq,
      ...(span.tool === undefined ? {} : { tool: span.tool }),
      ...(span.fullOutputPath === undefined ? {} : { fullOutputPath: span.fullOutputPath }),
    };
    const resolved = resolveAnchor(session, span.blockId, span.sha256);
    if (resolved.status !== "ok") {
      const reason = resolved.status === "ambiguous" ? `${String(resolved.candidates.length)} blocks carry ${span.blockId}` : resolved.reason;
      out.push({ ...base, status: resolved.status, verified: false, verifiedAgainst: span.sha256 === undefined ? "none" : "seed-index", reason });
      continue;
    }
    const check = verifySpanText(span, resolved.text);
    const status = check.verified ? "verified" : span.sha256 === undefined ? "unverified" : "mismatch";
    const verifiedAgainst = span.sha256 === undefined ? "none" : "seed-index";
    const head = { ...base, status, verified: check.verified, verifiedAgainst, index: resolved.block.index, ...(check.verified ? {} : { reason: check.reason }) } as const;
    if (options.scan === undefined) {
      out.push({ ...head, text: resolved.text });
      continue;
    }
    let scan: ScanResult | undefined;
    if (options.scan.fullOutput === true) {
      if (span.fullOutputPath === undefined) scan = { ...scanText(resolved.text, options.scan, maxLines), refused: "the span has no full-output file" };
      else {
        const file = await resolveFullOutputPath(span.fullOutputPath, roots);
        scan = file.ok ? await scanFile(file.path, options.scan, maxLines) : { ...scanText(resolved.text, options.scan, maxLines), refused: file.reason };
      }
    }
    out.push({ ...head, scan: scan ?? scanText(resolved.text, options.scan, maxLines) });
  }
  return { seedIndex, records: records.length, spans: out };
}
