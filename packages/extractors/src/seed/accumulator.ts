// Seed-index record extraction, incremental: feed blocks as they arrive (per turn), ask for the record's
// fields or a whole fold-index v2 record at any point. Each block is scanned once (block-scan.ts), ever,
// and its scan applied here to the running fields; accumulators sharing a scan cache share the scans.
import type { Block } from "@context-fold/ledger-reader";
import {
  CodeAssigner,
  HARNESS,
  isEditedAnchor,
  type FoldIndexRecord,
  type SeedTrigger,
  type Span,
  type Usage,
  type UserMessageRef,
} from "@context-fold/seed-index-format";
import { clipLine } from "../lexicon/errors.js";
import { isQueryKeyword } from "./query-keywords.js";
import { printsFileContent } from "../facts/shell-command.js";
import { cleanPath, isPathToken } from "../lexicon/paths.js";
import { BlockScanner, type BlockScan } from "./block-scan.js";
import { RangeInterner } from "./range-interner.js";
import { ScanCache, spanFacts, type SeedScanCache, type SpanFacts } from "./scan-cache.js";
import { IdentifierRanker, topK } from "./identifier-rank.js";
import { STAT_FIRST, STAT_STRIDE, TokenTable } from "./token-table.js";
import { classifyTool, isContentTool, toolCommand, toolPath } from "../tool-calls/tool-class.js";

export { tokenParts } from "./token-table.js";

export { IDENTIFIER_CAP } from "./identifier-rank.js";
/** At most this many error lines per record; flagged (isError) lines are kept first. */
export const ERROR_CAP = 128;
/** A tool output at least this long (UTF-16 units) is "large": its tokens are what summaries lose. */
export const LARGE_OUTPUT_CHARS = 4096;
/** `userMessages[].firstLine` is clipped to this many characters. */
export const FIRST_LINE_MAX = 200;

/** The extracted, record-ready fields (everything of a fold-index record but identity and spans). */
export interface SeedFields {
  files: string[];
  commands: string[];
  errors: string[];
  identifiers: string[];
  userMessages: UserMessageRef[];
}

export interface SeedAccumulatorOptions {
  /** The session cwd: paths under it become repo-relative. */
  readonly cwd?: string | undefined;
  /**
   * Scans shared with other accumulators fed the same block objects (`createSeedScanCache`): a block
   * one of them scanned is applied from that scan, and its span's sha256 is computed once. Output is
   * the same with or without.
   */
  readonly scans?: SeedScanCache | undefined;
  /**
   * Hand each span out as its block is added (its code from `codes`) instead of keeping it for `spans`
   * and `record`, which then give none: a whole-session record (a million spans on a 1 GB session)
   * written as it is made, in memory that does not grow with its spans. Same spans, same order.
   */
  readonly spanSink?: SpanSink | undefined;
}

/** Where an accumulator with `spanSink` sends its spans. */
export interface SpanSink {
  readonly codes: Pick<CodeAssigner, "assign">;
  readonly take: (span: Span) => void;
}

export interface SeedFieldsOptions {
  /** Capped fields favour recent blocks (what a `compact` record does); otherwise earlier blocks win ties. */
  readonly favourRecent?: boolean;
}

export interface SeedRecordParams extends SeedFieldsOptions {
  readonly sessionId: string;
  readonly seq: number;
  /** ISO-8601 time from input; defaults to the timestamp of the last block added that has one. */
  readonly at?: string | undefined;
  readonly trigger: SeedTrigger;
  readonly usage?: Usage | undefined;
  /** Hands out fold codes, collision-checked per session; pass the session's assigner to keep codes stable. */
  readonly codes?: CodeAssigner | undefined;
  /** Which anchorable blocks get a span (default: every anchorable block added). */
  readonly spanFilter?: ((block: Block) => boolean) | undefined;
  /** `fields` taken earlier with the same `favourRecent` and nothing added since (computed here when absent). */
  readonly fields?: SeedFields | undefined;
}

/** Thrown when a record is asked for without a time and no block carried a timestamp. */
export class MissingTimeError extends Error {
  readonly code = "MISSING_TIME" as const;
  constructor() {
    super("no `at` given and no block has a timestamp; pass `at` (an ISO-8601 time, e.g. from --now)");
    this.name = "MissingTimeError";
  }
}

export interface SeedAccumulator {
  /** Scan new blocks (in session order) into the running fields; blocks at or below the highest `#N` already added are ignored. */
  add(blocks: Iterable<Block>): SeedAccumulator;
  /** Number of blocks added so far. */
  readonly size: number;
  /** The current fields, capped and ordered. */
  fields(options?: SeedFieldsOptions): SeedFields;
  /**
   * Span for every anchorable block added (filtered), with codes from `codes`; with `from` (a
   * `spanCount` taken earlier), only those added since, so a caller feeding turn by turn does not
   * walk every span of the session again.
   */
  spans(codes?: CodeAssigner, filter?: (block: Block) => boolean, from?: number): Span[];
  /** Number of anchorable blocks added so far (a mark for `spans`' `from`). */
  readonly spanCount: number;
  /** A complete fold-index v2 record over everything added. */
  record(params: SeedRecordParams): FoldIndexRecord;
}

interface ErrorStat {
  readonly line: string;
  flagged: boolean;
  readonly first: number;
  last: number;
}

/**
 * What a span takes of its block, copied when the block is added (and in cache): a record's spans are
 * made by walking these, which sit together, rather than the blocks, spread over the session's heap.
 */
interface SpanSource {
  readonly block: Block;
  readonly anchor: string;
  readonly text: string;
  /** The tool of a toolResult span. */
  readonly tool: string | undefined;
  readonly turn: number;
  readonly fullOutputPath: string | undefined;
  facts: SpanFacts | undefined;
}

type Ranked<T> = (a: T, b: T) => number;

/**
 * The seed index's `userMessages[].firstLine`: first non-blank line, trailing whitespace dropped, clipped
 * bare to 200 chars. (The summary's one-liners use facts/user-text.ts `trimmedFirstLine`, which trims
 * and marks a clip with "…".)
 */
export function firstLine(text: string): string {
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf("\n", start);
    if (end === -1) end = text.length;
    const line = text.slice(start, Math.min(end, start + FIRST_LINE_MAX + 1)).trimEnd();
    if (line.trim().length > 0) return clipLine(line, FIRST_LINE_MAX);
    start = end + 1;
  }
  return "";
}

// Without a cache, one scanner's buffers serve every accumulator: a scan is applied as soon as it is
// made (nothing of it outlives the apply, and applying scans nothing), so accumulators never interleave.
const sharedScanner = new BlockScanner();

/** Start an empty accumulator. */
export function createSeedAccumulator(options: SeedAccumulatorOptions = {}): SeedAccumulator {
  const cwd = options.cwd;
  const cache = options.scans;
  if (cache !== undefined && !(cache instanceof ScanCache)) throw new TypeError("`scans` must come from createSeedScanCache()");
  const scanOf = (block: Block, paths: boolean): BlockScan => (cache === undefined ? sharedScanner.scan(block, paths, false) : cache.scan(block, paths));
  const files = new Set<string>();
  /** Files of file-tool calls waiting for their result: a call that failed (no such file) names no file. */
  const pendingFiles = new Map<string, string>();
  const commands = new Set<string>();
  const errors = new Map<string, ErrorStat>();
  const userMessages: UserMessageRef[] = [];
  const spanSources: SpanSource[] = [];
  const sink = options.spanSink;
  let sunk = 0;
  let ordinal = 0;
  let highestIndex = -1;
  let lastTimestamp: string | undefined;

  // Query-language keywords in capitals are no identifiers (see query-keywords.ts).
  const tokens = new TokenTable(isQueryKeyword);
  let recentRanker: IdentifierRanker | undefined;
  let firstRanker: IdentifierRanker | undefined;
  // Path candidates already judged (and, when paths, normalized: the costly part), found by their range
  // in the scanned text: a repeat is skipped without a substring (most candidates are repeats).
  const seenCandidates = new RangeInterner();
  const notePath = (text: string, start: number, end: number, hash: number): void => {
    const found = seenCandidates.find(text, start, end, hash);
    if (found >= 0) return;
    seenCandidates.add(text, start, end, hash, -1 - found);
    const candidate = text.slice(start, end);
    // "./x" and "../x" in output are relative to some file (imports), not to the session cwd.
    if (candidate.startsWith("./") || candidate.startsWith("../") || !isPathToken(candidate)) return;
    const path = cleanPath(candidate, cwd);
    if (path !== undefined) files.add(path);
  };
  // A tool's path argument, cleaned once per distinct text (a session reads and edits the same files again and again).
  const cleanToolPaths = new Map<string, string | undefined>();
  const cleanToolPath = (raw: string): string | undefined => {
    if (cleanToolPaths.has(raw)) return cleanToolPaths.get(raw);
    const path = cleanPath(raw, cwd);
    cleanToolPaths.set(raw, path);
    return path;
  };
  // Paths an output said do not exist ("x: No such file or directory", ENOENT), and paths a file tool
  // used successfully: a path only ever reported missing is no file of the session (a failed `head`,
  // `grep` or `cp` names it in its error), one a tool read or wrote is, whatever was said before or after.
  const missing = new Set<string>();
  /** Commands of shell calls waiting for their result (whose output is content when they print a file). */
  const shellCalls = new Map<string, string>();
  const confirmed = new Set<string>();

  /** A block's scan applied to the running fields: its tokens, and (`paths`) its path candidates. */
  const applyTokens = (scan: BlockScan, large: boolean): void => {
    tokens.noteRanges(scan.source, scan.tokens, scan.tokenInts, large, ordinal);
  };
  const applyOutput = (block: Block): void => {
    const text = block.text;
    if (text.length === 0) return;
    const flagged = block.isError === true;
    const command = block.kind === "bash" ? toolCommand("bash", block.args) : block.toolCallId === undefined ? undefined : shellCalls.get(block.toolCallId);
    if (block.toolCallId !== undefined) shellCalls.delete(block.toolCallId);
    // A file tool's output, or a shell command printing a file (`cat f`, `sed -n '1,9p' f`, `grep -A 3 x f`), is content.
    const content = (block.toolName !== undefined && isContentTool(block.toolName, block.args)) || (command !== undefined && printsFileContent(command));
    // A failed file or search tool's message names the path it could not use, not a file of the session.
    const failedLookup = flagged && block.kind === "toolResult" && classifyTool(block.toolName, block.args) !== "shell";
    // Path candidates only outside file content: those paths are the file's.
    const paths = !content && !failedLookup;
    const scan = scanOf(block, paths);
    for (const candidate of scan.missing) {
      const path = cleanPath(candidate, cwd);
      if (path !== undefined) missing.add(path);
    }
    const { source, paths: pathRanges, pathInts } = scan;
    if (paths && pathRanges !== undefined) {
      for (let at = 0; at < pathInts; at += 3) notePath(source, pathRanges[at] as number, pathRanges[at + 1] as number, pathRanges[at + 2] as number);
    }
    applyTokens(scan, text.length >= LARGE_OUTPUT_CHARS);
    for (const line of scan.errors) {
      const stat = errors.get(line);
      if (stat === undefined) errors.set(line, { line, flagged, first: ordinal, last: ordinal });
      else {
        stat.last = ordinal;
        if (flagged) stat.flagged = true;
      }
    }
  };

  const addOne = (block: Block): void => {
    // A block already fed (its #N at or below the highest seen) is ignored, so a live caller that
    // re-sends a turn cannot double-count it.
    if (block.index <= highestIndex) return;
    highestIndex = block.index;
    ordinal += 1;
    if (block.timestamp !== undefined) lastTimestamp = block.timestamp;
    switch (block.kind) {
      case "toolCall": {
        const raw = toolPath(block.toolName, block.args);
        const path = raw === undefined ? undefined : cleanToolPath(raw);
        if (path !== undefined) {
          if (block.toolCallId !== undefined) pendingFiles.set(block.toolCallId, path);
          else files.add(path);
        }
        const command = toolCommand(block.toolName, block.args);
        if (command !== undefined) commands.add(command);
        if (command !== undefined && block.toolCallId !== undefined && classifyTool(block.toolName, block.args) === "shell") shellCalls.set(block.toolCallId, command);
        applyTokens(scanOf(block, false), false);
        break;
      }
      case "bash": {
        const command = toolCommand("bash", block.args);
        if (command !== undefined) commands.add(command);
        applyOutput(block);
        break;
      }
      case "toolResult": {
        const path = block.toolCallId === undefined ? undefined : pendingFiles.get(block.toolCallId);
        if (path !== undefined && block.toolCallId !== undefined) {
          pendingFiles.delete(block.toolCallId);
          if (block.isError !== true) {
            files.add(path);
            confirmed.add(path);
          }
        }
        applyOutput(block);
        break;
      }
      case "user":
        userMessages.push({ turn: block.turn, firstLine: firstLine(block.text) });
        applyTokens(scanOf(block, false), false);
        break;
      case "text":
      case "thinking":
        applyTokens(scanOf(block, false), false);
        break;
      default:
        // custom messages, compaction and branch summaries are derived text, not session ground truth
        break;
    }
    if (block.anchor !== undefined && (block.kind === "toolResult" || block.kind === "text" || block.kind === "thinking")) {
      const tool = block.kind === "toolResult" ? block.toolName : undefined;
      const fullOutputPath = block.fullOutputPath !== undefined && block.fullOutputPath.length > 0 ? block.fullOutputPath : undefined;
      const source: SpanSource = { block, anchor: block.anchor, text: block.text, tool, turn: block.turn, fullOutputPath, facts: undefined };
      if (sink === undefined) spanSources.push(source);
      else {
        sink.take(spanOf(source, sink.codes));
        sunk += 1;
      }
    }
  };
  // A span's sha256 and log are computed when a record first asks for it (a fold record spans only the
  // blocks it chose), once per accumulator, or once per cache when accumulators share one.
  const factsOf = (source: SpanSource): SpanFacts => (source.facts ??= cache === undefined ? spanFacts(source.text) : cache.span(source.block));

  const spanOf = (source: SpanSource, codes: Pick<CodeAssigner, "assign">): Span => {
    const anchor = source.anchor;
    // Built field by field in the record's key order (blockId, code, tool?, turn, log, sha256,
    // fullOutputPath?), not spread from conditional objects: a spread per span cost more than the span.
    const span = { blockId: anchor, code: codes.assign(anchor) } as Span;
    if (source.tool !== undefined) span.tool = source.tool;
    span.turn = source.turn;
    const facts = factsOf(source);
    span.log = { bytes: facts.log.bytes, lines: facts.log.lines };
    span.sha256 = facts.sha256;
    // An edited block's text is no longer the file's: asked only of the few spans with a file.
    if (source.fullOutputPath !== undefined && !isEditedAnchor(anchor)) span.fullOutputPath = source.fullOutputPath;
    return span;
  };

  const fields = (opts: SeedFieldsOptions = {}): SeedFields => {
    const recent = opts.favourRecent === true;
    // The ranking keeps, per mode, the tokens that can still be chosen (identifier-rank.ts).
    const ranker = recent ? (recentRanker ??= new IdentifierRanker(tokens, true)) : (firstRanker ??= new IdentifierRanker(tokens, false));
    const stats = tokens.stats;
    const identifiers = ranker
      .choose(ordinal + 1)
      .sort((a, b) => (stats[a * STAT_STRIDE + STAT_FIRST] ?? 0) - (stats[b * STAT_STRIDE + STAT_FIRST] ?? 0) || tokens.compareText(a, b))
      .map((id) => tokens.text(id));

    const errorRank: Ranked<ErrorStat> = (a, b) => {
      if (a.flagged !== b.flagged) return a.flagged ? -1 : 1;
      if (recent) return b.last - a.last || b.first - a.first;
      return a.first - b.first;
    };
    const errorOrder: Ranked<ErrorStat> = (a, b) => (a.flagged !== b.flagged ? (a.flagged ? -1 : 1) : a.first - b.first);
    const keptErrors = errors.size <= ERROR_CAP ? [...errors.values()] : topK(errors.values(), ERROR_CAP, errorRank);
    return {
      files: missing.size === 0 ? [...files] : [...files].filter((f) => !missing.has(f) || confirmed.has(f)),
      commands: [...commands],
      errors: keptErrors.sort(errorOrder).map((e) => e.line),
      identifiers,
      userMessages: userMessages.map((m) => ({ turn: m.turn, firstLine: m.firstLine })),
    };
  };

  const spans = (codes: CodeAssigner = new CodeAssigner(), filter?: (block: Block) => boolean, from = 0): Span[] => {
    const out: Span[] = [];
    for (let i = Math.max(0, from); i < spanSources.length; i++) {
      const source = spanSources[i] as SpanSource;
      if (filter !== undefined && !filter(source.block)) continue;
      out.push(spanOf(source, codes));
    }
    return out;
  };

  const accumulator: SeedAccumulator = {
    add(blocks) {
      for (const block of blocks) addOne(block);
      return accumulator;
    },
    get size() {
      return ordinal;
    },
    get spanCount() {
      return spanSources.length + sunk;
    },
    fields,
    spans,
    record(params) {
      const at = params.at ?? lastTimestamp;
      if (at === undefined) throw new MissingTimeError();
      const f = params.fields ?? fields({ favourRecent: params.favourRecent ?? params.trigger === "compact" });
      const record: FoldIndexRecord = {
        v: 2,
        kind: "fold-index",
        harness: HARNESS,
        session: params.sessionId,
        seq: params.seq,
        at,
        trigger: params.trigger,
        ...(params.usage === undefined ? {} : { usage: params.usage }),
        files: f.files,
        commands: f.commands,
        errors: f.errors,
        identifiers: f.identifiers,
        userMessages: f.userMessages,
        spans: spans(params.codes, params.spanFilter),
      };
      return record;
    },
  };
  return accumulator;
}
