// What the active lineage gained since a caller last looked: the blocks of the lineage entries after a
// given entry, found by walking back from the leaf over the new entries only. Per-turn consumers (the
// extension's auto-retain, accumulators fed between turns) pay for what a turn appended, never for
// the session.
import { blocksOfEntry } from "./read-session.js";
import type { Block, Session } from "./types.js";

/**
 * The blocks of the lineage entries after `entryId`, in lineage order; undefined when `entryId` is not
 * on the active lineage (Pi moved to another branch, or it never was): the caller starts over from
 * `lineageBlocks`. With `entryId` null (nothing seen yet) every lineage block is new.
 */
export function lineageBlocksAfter(session: Session, entryId: string | null): Block[] | undefined {
  if (entryId !== null && !session.lineageIds.has(entryId)) return undefined;
  const fresh: Block[][] = [];
  for (let i = session.lineage.length - 1; i >= 0; i--) {
    const entry = session.lineage[i];
    if (entry === undefined || entry.id === entryId) break;
    fresh.push(blocksOfEntry(session, entry));
  }
  return fresh.reverse().flat();
}
