// The blocks of what Pi would send the model for a session's active leaf: the latest compaction's
// summary, the kept and later entries, current context_edit replacements applied, `!!` output left out.
import { contextEntries, type Block, type Session } from "@context-fold/ledger-reader";
import { recordBlocks } from "../seed/session-record.js";

function excludedFromContext(raw: Readonly<Record<string, unknown>>): boolean {
  const message = raw["message"];
  return typeof message === "object" && message !== null && (message as { excludeFromContext?: unknown }).excludeFromContext === true;
}

/** In-context blocks of the active leaf, in `#N` order (what the inventory accounts for). */
export function contextBlocks(session: Session): Block[] {
  const selected = contextEntries(session.lineage);
  const ids = new Set<string>();
  selected.forEach((entry, i) => {
    // Only the newest compaction (first in the selection) reaches the model; an older one kept in range is silent.
    if (entry.type === "compaction" && i > 0) return;
    if (excludedFromContext(entry.raw)) return;
    ids.add(entry.id);
  });
  return recordBlocks(session).filter((block) => ids.has(block.entryId));
}
