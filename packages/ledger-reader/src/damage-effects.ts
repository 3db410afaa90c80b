// What each damaged line does to Pi's view of the session: the entries it orphans (Pi starts a new root
// there), a compaction Pi never sees, Pi's active branch cut short at the break, entries Pi drops. Decided
// by structure only: ids and parentIds on and around the line, and where the line sits.
import { recoveredLineage } from "./read-session.js";
import type { Damage, Entry, Session } from "./types.js";

export type DamageConsequence =
  /** A kept entry whose parent was on the damaged line: Pi makes it a root. */
  | { readonly kind: "orphaned-entry"; readonly entryId: string; readonly line: number }
  /** A compaction on the line (recovered or salvaged) that Pi never applies. */
  | { readonly kind: "lost-compaction"; readonly entryId?: string }
  /**
   * Pi's active branch starts at `startsAt` (an orphan of this line): `entriesBefore` entries before the
   * break, reachable only through the damaged line, are outside Pi's branch and context.
   */
  | { readonly kind: "branch-cut-short"; readonly startsAt: string; readonly entriesBefore: number }
  /** Entries recovered from the line that Pi drops (and, when they were last, Pi's leaf moves back to `piLeaf`). */
  | { readonly kind: "dropped-by-pi"; readonly entries: number; readonly piLeaf?: string | null };

export interface DamageEffect {
  readonly damage: Damage;
  readonly consequences: readonly DamageConsequence[];
}

/** Ids of the entries recovered from each line. */
function recoveredByLine(entries: readonly Entry[]): Map<number, Entry[]> {
  const out = new Map<number, Entry[]>();
  for (const e of entries) {
    if (!e.recovered) continue;
    const list = out.get(e.line);
    if (list === undefined) out.set(e.line, [e]);
    else list.push(e);
  }
  return out;
}

/** One effect per damaged line, in file order (blank lines and a merely missing final newline have none). */
export function damageEffects(session: Session): DamageEffect[] {
  if (session.damaged.length === 0) return [];
  const byLine = recoveredByLine(session.entries);
  // Only the children of ids on a damaged line can be orphans of it: a list per parent of every entry
  // would hold one array per entry (≈190 MB on a 900k-entry session).
  const parents = new Set<string>();
  for (const damage of session.damaged) {
    for (const e of byLine.get(damage.line) ?? []) parents.add(e.id);
    if (damage.salvage?.id !== undefined) parents.add(damage.salvage.id);
  }
  const childrenOf = new Map<string, Entry[]>();
  if (parents.size > 0) {
    for (const e of session.entries) {
      if (e.recovered || e.parentId === null || !parents.has(e.parentId)) continue;
      const list = childrenOf.get(e.parentId);
      if (list === undefined) childrenOf.set(e.parentId, [e]);
      else list.push(e);
    }
  }
  const piRoot = session.lineage[0];
  let recovered: Entry[] | undefined;
  const lastKept = session.leafId === null ? undefined : session.byId.get(session.leafId);
  const effects: DamageEffect[] = [];
  for (const damage of session.damaged) {
    const onLine = byLine.get(damage.line) ?? [];
    const ids = new Set(onLine.map((e) => e.id));
    if (damage.salvage?.id !== undefined) ids.add(damage.salvage.id);
    const consequences: DamageConsequence[] = [];
    if (onLine.length > 0) {
      const afterLeaf = lastKept === undefined || onLine.every((e) => e.position > lastKept.position);
      consequences.push(afterLeaf ? { kind: "dropped-by-pi", entries: onLine.length, piLeaf: session.leafId } : { kind: "dropped-by-pi", entries: onLine.length });
    }
    for (const e of onLine) if (e.type === "compaction") consequences.push({ kind: "lost-compaction", entryId: e.id });
    if (damage.salvage?.type === "compaction") consequences.push({ kind: "lost-compaction", ...(damage.salvage.id === undefined ? {} : { entryId: damage.salvage.id }) });
    for (const id of ids) {
      for (const child of childrenOf.get(id) ?? []) {
        // A child on the same line is part of the damage, not an orphan of it.
        if (child.line === damage.line) continue;
        consequences.push({ kind: "orphaned-entry", entryId: child.id, line: child.line });
        if (piRoot !== undefined && child.id === piRoot.id) {
          // The entries before the orphan on the recovered branch: what Pi's branch no longer reaches.
          recovered ??= recoveredLineage(session);
          const before = recovered.findIndex((e) => e.id === child.id);
          consequences.push({ kind: "branch-cut-short", startsAt: child.id, entriesBefore: Math.max(0, before) });
        }
      }
    }
    effects.push({ damage, consequences });
  }
  return effects;
}

/** One line of prose per consequence (inspect, compact and handoff print these). */
export function describeConsequence(c: DamageConsequence): string {
  switch (c.kind) {
    case "orphaned-entry":
      return `orphans entry ${c.entryId} (line ${String(c.line)}): Pi starts a new root there`;
    case "lost-compaction":
      return `a compaction${c.entryId === undefined ? "" : ` (${c.entryId})`} Pi never applies`;
    case "branch-cut-short":
      return `Pi's active branch starts at ${c.startsAt}: ${String(c.entriesBefore)} entr${c.entriesBefore === 1 ? "y" : "ies"} before the break are outside Pi's branch and context`;
    case "dropped-by-pi":
      return `Pi drops ${String(c.entries)} entr${c.entries === 1 ? "y" : "ies"} recovered here${c.piLeaf === undefined ? "" : `; Pi's leaf is ${c.piLeaf ?? "(none)"}`}`;
  }
}
