// The active lineage's ids as a read-only set answered from entry positions, for a read that is never
// updated (the shape): a Set of 900k ids costs ≈20 MB, a lineage index per position 4 bytes an entry.
import type { Entry } from "./types.js";

/**
 * Lineage index by entry position (−1: not on the lineage), and the look-ups a shape's lineage needs.
 * Every lineage entry came from `byId`, so the entry `byId` gives for an id is the lineage's when the
 * id is on it: the same answers as an id → index map built over the lineage.
 */
export class LineageIndex {
  constructor(
    private readonly byId: ReadonlyMap<string, Entry>,
    private readonly indexByPosition: Int32Array,
  ) {}

  /** The lineage index of the entry with this id, or undefined when it is not on the lineage. */
  get(id: string): number | undefined {
    const entry = this.byId.get(id);
    if (entry === undefined) return undefined;
    const index = this.indexByPosition[entry.position] ?? -1;
    return index >= 0 ? index : undefined;
  }
}

/** `Session.lineageIds` of a shape: the ids in lineage order, membership by position. */
export class LineageIdSet implements ReadonlySet<string> {
  constructor(
    private readonly lineage: readonly Entry[],
    private readonly index: LineageIndex,
  ) {}

  get size(): number {
    return this.lineage.length;
  }

  has(id: string): boolean {
    return this.index.get(id) !== undefined;
  }

  *keys(): SetIterator<string> {
    for (const entry of this.lineage) yield entry.id;
  }

  values(): SetIterator<string> {
    return this.keys();
  }

  *entries(): SetIterator<[string, string]> {
    for (const entry of this.lineage) yield [entry.id, entry.id];
  }

  forEach(callback: (value: string, key: string, set: ReadonlySet<string>) => void, thisArg?: unknown): void {
    for (const entry of this.lineage) callback.call(thisArg, entry.id, entry.id, this);
  }

  [Symbol.iterator](): SetIterator<string> {
    return this.keys();
  }
}
