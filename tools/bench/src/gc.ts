// Collections while part of a bench run goes on (count and wall ms, by kind), from Node's `gc`
// performance entries: what the measured turns allocated, theirs and everything else's.
import { constants as perfConstants, PerformanceObserver, type PerformanceObserverEntryList } from "node:perf_hooks";

export interface GcTally {
  minor: number;
  minorMs: number;
  major: number;
  majorMs: number;
}

/** Count collections from now until the returned function is called (which returns the tally). */
export function watchGc(): () => Promise<GcTally> {
  const tally: GcTally = { minor: 0, minorMs: 0, major: 0, majorMs: 0 };
  const take = (list: PerformanceObserverEntryList): void => {
    for (const entry of list.getEntries()) {
      const kind = (entry as { detail?: { kind?: number } }).detail?.kind;
      if (kind === perfConstants.NODE_PERFORMANCE_GC_MAJOR) {
        tally.major += 1;
        tally.majorMs += entry.duration;
      } else if (kind === perfConstants.NODE_PERFORMANCE_GC_MINOR) {
        tally.minor += 1;
        tally.minorMs += entry.duration;
      }
    }
  };
  const observer = new PerformanceObserver(take);
  observer.observe({ entryTypes: ["gc"] });
  return async () => {
    // Entries are delivered after the collection, on a later tick: let the last ones arrive.
    await new Promise((resolve) => setImmediate(resolve));
    take({ getEntries: () => observer.takeRecords() } as PerformanceObserverEntryList);
    observer.disconnect();
    return tally;
  };
}

/** The tally in a note: `N minor (X ms), M major (Y ms)`. */
export function describeGc(gc: GcTally): string {
  return `${String(gc.minor)} minor (${String(Math.round(gc.minorMs))} ms), ${String(gc.major)} major (${String(Math.round(gc.majorMs))} ms)`;
}
