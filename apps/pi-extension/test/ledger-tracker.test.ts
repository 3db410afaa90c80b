// The ledger tracker on a file Pi's SessionManager writes: a call that finds the file as it was reuses
// the last snapshot without reading; appended bytes, a replaced file and a file that appears later are
// all seen on the next call.
import { copyFileSync, renameSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { tempDir } from "@context-fold/test-support";
import { LedgerTracker } from "../src/ledger-tracker.js";
import { appendJob, writeJobSession } from "./support/pi-written-session.js";

describe("LedgerTracker", () => {
  test("reads only when the file changed; appends and replacements are seen", async () => {
    const s = writeJobSession(tempDir(), tempDir(), 2);
    const tracker = new LedgerTracker(s.file);
    const first = await tracker.current();
    const blocksBefore = first?.blocks.length ?? 0;
    expect(tracker.reads).toBe(1);
    // Unchanged: the same snapshot, the file not read again.
    expect(await tracker.current()).toBe(first);
    expect(await tracker.current()).toBe(first);
    expect(tracker.reads).toBe(1);
    appendJob(s.manager, 3, Date.UTC(2026, 10, 29, 13));
    const grown = await tracker.current();
    expect(tracker.reads).toBe(2);
    expect(grown?.blocks.length).toBeGreaterThan(blocksBefore);
    expect(grown?.blocks.some((b) => b.text.includes("NEEDLE-3"))).toBe(true);
    // Replaced by another file (a new inode): read again from the start.
    const other = writeJobSession(tempDir(), tempDir(), 1);
    const copy = join(tempDir(), "copy.jsonl");
    copyFileSync(other.file, copy);
    renameSync(copy, s.file);
    const replaced = await tracker.current();
    expect(replaced?.blocks.some((b) => b.text.includes("NEEDLE-3"))).toBe(false);
    expect(replaced?.header.id).toBe(other.manager.getSessionId());
  });

  test("a file that does not exist yet is nothing, then read once Pi writes it", async () => {
    const dir = tempDir();
    const s = writeJobSession(tempDir(), dir, 1);
    const later = join(dir, "later.jsonl");
    const tracker = new LedgerTracker(later);
    expect(await tracker.current()).toBeUndefined();
    copyFileSync(s.file, later);
    expect((await tracker.current())?.blocks.length).toBeGreaterThan(0);
  });

  test("settled: the last read's snapshot without any I/O, and none while a read is running", async () => {
    const s = writeJobSession(tempDir(), tempDir(), 2);
    const tracker = new LedgerTracker(s.file);
    expect(tracker.settled).toBeUndefined(); // nothing read yet
    const reading = tracker.current();
    expect(tracker.settled).toBeUndefined(); // a read is queued: its snapshot is not consistent yet
    const first = await reading;
    expect(tracker.settled).toBe(first);
    // Pi appends: `settled` stays the snapshot as read (no stat, no read), `current` reads the new bytes.
    appendJob(s.manager, 3, Date.UTC(2026, 10, 29, 13));
    expect(tracker.settled).toBe(first);
    expect(tracker.reads).toBe(1);
    const grown = tracker.current();
    expect(tracker.settled).toBeUndefined();
    expect((await grown)?.blocks.some((b) => b.text.includes("NEEDLE-3"))).toBe(true);
    expect(tracker.settled).toBe(await grown);
    expect(tracker.reads).toBe(2);
  });
});
