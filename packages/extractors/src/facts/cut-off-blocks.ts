// The part of the active branch a damaged line cut off Pi's view. A line that does not parse breaks the
// parent chain: Pi drops it, makes the entry after it a root, and its branch (and context) starts there.
// The entries before the break are still the same conversation — the recovered view walks across the
// damaged line through its readable `parentId` — unlike an abandoned branch, which the recovered view
// does not reach either. What the user said there, the files written and the commits made happened in
// this session: a summary keeps them (summary-formatter merges them as it merges the kept tail's).
import { blocksOfEntry, type Block, type Entry, recoveredLineage, type Session } from "@context-fold/ledger-reader";

/** The active branch's entries root first: across damaged lines when one cut part of it off Pi's view, else Pi's lineage. */
export function branchPath(session: Session): readonly Entry[] {
  // The recovered view differs from Pi's only when something was recovered or a line broke a chain.
  const differs = session.recoveredLineageIds !== session.lineageIds && session.recoveredLineageIds.size !== session.lineageIds.size;
  return differs ? recoveredLineage(session) : session.lineage;
}

/** Blocks of the recovered branch's entries before Pi's root, ascending #N (none when no line broke a chain). */
export function cutOffBlocks(session: Session): Block[] {
  const root = session.lineage[0];
  const path = branchPath(session);
  if (root === undefined || path === session.lineage) return [];
  const out: Block[] = [];
  for (const entry of path) {
    if (entry.position >= root.position) break;
    if (!session.lineageIds.has(entry.id)) out.push(...blocksOfEntry(session, entry));
  }
  return out;
}
