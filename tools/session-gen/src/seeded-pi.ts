// Runs a synchronous block of SessionManager calls with Pi's id source (crypto.randomUUID) and clock
// (Date) replaced by seeded ones, so Pi itself writes entries whose ids and timestamps follow the seed.
import nodeCrypto from "node:crypto";
import { syncBuiltinESMExports } from "node:module";
import type { SeededRandom } from "./random.js";

/** The clock Pi sees: `new Date()` and `Date.now()` return `now` while the block runs. */
export interface SeededClock {
  now: number;
}

/**
 * Pi 1.6.0 takes entry ids from `randomUUID().slice(0, 8)` (imported from "crypto") and timestamps
 * from `new Date()`. We swap both for the duration of `block` and restore them in `finally`. The block
 * must be synchronous (SessionManager's writes are), so no other code can observe the swap.
 */
export function withSeededPi<T>(ids: SeededRandom, clock: SeededClock, block: () => T): T {
  const originalUuid = nodeCrypto.randomUUID;
  const OriginalDate = globalThis.Date;
  class SeededDate extends OriginalDate {
    constructor(...args: [] | [string | number | Date]) {
      if (args.length === 0) super(clock.now);
      else super(args[0]);
    }
    static override now(): number {
      return clock.now;
    }
  }
  const seededUuid = (): `${string}-${string}-${string}-${string}-${string}` =>
    ids.uuid() as `${string}-${string}-${string}-${string}-${string}`;
  nodeCrypto.randomUUID = seededUuid;
  syncBuiltinESMExports();
  globalThis.Date = SeededDate as DateConstructor;
  try {
    return block();
  } finally {
    globalThis.Date = OriginalDate;
    nodeCrypto.randomUUID = originalUuid;
    syncBuiltinESMExports();
  }
}
