// A history's first build takes shortcuts an update does not, each the same bytes or answers as the way
// they replace: a segment coded straight from a term index equals one from per-term buffers; prefix
// lookups off a session's byte-sorted terms answer as the bucketed ones; the dictionary gathered in sorted
// runs is the base a log merge writes from the same sessions; a build's run files never outlive it.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SessionManager } from "@earendil-works/pi-coding-agent";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { tempDir } from "@context-fold/test-support";
import { HistoryIndex, historyDirFor } from "@context-fold/recall-engine";
import { BOUND_UNKNOWN, encodeLogRecord, unionKey } from "../src/history-dictionary.js";
import { dropRuns, FreshDictionary } from "../src/history-fresh-dictionary.js";
import { mergeDictionary } from "../src/history-merge.js";
import { byteString, encodePostings, encodeSegment, encodeWholeSegment } from "../src/history-segment.js";
import type { HistorySession } from "../src/history-types.js";
import { SortedPrefixes, TermPrefixes } from "../src/term-prefixes.js";
import { TermIndex } from "../src/term-index.js";

const TEXTS = [
  "refresh the token before the checksum drift check",
  "refreshToken rotation failed: src/ledger/reader.ts line 40",
  "",
  "über überall übersicht straße 잔량비율 잔량 and the refreshing refreshments",
  "emoji 😀x 😀y ab\uD83Dcd lone surrogates \uDE00zz",
  ...Array.from({ length: 80 }, (_, k) => `term${String(k)} shared words alpha beta ${String(k * 7919)} refresh${String(k % 13)} ref${String(k)}x`),
];

/** Ids of `texts` in the byte order of their UTF-8, and the latin1 of each. */
function byteSorted(texts: readonly string[]): { bytes: string[]; order: Int32Array; place: Int32Array } {
  const bytes = texts.map(byteString);
  const order = Int32Array.from(texts.keys()).sort((a, b) => Buffer.compare(Buffer.from(texts[a] as string, "utf8"), Buffer.from(texts[b] as string, "utf8")));
  const place = new Int32Array(texts.length);
  for (let k = 0; k < order.length; k++) place[order[k] as number] = k;
  return { bytes, order, place };
}

describe("history first build", () => {
  const index = new TermIndex();
  index.addDocuments(0, TEXTS);
  const texts = index.termTexts();
  const lengths = Array.from({ length: index.docCount }, (_, d) => index.docLength(d));

  it("codes a whole segment straight from the term index as the per-term encoder does", () => {
    const sorted = byteSorted(texts);
    const whole = encodeWholeSegment(sorted.bytes, sorted.order, (id) => index.postingListsOf(id), lengths);
    const terms = texts.map((term, id) => ({ key: Buffer.from(term, "utf8"), id, ...encodePostings(index.postingListsOf(id), 0) }));
    expect(whole.bytes.equals(encodeSegment(terms, lengths))).toBe(true);
    expect(Array.from(whole.df)).toEqual(terms.map((t) => t.df));
  });

  it("answers prefix lookups off the byte-sorted terms as the bucketed lookup does", () => {
    const sorted = byteSorted(texts);
    const lookup = new SortedPrefixes(texts, sorted.bytes, sorted.order, sorted.place, (t) => index.termId(t));
    const prefixes = ["ref", "refresh", "refreshtoken", "term", "term1", "übe", "über", "잔량", "alp", "zzz", "re", "😀", "ab\uD83D", "\uDE00z", "sha", "xyz", "rotation", ...texts.filter((_, k) => k % 5 === 0)];
    let some = 0;
    for (const prefix of prefixes) {
      for (const limit of [1, 3, 256]) {
        // A fresh bucketed lookup each time (its first lookups scan; later ones use its buckets): both ways.
        const scanned = new TermPrefixes(texts).longerThan(prefix, limit);
        const bucketed = new TermPrefixes(texts);
        for (let k = 0; k < 9; k++) bucketed.longerThan("zzzz", 1);
        expect(bucketed.longerThan(prefix, limit), `${prefix} ${String(limit)}`).toEqual(scanned);
        expect(lookup.longerThan(prefix, limit), `${prefix} ${String(limit)}`).toEqual(scanned);
        some += scanned.length;
      }
    }
    expect(some).toBeGreaterThan(50);
  });

  it("gathers the dictionary in sorted runs as the log merge writes it: several runs, windows cut short, a session gone", () => {
    const dir = tempDir("history-fresh-");
    // Sessions of terms (some shared, some multi-byte, union keys, one with none), each with codes.
    const sessions = Array.from({ length: 23 }, (_, o) => {
      if (o === 7) return [];
      const own = texts.filter((_, id) => (id * 31 + o * 7) % 5 < 2 || id % 17 === o % 17);
      return [...own, ...own.filter((_, k) => k % 4 === o % 4).map(unionKey)];
    });
    // Two terms of one session the u16 length cuts to one key (the greater code kept), as a log record cuts them.
    const long = "q".repeat(0x10000);
    (sessions[3] as string[]).push(`${long}a`, `${long}b`);
    (sessions[9] as string[]).push(`${long}a`);
    const codes = sessions.map((terms, o) => Uint16Array.from(terms, (_, i) => (o === 5 ? BOUND_UNKNOWN : (i * 7919 + o * 104729) % 65535)));
    const live = sessions.map((_, o) => ({ ordinal: o === 11 ? -1 : o }) as HistorySession);
    const files = { basePath: join(dir, "merged.bin"), logPath: join(dir, "dictionary.log"), manifestPath: join(dir, "manifest.json") };
    writeFileSync(files.logPath, Buffer.concat(sessions.map((terms, o) => (terms.length > 0 ? encodeLogRecord(o, terms, codes[o]) : Buffer.alloc(0)))));
    expect(mergeDictionary(files, live, true)).toBe(true);
    const expected = readFileSync(files.basePath);
    let runsSeen = 0;
    for (const limits of [
      { batchTerms: 300_000, windowBytes: 256 * 1024 },
      { batchTerms: 40, windowBytes: 16 },
      { batchTerms: 200, windowBytes: 100 },
    ]) {
      const fresh = new FreshDictionary(dir, limits);
      expect(fresh.empty).toBe(true);
      for (const [o, terms] of sessions.entries()) {
        // Half the sessions give their keys' byte order, as a segment's build does; the rest are sorted by it.
        const keys = terms.map(byteString);
        const order = o % 2 === 0 ? byteSorted(terms).order : undefined;
        fresh.add(o, keys, codes[o] as Uint16Array, order);
        runsSeen = Math.max(runsSeen, readdirSync(dir).filter((n) => n.startsWith("dictionary.run.")).length);
      }
      const out = join(dir, `fresh-${String(limits.batchTerms)}.bin`);
      fresh.write(out, (o) => o !== 11);
      expect(readFileSync(out).equals(expected), JSON.stringify(limits)).toBe(true);
      expect(readdirSync(dir).filter((n) => n.startsWith("dictionary.run."))).toEqual([]);
    }
    expect(runsSeen).toBeGreaterThan(5);
  });

  it("takes sessions in ordinal order only, and a crashed build's runs are removed by the next", () => {
    const dir = tempDir("history-fresh-order-");
    const fresh = new FreshDictionary(dir, { batchTerms: 1, windowBytes: 64 });
    fresh.add(2, ["alpha"], [1]);
    expect(() => fresh.add(2, ["beta"], [1])).toThrow(/after/);
    expect(() => fresh.add(1, ["beta"], [1])).toThrow(/after/);
    expect(existsSync(join(dir, "dictionary.run.0"))).toBe(true);
    writeFileSync(join(dir, "dictionary.bin"), "kept");
    dropRuns(dir);
    expect(readdirSync(dir)).toEqual(["dictionary.bin"]);
  });

  it("a first build over a crashed one's leftovers (runs, segments, no manifest) starts over and writes what a clean build writes", async () => {
    const sessions = tempDir("history-fresh-sessions-");
    let clock = Date.parse("2026-05-01T10:00:00.000Z");
    const say = (role: "user" | "assistant", text: string): AgentMessage =>
      (role === "user" ? { role, content: text, timestamp: (clock += 1000) } : { role, content: [{ type: "text", text }], api: "x", provider: "x", model: "x", usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } }, stopReason: "stop", timestamp: (clock += 1000) }) as unknown as AgentMessage;
    for (let k = 0; k < 5; k++) {
      const sm = SessionManager.create(`/home/dev/p${String(k % 2)}`, join(sessions, `--home-dev-p${String(k % 2)}--`));
      sm.appendMessage(say("user", `session ${String(k)}: the wombat checksum drifted, refreshToken rotation ${String(k * 7919)} über`));
      sm.appendMessage(say("assistant", `Checked src/ledger/reader${String(k)}.ts: the refresh of token ${String(k)} races the wombat's rotation.`));
    }
    const clean = tempDir("history-fresh-clean-");
    const crashed = tempDir("history-fresh-crashed-");
    // What a first build that died before its manifest leaves: runs, a stray segment, a log, no manifest.
    const dir = historyDirFor(sessions, crashed);
    mkdirSync(join(dir, "segments"), { recursive: true });
    writeFileSync(join(dir, "dictionary.run.0"), "torn run");
    writeFileSync(join(dir, "dictionary.run.12"), "another");
    writeFileSync(join(dir, "segments", "stray.seg"), "stray");
    writeFileSync(join(dir, "dictionary.log"), "torn log");
    const a = await HistoryIndex.for(sessions, { root: clean }).update();
    const b = await HistoryIndex.for(sessions, { root: crashed }).update();
    expect(b).toEqual(a);
    expect(a.added).toBe(5);
    const files = (root: string): string[] => readdirSync(historyDirFor(sessions, root), { recursive: true }).map(String).sort();
    expect(files(crashed)).toEqual(files(clean));
    expect(files(clean).some((f) => f.startsWith("dictionary.run."))).toBe(false);
    for (const f of files(clean).filter((f) => !f.endsWith("segments") && !f.endsWith(".lock"))) {
      const x = readFileSync(join(historyDirFor(sessions, clean), f));
      const y = readFileSync(join(historyDirFor(sessions, crashed), f));
      expect(y.equals(x), f).toBe(true);
    }
    const hits = await HistoryIndex.for(sessions, { root: crashed }).search("wombat rotation");
    expect(hits.total).toBeGreaterThan(0);
  });
});
