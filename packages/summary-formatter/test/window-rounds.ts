// Repeated compaction with window-scope facts, as the eval chains it: the session as it stood at N
// evenly spaced points of its lineage (byte prefixes of the file), each round extracting facts only
// from the blocks after the previous cut and relying on the merge with the previous summary.
import { readFileSync } from "node:fs";
import { createFactsAccumulator } from "@context-fold/extractors";
import { type Block, parseSessionText, type Session } from "@context-fold/ledger-reader";
import { type CompactResult, compactWithFacts, planCut, SummaryError } from "@context-fold/summary-formatter";

export interface WindowRounds {
  /** The last compaction of the chain (over the whole session). */
  readonly final: CompactResult;
  /** Lineage blocks before the final cut (what the final summary stands for). */
  readonly before: readonly Block[];
  /** Rounds that compacted something. */
  readonly compacted: number;
}

function prefix(session: Session, bytes: Buffer, lineageIndex: number): Session {
  const entry = session.lineage[lineageIndex];
  if (entry === undefined) return session;
  return parseSessionText(`${bytes.subarray(0, entry.byteOffset + entry.byteLength).toString("utf8")}\n`, session.path);
}

/** Runs `rounds` window-scope compactions over growing prefixes of `session`, each merged onto the last. */
export function windowRounds(session: Session, rounds: number, budget?: number): WindowRounds {
  const bytes = readFileSync(session.path);
  const L = session.lineage.length;
  const cwd = session.header.cwd;
  let previous: string | undefined;
  let final: CompactResult | null = null;
  let before: readonly Block[] = [];
  let after = -1;
  let compacted = 0;
  for (let round = 1; round <= rounds; round++) {
    const view = round === rounds ? session : prefix(session, bytes, Math.max(0, Math.ceil((round * L) / rounds) - 1));
    let plan: ReturnType<typeof planCut>;
    try {
      plan = planCut(view);
    } catch (error) {
      if (error instanceof SummaryError && error.code === "NOTHING_TO_COMPACT") continue;
      throw error;
    }
    const acc = createFactsAccumulator(cwd === undefined ? {} : { cwd });
    acc.add(plan.lineageBefore.filter((b) => b.index > after));
    final = compactWithFacts(
      view,
      { facts: acc.facts(), artifacts: acc.artifacts() },
      { scope: "window", ...(previous === undefined ? {} : { previous }), ...(budget === undefined ? {} : { budget }) },
    );
    compacted++;
    previous = final.summary;
    before = plan.lineageBefore;
    after = plan.lineageBefore[plan.lineageBefore.length - 1]?.index ?? after;
  }
  if (final === null) throw new Error(`${session.path}: no round compacted anything`);
  return { final, before, compacted };
}
