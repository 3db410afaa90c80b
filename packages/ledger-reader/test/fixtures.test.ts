// Every real session fixture loads, reads the way Pi reads it, and is left untouched by reading.
import { readFileSync, statSync } from "node:fs";
import { basename } from "node:path";
import { describeShared, sessionFixtures, sharedFixture, tempDir } from "@context-fold/test-support";
import { contextRoles, contextView, LedgerError, readSession, readSessionShape, resolveAnchor, streamEntries, type StreamItem } from "@context-fold/ledger-reader";
import { sha256Hex } from "@context-fold/seed-index-format";
import { expect, it } from "vitest";
import { expectSameAsPi, openWithPi } from "./pi-oracle.js";

describeShared("real Pi session fixtures", () => {
  const fixtures = sessionFixtures();

  it("finds the fixtures", () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(9);
  });

  for (const file of fixtures) {
    const name = basename(file);

    it(`${name}: loads, numbers blocks densely, leaves the file untouched`, async () => {
      const before = statSync(file);
      const bytes = readFileSync(file);
      const session = await readSession(file);
      const after = statSync(file);
      expect(readFileSync(file).equals(bytes)).toBe(true);
      expect(after.mtimeMs).toBe(before.mtimeMs);
      expect(after.size).toBe(before.size);
      expect(session.byteLength).toBe(bytes.length);
      expect(session.entries.length).toBeGreaterThan(0);
      session.blocks.forEach((block, i) => expect(block.index).toBe(i));
      session.entries.forEach((entry, i) => {
        expect(entry.position).toBe(i);
        // [byteOffset, byteOffset + byteLength) is exactly this entry's JSON.
        const text = bytes.subarray(entry.byteOffset, entry.byteOffset + entry.byteLength).toString("utf8");
        expect(() => JSON.parse(text) as unknown).not.toThrow();
      });
      expect(session.leafId).toBe(session.entries.at(-1)?.id);
      expect(session.lineage.at(-1)?.id).toBe(session.leafId);
    });

    it(`${name}: active lineage and context view equal Pi's`, async () => {
      const session = await readSession(file);
      const pi = openWithPi(file, tempDir());
      expectSameAsPi(session, pi);
    });

    it(`${name}: contextRoles gives the context view's positions and roles, on the whole read and on the shape`, async () => {
      const session = await readSession(file);
      const view = contextView(session);
      const expected = { positions: view.map((item) => item.entry.position), roles: view.map((item) => item.role) };
      const whole = contextRoles(session);
      expect({ positions: [...whole.positions], roles: whole.roles }).toEqual(expected);
      // The shape keeps what the context's roles depend on (a streamed compaction cuts on it).
      const shape = (await readSessionShape(file)).session;
      const lean = contextRoles({ ...shape, withText: true });
      expect({ positions: [...lean.positions], roles: lean.roles }).toEqual(expected);
    });

    it(`${name}: every anchor resolves to its block text and verifies`, async () => {
      const session = await readSession(file);
      for (const block of session.blocks) {
        if (block.anchor === undefined) continue;
        const result = resolveAnchor(session, block.anchor, sha256Hex(block.text));
        if (result.status === "ambiguous") continue;
        expect(result.status).toBe("ok");
        if (result.status === "ok") {
          expect(result.text).toBe(block.text);
          expect(result.verified).toBe(true);
        }
      }
    });

    it(`${name}: streaming yields the same entries and blocks as a full read`, async () => {
      const session = await readSession(file);
      const items: StreamItem[] = [];
      for await (const item of streamEntries(file)) items.push(item);
      const entries = items.flatMap((i) => (i.kind === "entry" ? [i.entry] : []));
      const blocks = items.flatMap((i) => (i.kind === "entry" ? i.blocks : []));
      expect(items[0]?.kind).toBe("header");
      expect(entries).toEqual(session.entries);
      expect(blocks).toEqual(session.blocks);
      expect(items.flatMap((i) => (i.kind === "damage" ? [i.damage] : []))).toEqual(session.damaged);
    });
  }

  it("the torn line of pi-mono-history yields both glued entries, recovered and reported", async () => {
    const file = sharedFixture("sessions", "pi-mono-history__session.jsonl");
    const session = await readSession(file);
    const onLine = session.entries.filter((e) => e.line === 440);
    expect(onLine).toHaveLength(2);
    expect(onLine.every((e) => e.recovered)).toBe(true);
    expect(onLine.map((e) => e.id)).toEqual(["v1-000440", "v1-000440-2"]);
    const [first, second] = onLine;
    expect(second?.byteOffset).toBe((first?.byteOffset ?? 0) + (first?.byteLength ?? 0));
    expect(session.damaged).toEqual([
      expect.objectContaining({ line: 440, kind: "torn-line", recovered: true, byteOffset: first?.byteOffset }),
    ]);
    // 462 lines after the header, one of them holding two entries.
    expect(session.entries).toHaveLength(463);
    // Pi drops the torn line: its objects are in the recovered view only, and Pi's branch runs on past it.
    expect(session.lineageIds.has("v1-000440-2")).toBe(false);
    expect(session.recoveredLineageIds.has("v1-000440-2")).toBe(true);
    expect(session.byId.get("v1-000441")?.parentId).toBe("v1-000439");
  });

  it("v1 ids come from the line number; firstKeptEntryIndex (which counts the header) maps to them", async () => {
    const session = await readSession(sharedFixture("sessions", "pi-mono__before-compaction.jsonl"));
    expect(session.header.version).toBe(1);
    expect(session.entries[0]?.id).toBe("v1-000002");
    expect(session.entries[0]?.parentId).toBeNull();
    expect(session.entries[1]?.parentId).toBe("v1-000002");
    // firstKeptEntryIndex 293 and 551 count the header as 0: lines 294 and 552.
    expect(session.compactions.map((c) => c.firstKeptEntryId)).toEqual(["v1-000294", "v1-000552"]);
    const [one, two] = session.compactions;
    expect(one?.number).toBe(1);
    expect(two?.number).toBe(2);
    expect(one?.entryIds[0]).toBe("v1-000002");
    expect(one?.entryIds.at(-1)).toBe("v1-000293");
    expect(two?.entryIds[0]).toBe("v1-000294");
    expect(two?.entryIds.at(-1)).toBe("v1-000551");
    expect(two?.segment?.from).toBe((one?.segment?.to ?? -2) + 1);
  });

  it("the all-entry-types fixture: branch points, context_edit resolve, bash and anchors", async () => {
    const session = await readSession(sharedFixture("sessions", "generated-pi-1.6.0__sessionmanager-all-entry-types.jsonl"));
    expect(session.branchPoints).toEqual(["cc1e38d3", "9f2b3327"]);
    const bash = session.blocks.find((b) => b.kind === "bash");
    expect(bash).toMatchObject({ text: "10 total\n", toolName: "bash", args: { command: "wc -l src/*" }, exitCode: 0, isError: false });
    expect(bash?.anchor).toBeUndefined();
    const result = session.blocks.find((b) => b.kind === "toolResult");
    expect(result).toMatchObject({ anchor: "r:toolu_01", text: "index.ts\nutil.ts\n", toolName: "bash" });
    expect(session.blocks.filter((b) => b.kind === "user").every((b) => b.anchor === undefined)).toBe(true);
    expect(session.blocks.filter((b) => b.kind === "toolCall").every((b) => b.anchor === undefined)).toBe(true);
  });

  it("withText: false holds no text; anchors still resolve by re-reading the entry's bytes", async () => {
    const file = sharedFixture("sessions", "generated-pi-1.6.0__agentsession-faux-ext-compaction.jsonl");
    const full = await readSession(file);
    const lean = await readSession(file, { withText: false });
    expect(lean.blocks.every((b) => b.text === "")).toBe(true);
    expect(lean.blocks.map((b) => b.anchor)).toEqual(full.blocks.map((b) => b.anchor));
    const anchored = full.blocks.filter((b) => b.anchor !== undefined);
    expect(anchored.length).toBeGreaterThan(0);
    for (const block of anchored) {
      const result = resolveAnchor(lean, block.anchor ?? "", sha256Hex(block.text));
      expect(result).toMatchObject({ status: "ok", text: block.text, verified: true });
    }
    expect(() => contextView(lean)).toThrow(LedgerError);
  });

  it("the unknown entry type of the twKrash fixture stays in the tree as the leaf", async () => {
    const session = await readSession(sharedFixture("sessions", "twKrash-pi-session-inspector__branching-0.85.1.jsonl"));
    expect(session.leafId).toBe("e8");
    expect(session.byId.get("e8")?.type).toBe("future_entry");
    expect(session.lineage.map((e) => e.id)).toEqual(["e1", "e2", "e7", "e8"]);
    expect(session.branchPoints).toEqual(["e2"]);
    // The compaction sits on the abandoned branch: none on the active lineage.
    expect(session.compactions).toEqual([]);
  });
});
