// What building a summary makes is garbage once the build returns: nothing of it may be promoted by V8's
// young-generation GCs (scavenges). A per-build cache in a long-lived (old-generation) table kept every
// build's section sizes through scavenges (a scavenge holds a WeakMap's values strongly, and an old
// table's slots are roots to it until a full GC): promoted, they lived until a full GC, made each
// scavenge copy them and full GCs mark them on V8's helper threads during later compactions (issue 25:
// the hook's CPU p95 in the bench). See summary-parts.ts' `buildCache`.
import { readSession } from "@context-fold/ledger-reader";
import { tempDir } from "@context-fold/test-support";
import { compactSession } from "@context-fold/summary-formatter";
import { getHeapSpaceStatistics, setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { importerSession } from "./pi-session.js";

const NOW = "2026-03-01T10:00:00.000Z";
type Gc = (options?: { type?: "minor" | "major"; execution?: "sync" }) => void;

function gcFunction(): Gc {
  const exposed = (globalThis as { gc?: Gc }).gc;
  if (typeof exposed === "function") return exposed;
  setFlagsFromString("--expose-gc");
  return runInNewContext("gc") as Gc;
}

const oldSpaceUsed = (): number => getHeapSpaceStatistics().find((space) => space.space_name === "old_space")?.space_used_size ?? 0;

describe("a summary's build", () => {
  it("leaves nothing that its young-generation GCs promote", async () => {
    const w = importerSession(tempDir(), "Build the CSV importer for the billing service — every column kept, rejected rows logged.", 80);
    const session = await readSession(w.file);
    // A small budget: the fit trims, and measures its sections, at many steps.
    const build = (): number => compactSession(session, { budget: 700, now: NOW }).summary.length;
    const gc = gcFunction();
    for (let i = 0; i < 20; i++) build();
    // Whatever lives long (the module's own tables included) is in the old generation now, as in a
    // session that ran for a while.
    gc();
    gc();
    const before = oldSpaceUsed();
    const builds = 300;
    let made = 0;
    // Young-generation GCs come as the builds allocate, every few dozen builds.
    for (let i = 0; i < builds; i++) made += build();
    const perBuild = (oldSpaceUsed() - before) / builds;
    expect(made).toBeGreaterThan(0);
    // Measured on 2026-12-02 (Node 22): 0.8 KB per build with each build's own caches, 79 KB with the
    // module-level WeakMaps they replaced.
    expect(perBuild).toBeLessThan(16 * 1024);
  });
});
