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
 * Our active lineage and context view equal Pi's, compared by position and content; recovered torn-line
 * entries (which Pi drops) are left out of ours.
 */
export function expectSameAsPi(ours: Session, pi: SessionManager): void {
  const piBranch = pi.getBranch() as unknown as Raw[];
  const ourBranch = ours.lineage.filter((e) => !e.recovered);
  expect(ourBranch.map((e) => content(e.raw as Raw))).toEqual(piBranch.map(content));
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
  const projection = pi.buildSessionProjection();
  const view = contextView(ours).filter((item) => !item.entry.recovered);
  expect(view.map((item) => item.message)).toEqual(projection.messages);
  const sources = projection.entries.flatMap((p) => p.messages.map(() => content(p.sourceEntry as unknown as Raw)));
  expect(view.map((item) => content(item.entry.raw as Raw))).toEqual(sources);
}
