// Scans shared between seed accumulators fed the same block objects (the live extension feeds each
// block to the fold stretch's accumulator and to the compaction gate's): the second feed applies the
// first's scan instead of walking the text again. Keyed by the block object, weakly. A scan is kept
// until a second feed takes it, then dropped: the two readers are all the extension has, and holding
// every block's ranges for the session's lifetime made the process larger (and each fork for a shell
// command, and each collection, dearer) on every turn. A third reader (rare: a branch switch, a fold of
// a block from before the stretch) scans again, with the same result.
import type { Block } from "@context-fold/ledger-reader";
import { blockLog, sha256Hex } from "@context-fold/seed-index-format";
import { BlockScanner, type BlockScan } from "./block-scan.js";

/** A span's facts about its block's text: its log extent and sha256. */
export interface SpanFacts {
  readonly log: { readonly bytes: number; readonly lines: number };
  readonly sha256: string;
}

/** Pass one to every seed accumulator that is fed the same block objects (`createSeedAccumulator({ scans })`). */
export interface SeedScanCache {
  /** Blocks scanned through this cache (each once for two feeds, unless a later feed needs path candidates its scan skipped; a third feed scans again). */
  readonly scans: number;
  /** Feeds served from an earlier scan. */
  readonly hits: number;
  /** Span facts (sha256, log) computed through this cache; a second accumulator's spans reuse them. */
  readonly hashes: number;
}

interface Entry {
  /** Until a second feed takes it. */
  scan?: BlockScan | undefined;
  span?: SpanFacts;
}

/** The cache's inside, for the accumulator (not exported from the package). */
export class ScanCache implements SeedScanCache {
  readonly #entries = new WeakMap<Block, Entry>();
  readonly #scanner = new BlockScanner();
  #hits = 0;
  #hashes = 0;

  get scans(): number {
    return this.#scanner.scans;
  }
  get hits(): number {
    return this.#hits;
  }
  get hashes(): number {
    return this.#hashes;
  }

  /** The scan of `block` (see `BlockScanner.scan`); an earlier one serves when it has the path candidates asked for. */
  scan(block: Block, paths: boolean): BlockScan {
    let entry = this.#entries.get(block);
    const held = entry?.scan;
    if (held !== undefined && (held.paths !== undefined || !paths)) {
      this.#hits += 1;
      // Served to its second reader: no one asks again (an accumulator takes a block once), so the scan
      // (token and path ranges, tens of KB for a long output) is not kept for the session's lifetime.
      if (entry !== undefined) entry.scan = undefined;
      return held;
    }
    const scan = this.#scanner.scan(block, paths, true);
    if (entry === undefined) this.#entries.set(block, (entry = {}));
    entry.scan = scan;
    return scan;
  }

  span(block: Block): SpanFacts {
    let entry = this.#entries.get(block);
    if (entry?.span !== undefined) return entry.span;
    const span = spanFacts(block.text);
    this.#hashes += 1;
    if (entry === undefined) this.#entries.set(block, (entry = {}));
    entry.span = span;
    return span;
  }
}

export function spanFacts(text: string): SpanFacts {
  return { log: blockLog(text), sha256: sha256Hex(text) };
}

/** A cache to share among the seed accumulators fed the same block objects. */
export function createSeedScanCache(): SeedScanCache {
  return new ScanCache();
}
