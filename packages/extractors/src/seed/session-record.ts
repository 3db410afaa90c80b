// Records over a whole read session: the blocks a `compact` record re-extracts (active lineage, current
// context_edit replacements and omissions applied), and the record itself.
import { joinTextParts, type CodeAssigner, type FoldIndexRecord, type SeedTrigger, type Span, type Usage } from "@context-fold/seed-index-format";
import { lineageBlocks, lineageInFileOrder, lineageRoute, type LineageRoute, readSession, streamRoute, type Block, type Entry, type Session, type SessionShape } from "@context-fold/ledger-reader";
import { createSeedAccumulator, type SeedRecordParams, type SpanSink } from "./accumulator.js";

export interface SessionBlocksOptions {
  /**
   * `lineage`: every block of the active lineage (what `context-fold index` records). `compacted`: only
   * the entries some compaction on the active lineage summarized (all compacted history). Default `lineage`.
   */
  readonly scope?: "lineage" | "compacted";
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The latest context_edit on the lineage per target entry id (later entries win, as in Pi). */
function latestEdits(lineage: readonly Entry[]): Map<string, Entry> {
  const edits = new Map<string, Entry>();
  for (const entry of lineage) {
    const target = entry.raw["targetId"];
    if (entry.type === "context_edit" && typeof target === "string") edits.set(target, entry);
  }
  return edits;
}

/**
 * The block as the edit leaves it, or null when the edit hides it. A toolResult takes the replacement
 * text and the `:edit:` anchor; an assistant message keeps an anchor only when the replacement is a
 * single text (so the anchor resolves to exactly that text); user text is replaced, unanchored.
 */
function editedBlock(block: Block, edit: Entry, first: boolean): Block | null {
  const replacement = edit.raw["replacement"];
  if (!isRecord(replacement)) return null;
  const content = replacement["content"];
  const text = joinTextParts(content);
  const { fullOutputPath: _drop, anchor: _anchor, ...rest } = block;
  switch (block.kind) {
    case "toolResult":
      return block.anchor === undefined ? { ...rest, text } : { ...rest, text, anchor: `${block.anchor}:edit:${edit.id}` };
    case "user":
      return first ? { ...rest, text } : null;
    case "text":
    case "thinking": {
      // Pi swaps the whole content: one block stands for the new content.
      if (!first) return null;
      const single = typeof content === "string" || (Array.isArray(content) && content.length === 1);
      const base = block.anchor === undefined ? undefined : block.anchor.replace(/:p[0-9]+$/, ":p0");
      return single && base !== undefined ? { ...rest, kind: "text", partIndex: 0, text, anchor: `${base}:edit:${edit.id}` } : { ...rest, kind: "text", text };
    }
    case "toolCall":
      return null; // the replacement content carries no tool calls of the original
    default:
      return block;
  }
}

/**
 * What a record takes of each active-lineage block, fed in lineage order: the block, its edited form,
 * or null (out of scope, or hidden by an edit). The one rule for both the whole read and the stream.
 */
export function recordBlockFilter(session: Pick<Session, "lineage" | "compactions">, options: SessionBlocksOptions): (block: Block) => Block | null {
  const edits = latestEdits(session.lineage);
  let keep: ReadonlySet<string> | undefined;
  if (options.scope === "compacted") {
    const ids = new Set<string>();
    for (const compaction of session.compactions) for (const id of compaction.entryIds) ids.add(id);
    keep = ids;
  }
  const editedSeen = new Set<string>();
  return (block) => {
    if (keep !== undefined && !keep.has(block.entryId)) return null;
    const edit = edits.get(block.entryId);
    if (edit === undefined) return block;
    const first = !editedSeen.has(block.entryId);
    editedSeen.add(block.entryId);
    return editedBlock(block, edit, first);
  };
}

/** Active-lineage blocks with current context_edit replacements and omissions applied. */
export function recordBlocks(session: Session, options: SessionBlocksOptions = {}): Block[] {
  return recordBlocksAmong(session, lineageBlocks(session), options);
}

/**
 * `recordBlocks` of a run of lineage blocks the caller already holds (those a turn appended, in lineage
 * order, whole entries only): the same edits and omissions applied, without walking the whole lineage's
 * blocks. A later edit of a block outside `blocks` is the caller's to notice.
 */
export function recordBlocksAmong(session: Session, blocks: readonly Block[], options: SessionBlocksOptions = {}): Block[] {
  // An edit always follows the entry it targets, so only the lineage from the first block's entry on
  // can hold edits of these blocks: walk back to it rather than over the whole lineage every turn.
  const lineage = session.lineage;
  const first = blocks[0]?.entryId;
  let from = lineage.length;
  while (from > 0 && lineage[from - 1]?.id !== first) from--;
  const take = recordBlockFilter(from === 0 ? session : { lineage: lineage.slice(from - 1), compactions: session.compactions }, options);
  const out: Block[] = [];
  for (const block of blocks) {
    const kept = take(block);
    if (kept !== null) out.push(kept);
  }
  return out;
}

/** The time of the last entry read (file order), else the header's. */
export function lastEntryTime(session: Session): string | undefined {
  for (let i = session.entries.length - 1; i >= 0; i--) {
    const timestamp = session.entries[i]?.timestamp;
    if (typeof timestamp === "string" && timestamp.length > 0) return timestamp;
  }
  return session.header.timestamp;
}

export interface SessionRecordOptions extends SessionBlocksOptions {
  readonly seq: number;
  /** ISO-8601 time from input; defaults to the last entry's timestamp. */
  readonly at?: string | undefined;
  /** Default `compact`. */
  readonly trigger?: SeedTrigger;
  readonly usage?: Usage | undefined;
  readonly codes?: CodeAssigner | undefined;
}

/**
 * The record `buildCompactRecord` makes, from a session's shape (`readSessionShape`) and a second,
 * streamed read of its file: each lineage block's text is scanned as it goes by and dropped, so memory
 * holds the shape and the record's running fields, never the session's text. Output is identical.
 * Lineage entries always follow their parent in the file (Pi appends children); a file whose branch
 * runs backwards (a hand-edited one) cannot be scanned in one pass in lineage order, and is read whole.
 * Throws LedgerError LEDGER_CHANGED when the file no longer holds the shape's entries (replaced between
 * the two reads).
 */
export async function buildCompactRecordStreamed(shape: SessionShape, options: SessionRecordOptions): Promise<FoldIndexRecord> {
  return streamRecord(planRecordStream(shape, options), undefined);
}

/**
 * `buildCompactRecordStreamed` handing each span to `take` as its block goes by, codes from `codes`
 * (in the order `buildCompactRecordStreamed` assigns them), and returning the record without them
 * (`spans: []`): a record of a whole 1 GB session (a million spans) made in memory that does not grow
 * with its spans. `take` gets exactly the spans `buildCompactRecordStreamed` puts in its record.
 */
export async function streamCompactRecord(shape: SessionShape, options: Omit<SessionRecordOptions, "codes">, codes: Pick<CodeAssigner, "assign">, take: (span: Span) => void): Promise<FoldIndexRecord> {
  return streamPlannedRecord(planRecordStream(shape, options), codes, take);
}

/**
 * What the streamed read of a record needs of the session's shape, and no more: the lineage's entry ids
 * by file position, the edits to apply and the record's own fields. A caller that lets the shape go
 * once it has the plan (`streamPlannedRecord`) streams without the shape's entries in memory (on the
 * 1 GB bench session, 230 MB of a 512 MB budget).
 */
export interface RecordStreamPlan {
  readonly path: string;
  readonly cwd: string | undefined;
  /** The lineage's positions and id hashes (`lineageRoute`); undefined when it runs backwards in the file. */
  readonly route: LineageRoute | undefined;
  readonly take: (block: Block) => Block | null;
  readonly params: SeedRecordParams;
  readonly options: SessionRecordOptions;
}

/** The plan of a streamed record of `shape` (see RecordStreamPlan). */
export function planRecordStream(shape: SessionShape, options: SessionRecordOptions): RecordStreamPlan {
  const { session } = shape;
  const route = lineageInFileOrder(session) ? lineageRoute(session) : undefined;
  return { path: session.path, cwd: session.header.cwd, route, take: recordBlockFilter(session, { scope: options.scope ?? "compacted" }), params: recordParams(session, options), options };
}

/** `streamCompactRecord` from a plan: the shape it was made from need not be held any more. */
export async function streamPlannedRecord(plan: RecordStreamPlan, codes: Pick<CodeAssigner, "assign">, take: (span: Span) => void): Promise<FoldIndexRecord> {
  return streamRecord(plan, { codes, take });
}

async function streamRecord(plan: RecordStreamPlan, sink: SpanSink | undefined): Promise<FoldIndexRecord> {
  const { path, route, options } = plan;
  if (route === undefined) {
    const whole = await readSession(path);
    if (sink === undefined) return buildCompactRecord(whole, options);
    const blocks = recordBlocks(whole, { scope: options.scope ?? "compacted" });
    return createSeedAccumulator({ cwd: whole.header.cwd, spanSink: sink }).add(blocks).record(recordParams(whole, options));
  }
  const take = plan.take;
  const acc = createSeedAccumulator({ cwd: plan.cwd, spanSink: sink });
  for await (const item of streamRoute(route)) {
    const kept: Block[] = [];
    for (const block of item.blocks) {
      const b = take(block);
      if (b !== null) kept.push(b);
    }
    acc.add(kept);
  }
  return acc.record(plan.params);
}

/**
 * A record re-extracting a read session: by default all compacted history of the active branch
 * (`scope: "compacted"`), as a `compact` record does; `scope: "lineage"` covers the whole active lineage.
 */
export function buildCompactRecord(session: Session, options: SessionRecordOptions): FoldIndexRecord {
  const blocks = recordBlocks(session, { scope: options.scope ?? "compacted" });
  return createSeedAccumulator({ cwd: session.header.cwd }).add(blocks).record(recordParams(session, options));
}

/** The record's own fields, the same whether its blocks came from a whole read or a stream. */
function recordParams(session: Session, options: SessionRecordOptions): SeedRecordParams {
  const trigger = options.trigger ?? "compact";
  return { sessionId: session.header.id, seq: options.seq, at: options.at ?? lastEntryTime(session), trigger, usage: options.usage, codes: options.codes, favourRecent: trigger === "compact" };
}
