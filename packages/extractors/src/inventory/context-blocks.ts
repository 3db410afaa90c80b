// The blocks of what Pi would send the model for a session's active leaf: the latest compaction's
// summary, the kept and later entries, current context_edit replacements applied, `!!` output left out.
import { contextEntries, type Block, type Entry, type LineageRoute, lineageInFileOrder, lineageRoute, readSession, type Session, type SessionShape, streamLineage, streamRoute } from "@context-fold/ledger-reader";
import { recordBlockFilter, recordBlocks, recordBlocksAmong } from "../seed/session-record.js";

function excludedFromContext(raw: Readonly<Record<string, unknown>>): boolean {
  const message = raw["message"];
  return typeof message === "object" && message !== null && (message as { excludeFromContext?: unknown }).excludeFromContext === true;
}

/**
 * Ids of the lineage entries Pi selects for context (the newest compaction, kept and later entries),
 * before `excludedFromContext` is asked of each: read off entry types and a compaction's cut alone, so a
 * shape read (no message content) gives the same set.
 */
export function contextEntryIds(lineage: readonly Entry[]): Set<string> {
  const ids = new Set<string>();
  contextEntries(lineage).forEach((entry, i) => {
    // Only the newest compaction (first in the selection) reaches the model; an older one kept in range is silent.
    if (entry.type === "compaction" && i > 0) return;
    ids.add(entry.id);
  });
  return ids;
}

/** In-context blocks of the active leaf, in `#N` order (what the inventory accounts for). */
export function contextBlocks(session: Session): Block[] {
  const ids = contextEntryIds(session.lineage);
  for (const entry of session.lineage) if (ids.has(entry.id) && excludedFromContext(entry.raw)) ids.delete(entry.id);
  return recordBlocks(session).filter((block) => ids.has(block.entryId));
}

/**
 * `contextBlocks` from a session's shape and one streamed read of its lineage: only the context's
 * entries keep their blocks (the shape has no message content to tell an `!!` entry by, so that is
 * asked of each streamed entry). A lineage that runs backwards in the file is read whole.
 */
export async function contextBlocksStreamed(shape: SessionShape): Promise<Block[]> {
  const { session } = shape;
  if (!lineageInFileOrder(session)) return contextBlocks(await readSession(session.path));
  const ids = contextEntryIds(session.lineage);
  const held: Block[] = [];
  for await (const { entry, blocks } of streamLineage(session)) if (ids.has(entry.id) && !excludedFromContext(entry.raw)) held.push(...blocks);
  return recordBlocksAmong(session, held);
}

/**
 * What a streamed read of the context needs of a session's shape, so the shape can be let go before
 * the stream: the lineage's route, which lineage entries Pi selects for context (one byte per lineage
 * entry), and the context_edit rule (the edits on the lineage, few). Undefined when the lineage runs
 * backwards in the file (read whole: `contextBlocks`).
 */
export interface ContextPlan {
  readonly route: LineageRoute;
  /** 1 at the lineage index of an entry Pi selects for context (before `!!` exclusion, asked of each streamed entry). */
  readonly selected: Uint8Array;
  /** The block as the context holds it (edits applied), or null when an edit hides it. */
  readonly take: (block: Block) => Block | null;
  /** At most this many context blocks (the selected entries' blocks in the file; `!!` and edits may leave out some). */
  readonly blocks: number;
}

export function contextPlan(shape: SessionShape): ContextPlan | undefined {
  const { session, blockStart, blockCount } = shape;
  if (!lineageInFileOrder(session)) return undefined;
  const ids = contextEntryIds(session.lineage);
  const selected = new Uint8Array(session.lineage.length);
  let blocks = 0;
  session.lineage.forEach((entry, i) => {
    if (!ids.has(entry.id)) return;
    selected[i] = 1;
    blocks += (blockStart[entry.position + 1] ?? blockCount) - (blockStart[entry.position] ?? blockCount);
  });
  return { route: lineageRoute(session), selected, take: recordBlockFilter(session, {}), blocks };
}

/**
 * The context's blocks, one streamed entry at a time, handed to `each` in `#N` order (the same blocks
 * as `contextBlocks`, which holds them all): the caller keeps what it needs of each and lets the text go.
 */
export async function forEachContextBlock(plan: ContextPlan, each: (block: Block) => void): Promise<void> {
  let at = 0;
  for await (const { entry, blocks } of streamRoute(plan.route)) {
    const i = at++;
    if (plan.selected[i] !== 1 || excludedFromContext(entry.raw)) continue;
    for (const block of blocks) {
      const kept = plan.take(block);
      if (kept !== null) each(kept);
    }
  }
}
