// How a history writes its segment files: one by one, each fsynced with its folder; or, while a first
// build writes files no manifest names yet, each replaced atomically and all fsynced together at commit.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { nodeFileSystem } from "@context-fold/durable-fs";
import { tempDir } from "@context-fold/test-support";
import { SegmentWriter } from "../src/history-layout.js";

/** The node file system, counting fsyncs. */
function counting(): { fs: typeof nodeFileSystem; synced: () => number } {
  let synced = 0;
  return { fs: { ...nodeFileSystem, fsyncSync: (fd: number) => (synced++, nodeFileSystem.fsyncSync(fd)) }, synced: () => synced };
}

describe("history segment writer", () => {
  it("fsyncs each file and its folder as it writes, unless deferred", () => {
    const dir = tempDir("history-layout-");
    const { fs, synced } = counting();
    const writer = new SegmentWriter(dir, false, fs);
    writer.write(join(dir, "a.seg"), Buffer.from("a"));
    writer.write(join(dir, "a.tab"), Buffer.from("b"));
    expect(synced()).toBe(4);
    writer.commit();
    expect(synced()).toBe(4);
  });

  it("deferred, writes each file whole by rename and fsyncs them all (and the folder once) at commit", () => {
    const dir = tempDir("history-layout-");
    const { fs, synced } = counting();
    const writer = new SegmentWriter(dir, true, fs);
    for (const name of ["a.seg", "a.tab", "b.seg", "b.tab"]) writer.write(join(dir, name), Buffer.from(name));
    writer.write(join(dir, "a.seg"), Buffer.from("again"));
    expect(synced()).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(["a.seg", "a.tab", "b.seg", "b.tab"]);
    expect(readFileSync(join(dir, "a.seg"), "utf8")).toBe("again");
    writer.commit();
    // Four files (one written twice: fsynced once) and the folder.
    expect(synced()).toBe(5);
    writer.commit();
    expect(synced()).toBe(5);
  });
});
