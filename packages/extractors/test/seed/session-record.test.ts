// Records over a whole session: compacted scope, context_edit replacements/omissions, `at` from input.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { lineageBlocks, readSession } from "@context-fold/ledger-reader";
import { validateRecord } from "@context-fold/seed-index-format";
import { generateSession } from "@context-fold/session-gen";
import { tempDir } from "@context-fold/test-support";
import { buildCompactRecord, lastEntryTime, recordBlocks, recordBlocksAmong, verifySpans } from "@context-fold/extractors";

describe("session records", () => {
  it("a compact record covers exactly the compacted history of the active branch", async () => {
    const file = join(tempDir("seed-session-"), "session.jsonl");
    const manifest = await generateSession(file, { seed: 5, turns: 48, compactions: 2 });
    const session = await readSession(file);
    expect(session.compactions.length).toBeGreaterThanOrEqual(1);
    const compacted = new Set(session.compactions.flatMap((c) => c.entryIds));
    const blocks = recordBlocks(session, { scope: "compacted" });
    expect(blocks.length).toBeGreaterThan(0);
    for (const block of blocks) expect(compacted.has(block.entryId)).toBe(true);

    const record = buildCompactRecord(session, { seq: 4 });
    expect(validateRecord(record)).toEqual({ ok: true, kind: "record" });
    expect(record.trigger).toBe("compact");
    expect(record.at).toBe(lastEntryTime(session));
    expect(record.session).toBe(manifest.sessionId);
    const anchors = new Set(blocks.flatMap((b) => (b.anchor === undefined ? [] : [b.anchor])));
    expect(record.spans.map((s) => s.blockId).every((id) => anchors.has(id))).toBe(true);
    expect(verifySpans(session, [record]).verified).toBe(record.spans.length);
    expect(JSON.stringify(buildCompactRecord(await readSession(file), { seq: 4 }))).toBe(JSON.stringify(record));
  });

  it("applies the latest context_edit: replacements get `:edit:` anchors, omissions disappear", async () => {
    const file = join(tempDir("seed-session-"), "session.jsonl");
    await generateSession(file, { seed: 9, turns: 40 });
    const session = await readSession(file);
    const edits = session.lineage.filter((e) => e.type === "context_edit");
    expect(edits.length).toBeGreaterThan(0);
    const latest = new Map<string, (typeof edits)[number]>();
    for (const e of edits) latest.set(String(e.raw["targetId"]), e);
    const blocks = recordBlocks(session, { scope: "lineage" });
    for (const [target, edit] of latest) {
      const inRecord = blocks.filter((b) => b.entryId === target);
      if (edit.raw["replacement"] === null) expect(inRecord).toEqual([]);
      else {
        const anchored = inRecord.filter((b) => b.anchor !== undefined);
        for (const b of anchored) expect(b.anchor?.endsWith(`:edit:${edit.id}`)).toBe(true);
      }
    }
    // Unedited blocks are passed through untouched.
    const untouched = lineageBlocks(session).filter((b) => !latest.has(b.entryId));
    expect(blocks.filter((b) => !latest.has(b.entryId))).toEqual(untouched);
  });

  it("recordBlocksAmong over any tail of whole entries equals recordBlocks' view of those blocks, edits included", async () => {
    const file = join(tempDir("seed-session-"), "session.jsonl");
    await generateSession(file, { seed: 9, turns: 40 });
    const session = await readSession(file);
    const all = lineageBlocks(session);
    const whole = recordBlocks(session, { scope: "lineage" });
    const edited = new Set(session.lineage.filter((e) => e.type === "context_edit").map((e) => String(e.raw["targetId"])));
    let checkedEdited = 0;
    for (const entry of session.lineage) {
      const tail = all.filter((b) => b.entryPosition >= entry.position);
      if (tail.length === 0 || tail[0]?.entryId !== entry.id) continue;
      const first = tail[0].index;
      expect(recordBlocksAmong(session, tail, { scope: "lineage" })).toEqual(whole.filter((b) => b.index >= first));
      if (edited.has(entry.id)) checkedEdited += 1;
    }
    expect(checkedEdited).toBeGreaterThan(0);
  });

  it("takes `at` from input when given", async () => {
    const file = join(tempDir("seed-session-"), "session.jsonl");
    await generateSession(file, { seed: 3, turns: 8 });
    const record = buildCompactRecord(await readSession(file), { seq: 0, scope: "lineage", at: "2030-01-01T00:00:00.000Z", trigger: "cap" });
    expect(record.at).toBe("2030-01-01T00:00:00.000Z");
    expect(record.trigger).toBe("cap");
  });
});
