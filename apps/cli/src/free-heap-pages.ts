// V8 keeps the pages of old space a collection emptied in a pool of its own, still mapped and resident,
// for the heap to grow into again; an ordinary collection (even a full one) does not give them back to
// the system, only a last-resort one does (what V8 runs when memory is critical). A command that reads a
// large session's shape, keeps a plan of it and lets it go, then streams the file, had the shape's pages
// pooled and resident under the whole stream: on the 1 GB bench session `verify` held ~150 MB of them
// (peak 517 MB), and eval's compaction part ~310 MB of heap of which ~40 MB stayed live: 273 MB of pooled
// pages stayed resident under the recall part, whose own heap never needed all of them while its column
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

/**
 * `freeHeapPages` at the first call only: an `observe` of a stream, called for its first entry when the
 * shape the stream was planned on has been let go (the planning function returned at the stream's first
 * read), so that the stream does not grow its heap on top of the shape's pooled pages. Later calls cost
 * a test.
 */
export function freeHeapPagesOnce(): () => void {
  let freed = false;
  return () => {
    if (freed) return;
    freed = true;
    freeHeapPages();
  };
}
