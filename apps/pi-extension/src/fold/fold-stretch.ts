// The stretch of the session the next fold event will describe: every lineage block after the last
// fold event's stretch, fed to the extractors' incremental accumulator while the model works (in
// slices, in the background), so a fold event only asks for the record — each block scanned once.
import { createSeedAccumulator, type SeedAccumulator, type SeedScanCache } from "@context-fold/extractors";
import { type Block, blocksWithAnchor, type Session } from "@context-fold/ledger-reader";
import type { FoldIndexRecord } from "@context-fold/seed-index-format";
import type { FoldState } from "./fold-state.js";

/** Blocks fed between two yields to the event loop (keeps Pi's UI responsive while we scan). */
const SLICE = 64;

export type StretchRecordParams = Omit<Parameters<SeedAccumulator["record"]>[0], "spanFilter">;

export class FoldStretch {
  readonly #cwd: string | undefined;
  readonly #scans: SeedScanCache | undefined;
  #acc: SeedAccumulator;
  /** Highest `#N` fed (or covered by an earlier record); undefined until the first feed. */
  #fed: number | undefined;
  /** First `#N` of the current stretch. */
  #from = 0;

  constructor(cwd?: string, scans?: SeedScanCache) {
    this.#cwd = cwd;
    this.#scans = scans;
    this.#acc = createSeedAccumulator({ cwd, scans });
  }

  /** Index of the last block the stretch holds (-1 before anything). */
  get fedThrough(): number {
    return this.#fed ?? -1;
  }

  /** After a restart, start past the blocks the restored records already cover. */
  #start(session: Session, state: FoldState): number {
    if (this.#fed !== undefined) return this.#fed;
    let covered = -1;
    for (const span of state.spans()) for (const block of blocksWithAnchor(session, span.blockId)) if (block.index > covered) covered = block.index;
    this.#fed = covered;
    this.#from = covered + 1;
    return covered;
  }

  #take(session: Session, from: number, to: number): Block[] {
    const out: Block[] = [];
    for (let i = from; i <= to; i++) {
      const block = session.blocks[i];
      if (block !== undefined && session.lineageIds.has(block.entryId)) out.push(block);
    }
    return out;
  }

  /** Feed the lineage blocks up to `#limit` now. */
  feed(session: Session, state: FoldState, limit: number): void {
    const from = this.#start(session, state) + 1;
    const to = Math.min(limit, session.blocks.length - 1);
    if (to < from) return;
    this.#acc.add(this.#take(session, from, to));
    this.#fed = to;
  }

  /** Feed up to `#limit` in slices, yielding between them (background catch-up). */
  async feedInSlices(session: Session, state: FoldState, limit: number): Promise<void> {
    const to = Math.min(limit, session.blocks.length - 1);
    for (let from = this.#start(session, state) + 1; from <= to; from = (this.#fed ?? -1) + 1) {
      const end = Math.min(to, from + SLICE - 1);
      this.#acc.add(this.#take(session, from, end));
      this.#fed = end;
      if (end < to) await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /**
   * The record over the stretch, spans for `chosen` only; blocks chosen from before the stretch (rare:
   * they were protected at the last fold) are added first. Starts a new stretch after it.
   */
  record(session: Session, chosen: ReadonlySet<number>, params: StretchRecordParams): FoldIndexRecord {
    const before = [...chosen].filter((index) => index < this.#from).sort((a, b) => a - b);
    if (before.length > 0) this.#acc.add(before.flatMap((index) => session.blocks[index] ?? []));
    return this.#acc.record({ ...params, spanFilter: (block) => chosen.has(block.index) });
  }

  /** The record was appended: the next stretch starts after what this one fed. */
  restart(): void {
    this.#acc = createSeedAccumulator({ cwd: this.#cwd, scans: this.#scans });
    this.#from = (this.#fed ?? -1) + 1;
  }
}
