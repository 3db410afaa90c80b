// The ledger tracker on a file Pi's SessionManager writes: a call that finds the file as it was reuses
// the last snapshot without reading; appended bytes, a replaced file and a file that appears later are
// all seen on the next call.
import { appendFileSync, copyFileSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { tempDir } from "@context-fold/test-support";
import { readSession, type Session } from "@context-fold/ledger-reader";
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
    // A turn's append is read synchronously: the snapshot is settled as soon as `current` returns.
    const grown = await tracker.current();
    expect(grown?.blocks.some((b) => b.text.includes("NEEDLE-3"))).toBe(true);
    expect(tracker.settled).toBe(grown);
    expect(tracker.reads).toBe(2);
    // A large append (over SYNC_UPDATE_MAX) is read by the async path: no snapshot while it runs.
    appendJob(s.manager, 4, Date.UTC(2026, 10, 29, 14), { rows: 20_000 });
    const large = tracker.current();
    expect(tracker.settled).toBeUndefined();
    expect((await large)?.blocks.some((b) => b.text.includes("NEEDLE-4"))).toBe(true);
    expect(tracker.settled).toBe(await large);
  });

  /** The parts of a session that must not depend on how it was read. */
  const shape = (session: Session | undefined): unknown =>
    session === undefined
      ? undefined
      : {
          entries: session.entries.map((e) => [e.id, e.parentId, e.line, e.byteOffset, e.byteLength, e.turn, e.raw]),
          blocks: session.blocks,
          leafId: session.leafId,
          lineage: session.lineage.map((e) => e.id),
          compactions: session.compactions,
          damaged: session.damaged,
          byteLength: session.byteLength,
        };

  test("turn by turn (small appends read in place, a large one streamed) it equals a read from scratch, and never changes the file", async () => {
    const s = writeJobSession(tempDir(), tempDir(), 1);
    const tracker = new LedgerTracker(s.file);
    await tracker.current();
    for (let n = 2; n <= 12; n++) {
      appendJob(s.manager, n, Date.UTC(2026, 10, 29, 13, n), { rows: n === 7 ? 30_000 : 100 });
      if (n === 9) s.manager.appendCompaction("earlier jobs ran", s.manager.getBranch().at(-2)?.id ?? null, 1000);
      const bytes = readFileSync(s.file);
      const stat = statSync(s.file);
      const read = await tracker.current();
      expect(shape(read)).toEqual(shape(await readSession(s.file)));
      expect(readFileSync(s.file).equals(bytes)).toBe(true);
      expect(statSync(s.file).mtimeMs).toBe(stat.mtimeMs);
    }
  });

  test("a line torn by a writer caught mid-write is read once it is complete", async () => {
    const s = writeJobSession(tempDir(), tempDir(), 1);
    const file = join(tempDir(), "mirror.jsonl");
    writeFileSync(file, readFileSync(s.file));
    const tracker = new LedgerTracker(file);
    await tracker.current();
    const copied = readFileSync(file).length;
    appendJob(s.manager, 2, Date.UTC(2026, 10, 29, 13));
    const appended = readFileSync(s.file).subarray(copied);
    // The first write stops inside the tool result's line: that line is not taken yet.
    const cut = appended.indexOf("NEEDLE-2");
    appendFileSync(file, appended.subarray(0, cut));
    const torn = await tracker.current();
    expect(torn?.damaged.map((d) => d.kind)).toEqual(["no-trailing-newline"]);
    expect(torn?.blocks.some((b) => b.text.includes("NEEDLE-2"))).toBe(false);
    expect(shape(torn)).toEqual(shape(await readSession(file)));
    appendFileSync(file, appended.subarray(cut));
    const whole = await tracker.current();
    expect(whole?.damaged).toEqual([]);
    expect(whole?.blocks.some((b) => b.text.includes("NEEDLE-2"))).toBe(true);
    expect(shape(whole)).toEqual(shape(await readSession(file)));
  });
});
