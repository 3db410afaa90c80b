// What a start says about a damaged or old-format snapshot and journal: exactly what, where, and what it
// cost; every intact record kept; never "nothing lost" when the file cannot tell.
import { readFileSync, writeFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "@context-fold/test-support";
import { describe, expect, it } from "vitest";
import { BankStore, type RetainInput } from "../src/bank-store.js";
import { JOURNAL_FILE, SNAPSHOT_FILE } from "../src/journal.js";

const NOW = "2026-01-02T03:04:05.000Z";
const item = (content: string): RetainInput => ({ content, timestamp: NOW, context: null, metadata: {}, documentId: null, entities: [], tags: [] });
const all = { type: null, q: null, state: "valid", tags: null, tagsMatch: "any", documentId: null } as const;

/** A closed bank whose snapshot holds a bank record and `n` memories. */
function snapshotOf(n: number): { dir: string; lines: string[] } {
  const dir = tempDir("hl-dmg-");
  const store = new BankStore(dir);
  store.retain("b", Array.from({ length: n }, (_, i) => item(`memory ${String(i)}`)), NOW);
  store.close();
  return { dir, lines: readFileSync(join(dir, SNAPSHOT_FILE), "utf8").split("\n").slice(0, -1) };
}

const texts = (store: BankStore): string[] => store.select("b", all).map((m) => m.text).sort();

describe("snapshot damage", () => {
  it("a snapshot with its count and trailer reads clean", () => {
    const { dir, lines } = snapshotOf(3);
    expect(lines).toHaveLength(5);
    expect(JSON.parse(lines[4] as string)).toMatchObject({ trailer: { count: 4 } });
    const store = new BankStore(dir);
    expect(store.damage).toEqual([]);
    expect(texts(store)).toEqual(["memory 0", "memory 1", "memory 2"]);
  });

  it("cut at a line boundary (trailer gone): keeps what is there, says the rest cannot be counted", () => {
    const { dir, lines } = snapshotOf(3);
    writeFileSync(join(dir, SNAPSHOT_FILE), `${lines.slice(0, 3).join("\n")}\n`);
    const store = new BankStore(dir);
    expect(texts(store)).toEqual(["memory 0", "memory 1"]);
    expect(store.damage).toEqual([expect.objectContaining({ file: join(dir, SNAPSHOT_FILE), lost: "unknown", reason: expect.stringMatching(/without its trailer/) })]);
    expect(store.notices.join("\n")).toMatch(/snapshot\.jsonl\.damaged-1/);
  });

  it("a record line missing before the trailer: counted as lost", () => {
    const { dir, lines } = snapshotOf(3);
    writeFileSync(join(dir, SNAPSHOT_FILE), `${[...lines.slice(0, 2), ...lines.slice(3)].join("\n")}\n`);
    const store = new BankStore(dir);
    expect(texts(store)).toEqual(["memory 0", "memory 2"]);
    expect(store.damage.map((d) => d.lost)).toEqual([1]);
    expect(store.damage[0]).toMatchObject({ line: 3, reason: expect.stringMatching(/records 3–3 are missing/) });
  });

  it("a byte flipped inside a text: that record is lost and named, the others kept", () => {
    const { dir, lines } = snapshotOf(3);
    writeFileSync(join(dir, SNAPSHOT_FILE), `${lines.map((l) => l.replace("memory 1", "memory 7")).join("\n")}\n`);
    const store = new BankStore(dir);
    expect(texts(store)).toEqual(["memory 0", "memory 2"]);
    expect(store.damage).toEqual([expect.objectContaining({ line: 3, lost: 1, reason: expect.stringMatching(/checksum mismatch/) })]);
    // Rewritten from what was intact: the next start is clean.
    store.close();
    expect(new BankStore(dir).damage).toEqual([]);
  });
});

describe("files written before checksums", () => {
  it("an old snapshot and journal still load, with a notice, and are rewritten with checksums", () => {
    const dir = tempDir("hl-old-");
    const bank = { bankId: "b", name: "b", mission: "", disposition: { skepticism: 3, literalism: 3, empathy: 3 }, createdAt: NOW, updatedAt: NOW };
    const memory = (id: string, text: string, seq: number): unknown => ({
      op: "memory",
      memory: { id, bankId: "b", seq, createdAt: NOW, text, context: null, factType: "world", documentId: null, mentionedAt: NOW, occurredStart: NOW, occurredEnd: NOW, entities: [], tags: [], metadata: {}, proofCount: 1, state: "valid", invalidationReason: null, invalidatedAt: null, editedAt: null },
    });
    writeFileSync(join(dir, SNAPSHOT_FILE), [{ op: "bank", bank }, memory("00000000-0000-4000-8000-000000000001", "old one", 0)].map((r) => `${JSON.stringify(r)}\n`).join(""));
    writeFileSync(join(dir, JOURNAL_FILE), `${JSON.stringify(memory("00000000-0000-4000-8000-000000000002", "old two", 1))}\n`);
    const store = new BankStore(dir);
    expect(store.damage).toEqual([]);
    expect(texts(store)).toEqual(["old one", "old two"]);
    expect(store.notices).toEqual([expect.stringMatching(/snapshot\.jsonl: written before snapshot checksums/), expect.stringMatching(/journal\.jsonl: 1 record\(s\) written before journal checksums/)]);
    store.retain("b", [item("new three")], NOW);
    store.close();
    rmSync(join(dir, JOURNAL_FILE));
    const again = new BankStore(dir);
    expect(again.notices).toEqual([]);
    expect(texts(again)).toEqual(["new three", "old one", "old two"]);
  });
});
