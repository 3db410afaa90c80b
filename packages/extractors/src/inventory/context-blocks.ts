// The blocks of what Pi would send the model for a session's active leaf: the latest compaction's
// summary, the kept and later entries, current context_edit replacements applied, `!!` output left out.
import { contextEntries, type Block, type Entry, lineageInFileOrder, readSession, type Session, type SessionShape, streamLineage } from "@context-fold/ledger-reader";
import { recordBlocks, recordBlocksAmong } from "../seed/session-record.js";

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
