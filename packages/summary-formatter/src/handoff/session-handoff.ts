// A handoff straight from a read session: facts and artifacts over the active lineage, `now` defaulting
// to the last entry's time. What the CLI and the Pi extension call.
import { createFactsAccumulator, type FactsAccumulator, lastEntryTime } from "@context-fold/extractors";
import { type Block, type Entry, type LineageRoute, lineageBlocks, lineageInFileOrder, lineageRoute, readSession, type Session, type SessionShape, streamRoute } from "@context-fold/ledger-reader";
import type { FoldIndexRecord } from "@context-fold/seed-index-format";
import { HandoffError } from "./errors.js";
import { AnchorsByIndex } from "./anchors-by-index.js";
import { buildHandoffDoc, type FoldSpans, type HandoffDoc, latestFoldSpans, type SeedSpanWalk } from "./handoff-doc.js";
import { renderHandoff } from "./render-handoff.js";

export interface SessionHandoffOptions {
  readonly goal?: string | undefined;
  /** ISO-8601 time printed; default the last entry's timestamp. */
  readonly now?: string | undefined;
  /** The seed index's current view. */
  readonly seedRecords?: readonly FoldIndexRecord[] | undefined;
  /** Its spans walked instead of held (a view too large to hold; see `SeedSpanWalk`): `seedRecords` is not read. */
  readonly seedSpans?: SeedSpanWalk | undefined;
  readonly seedIndexFile?: string | undefined;
  /** The session file as the recall commands should name it (default `session.path`). */
  readonly sessionFile?: string | undefined;
  readonly maxSpans?: number | undefined;
}

export interface SessionHandoff {
  readonly doc: HandoffDoc;
  readonly markdown: string;
}

/** The handoff of a read session (`readSession`), ready to write with `writeHandoff`. */
export function sessionHandoff(session: Session, options: SessionHandoffOptions = {}): SessionHandoff {
  const now = handoffTime(session, options, lastEntryTime(session));
  const blocks = lineageBlocks(session);
  const acc = createFactsAccumulator(session.header.cwd === undefined ? {} : { cwd: session.header.cwd });
  acc.add(blocks);
  return handoffOf(session, acc, blocks, now, options);
}

/**
 * `sessionHandoff` from a session's shape (`readSessionShape`) and one streamed read of its lineage:
 * each entry's blocks are fed to the facts accumulator and dropped, only the `#N` anchors the pointers
 * name are kept. Output is identical. A lineage that runs backwards in the file is read whole.
 * `options` may be a function giving them: it is called once the shape is let go (only the lineage's
 * route, the header and the last entry's time kept), so that what it reads (the CLI: the seed index)
 * does not come on top of the shape. The fold spans of a walked view (`seedSpans`) are picked before the
 * stream, on that heap, not after it on top of the facts.
 * `observe`, when given, is handed every lineage entry of the stream with its blocks, in lineage order
 * (as `compactSessionStreamed`'s; the CLI gives V8's emptied pages back at the first); it is not called
 * when the session is read whole.
 */
export async function sessionHandoffStreamed(
  shape: SessionShape,
  options: SessionHandoffOptions | (() => Promise<SessionHandoffOptions>) = {},
  observe?: (entry: Entry, blocks: readonly Block[]) => void,
): Promise<SessionHandoff> {
  const { session } = shape;
  if (!lineageInFileOrder(session)) return sessionHandoff(await readSession(session.path), typeof options === "function" ? await options() : options);
  // Of the shape only the lineage's route, the header and the time are kept: it is garbage before the
  // options are asked for and the stream starts (≈230 MB of heap on a 1 GB session).
  return handoffAlong({ path: session.path, header: session.header }, lineageRoute(session), lastEntryTime(session), options, observe);
}

async function handoffAlong(
  session: HandoffSession,
  route: LineageRoute,
  lastTime: string | undefined,
  optionsOf: SessionHandoffOptions | (() => Promise<SessionHandoffOptions>),
  observe: ((entry: Entry, blocks: readonly Block[]) => void) | undefined,
): Promise<SessionHandoff> {
  const options = typeof optionsOf === "function" ? await optionsOf() : optionsOf;
  const now = handoffTime(session, options, lastTime);
  // On the 1 GB bench session the view's million spans are read back from one 213 MB line: walked here,
  // the walk's garbage is not on top of the facts and anchors the stream gathers.
  const foldSpans: FoldSpans | undefined = options.seedSpans === undefined ? undefined : latestFoldSpans(options, options.maxSpans);
  const acc = createFactsAccumulator(session.header.cwd === undefined ? {} : { cwd: session.header.cwd });
  // Packed (anchors-by-index.ts), not a string per block (≈1 M on a 1 GB session, 71 MB as strings).
  const anchors = new AnchorsByIndex();
  for await (const { entry, blocks } of streamRoute(route)) {
    observe?.(entry, blocks);
    acc.add(blocks);
    for (const b of blocks) if (b.anchor !== undefined) anchors.add(b.index, b.anchor);
  }
  return handoffOf(session, acc, anchors, now, foldSpans === undefined ? options : { ...options, foldSpans });
}

/** What a handoff names of its session besides the facts. */
type HandoffSession = Pick<Session, "path" | "header">;

function handoffTime(session: HandoffSession, options: SessionHandoffOptions, lastTime: string | undefined): string {
  const now = options.now ?? lastTime;
  if (now === undefined) {
    throw new HandoffError("HANDOFF_NO_TIME", session.path, `${session.path} has no timestamp to date the handoff: pass the time (--now <iso>)`);
  }
  return now;
}

function handoffOf(
  session: HandoffSession,
  acc: FactsAccumulator,
  blocks: Iterable<{ readonly index: number; readonly anchor?: string }>,
  now: string,
  options: SessionHandoffOptions & { readonly foldSpans?: FoldSpans },
): SessionHandoff {
  const doc = buildHandoffDoc({
    sessionId: session.header.id,
    sessionFile: options.sessionFile ?? session.path,
    facts: acc.facts(),
    artifacts: acc.artifacts(),
    now,
    blocks,
    ...(options.goal === undefined ? {} : { goal: options.goal }),
    ...(options.seedRecords === undefined ? {} : { seedRecords: options.seedRecords }),
    ...(options.seedSpans === undefined ? {} : { seedSpans: options.seedSpans }),
    ...(options.foldSpans === undefined ? {} : { foldSpans: options.foldSpans }),
    ...(options.seedIndexFile === undefined ? {} : { seedIndexFile: options.seedIndexFile }),
    ...(options.maxSpans === undefined ? {} : { maxSpans: options.maxSpans }),
  });
  return { doc, markdown: renderHandoff(doc) };
}
