// Pi as the oracle: writes sessions with Pi's own SessionManager and compares what Pi makes of a file
// (active branch, context projection) with what the ledger reader makes of it, by position and content.
import { copyFileSync } from "node:fs";
import { basename, join } from "node:path";
import { SessionManager } from "@earendil-works/pi-coding-agent";
import { contextView, type Session } from "@context-fold/ledger-reader";
import { expect } from "vitest";

type Raw = Record<string, unknown>;

/** An entry without the fields v1 migration makes up (Pi's ids are random there). */
function content(raw: Raw): Raw {
  const { id: _id, parentId: _parentId, firstKeptEntryId: _kept, firstKeptEntryIndex: _index, ...rest } = raw;
  return rest;
}

/** Open a temp copy with Pi (Pi rewrites v1/v2 files in place: never hand it the original). */
export function openWithPi(file: string, dir: string): SessionManager {
  const copy = join(dir, `pi-${basename(file)}`);
  copyFileSync(file, copy);
  return SessionManager.open(copy, dir);
}

/**
 * Our Pi view equals Pi's, compared by position and content (v1 ids are random in Pi's migration): the
 * active branch (no recovered entry on it), the leaf, every compaction on it (its cut and
 * tokensBefore), and the context projection with its source entries.
 */
export function expectSameAsPi(ours: Session, pi: SessionManager): void {
  const piBranch = pi.getBranch() as unknown as Raw[];
  const ourBranch = ours.lineage;
  expect(ourBranch.filter((e) => e.recovered)).toEqual([]);
  expect(ourBranch.map((e) => content(e.raw as Raw))).toEqual(piBranch.map(content));
  expect(ours.leafId === null).toBe(pi.getLeafId() === null);
  if (ours.leafId !== null) expect(ourBranch.at(-1)?.id).toBe(ours.leafId);
  // firstKeptEntryId points at the same position on both sides.
  const piPos = new Map(piBranch.map((e, i) => [e["id"], i]));
  const ourPos = new Map(ourBranch.map((e, i) => [e.id, i]));
  ourBranch.forEach((entry, i) => {
    if (entry.type !== "compaction") return;
    const theirs = piBranch[i]?.["firstKeptEntryId"];
    const mine = entry.raw["firstKeptEntryId"];
    const theirPos = theirs === piBranch[i]?.["id"] ? "self" : piPos.get(theirs);
    const myPos = mine === entry.id ? "self" : ourPos.get(mine as string);
    expect(myPos).toEqual(theirPos);
  });
  // Compaction segments: one per compaction on Pi's branch, with its tokensBefore.
  const piCompactions = piBranch.filter((e) => e["type"] === "compaction");
  expect(ours.compactions.map((c) => [ourPos.get(c.entryId), c.tokensBefore])).toEqual(
    piCompactions.map((e) => [piPos.get(e["id"]), typeof e["tokensBefore"] === "number" ? e["tokensBefore"] : undefined]),
  );
  const projection = pi.buildSessionProjection();
  const view = contextView(ours);
  expect(view.map((item) => item.message)).toEqual(projection.messages);
  const sources = projection.entries.flatMap((p) => p.messages.map(() => content(p.sourceEntry as unknown as Raw)));
  expect(view.map((item) => content(item.entry.raw as Raw))).toEqual(sources);
}
