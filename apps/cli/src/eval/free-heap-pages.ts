// V8 keeps the pages of old space a collection emptied in a pool of its own, still mapped and resident,
// for the heap to grow into again; an ordinary collection (even a full one) does not give them back to
// the system, only a last-resort one does (what V8 runs when memory is critical). eval's compaction part
// of the 1 GB bench session grows the heap to ~310 MB of which ~40 MB stay live: 273 MB of pooled pages
// stayed resident under the recall part, whose own heap never needed all of them while its column
// arrays (malloc'd, outside V8's pages) came on top of them. The hook to ask for that collection is the
// `gc` function V8 exposes with --expose-gc: the flag is set at run time and the function taken from a
// context made after it (node's documented v8.setFlagsFromString use); the process's own global `gc`
// stays as it was. A last-resort collection of a small live heap costs tens of milliseconds.
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

type GcFunction = (options: { type: "major"; execution: "sync"; flavor: "regular" | "last-resort" }) => void;

let gc: GcFunction | undefined;

function collector(): GcFunction {
  if (gc === undefined) {
    setFlagsFromString("--expose-gc");
    gc = runInNewContext("gc") as GcFunction;
  }
  return gc;
}

/** Collects everything unreachable and returns V8's pooled pages to the system (see the file comment). */
export function freeHeapPages(): void {
  collector()({ type: "major", execution: "sync", flavor: "last-resort" });
}

/**
 * A full collection now. Between eval's needle searches over a large session: each search reads the text
 * of every candidate of its phrases (tens of MB on the 1 GB bench session) that nothing holds once it
 * returns, but V8 grows its heap to several times what is live before it collects (the recall part's heap
 * reached 510 MB for ~150 MB live; collected after each search, 160 MB). About 0.1 s a search there.
 */
export function collectGarbage(): void {
  collector()({ type: "major", execution: "sync", flavor: "regular" });
}
