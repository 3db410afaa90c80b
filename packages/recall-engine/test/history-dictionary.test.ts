// The history dictionary's bytes: terms found exactly and by prefix (multi-byte ones too), a torn or
// altered log record ends the log there, and a base whose bytes changed is refused by name.
import { describe, expect, it } from "vitest";
import { closeSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "@context-fold/test-support";
import { addTerms, BOUND_UNKNOWN, decodeLog, DictionaryBase, encodeDictionary, encodeLogRecord, logCandidates, type TermSessions } from "../src/history-dictionary.js";
import { mergeDictionary } from "../src/history-merge.js";
import type { HistorySession } from "../src/history-types.js";

function found(lookup: (into: Set<number>) => void): number[] {
  const into = new Set<number>();
  lookup(into);
  return [...into].sort((a, b) => a - b);
}

describe("history dictionary", () => {
  const map: TermSessions = new Map();
  addTerms(map, 0, ["refresh", "refreshtoken", "vitest", "über"]);
  addTerms(map, 3, ["refresh", "übersicht", "zebra"]);
  addTerms(map, 300, ["refreshtoken"]);
  const base = new DictionaryBase(encodeDictionary(map), "dictionary.bin");

  it("finds the sessions of a term, and of every term a prefix begins", () => {
    expect(base.termCount).toBe(6);
    expect(found((s) => base.exact("refresh", s))).toEqual([0, 3]);
    expect(found((s) => base.exact("refreshtoken", s))).toEqual([0, 300]);
    expect(found((s) => base.exact("refres", s))).toEqual([]);
    expect(found((s) => base.prefixed("refr", s))).toEqual([0, 3, 300]);
    expect(found((s) => base.prefixed("übe", s))).toEqual([0, 3]);
    expect(found((s) => base.prefixed("zz", s))).toEqual([]);
    expect(base.toMap().get("refreshtoken")).toEqual([0, 300]);
  });

  it("reads a base in place from its file as it reads it whole", () => {
    const path = join(tempDir("history-dict-"), "dictionary.bin");
    writeFileSync(path, encodeDictionary(map));
    const fd = openSync(path, "r");
    try {
      const inPlace = DictionaryBase.inPlace(fd, encodeDictionary(map).length, path);
      for (const term of ["refresh", "refreshtoken", "refres", "über", "zebra", "aardvark", "zzz"]) expect(found((s) => inPlace.exact(term, s)), term).toEqual(found((s) => base.exact(term, s)));
      for (const prefix of ["refr", "übe", "zz", "vit"]) expect(found((s) => inPlace.prefixed(prefix, s)), prefix).toEqual(found((s) => base.prefixed(prefix, s)));
    } finally {
      closeSync(fd);
    }
    writeFileSync(path, "not a dictionary at all, but long enough to have a head and a trailer");
    const bad = openSync(path, "r");
    try {
      expect(() => DictionaryBase.inPlace(bad, 70, path)).toThrow(/dictionary\.bin: not a history dictionary/);
    } finally {
      closeSync(bad);
    }
  });

  it("finds in the log's bytes the sessions of a term and of a prefix, not those of a longer term only", () => {
    const log = Buffer.concat([encodeLogRecord(7, ["wombat", "refreshtoken"]), encodeLogRecord(8, ["quokka", "refresh"]), encodeLogRecord(9, ["über"])]);
    const claims = (exacts: string[], prefixes: string[]): number[] => found((s) => logCandidates(log, exacts, prefixes, s));
    expect(claims(["refresh"], [])).toEqual([8]);
    expect(claims([], ["refr"])).toEqual([7, 8]);
    expect(claims(["über"], [])).toEqual([9]);
    expect(claims(["wombats", "zebra"], [])).toEqual([]);
    // A torn last record is not read.
    expect(found((s) => logCandidates(log.subarray(0, log.length - 3), ["über"], [], s))).toEqual([]);
  });

  it("reads log records up to the first torn or altered one", () => {
    const a = encodeLogRecord(7, ["wombat", "refresh"], [3, 0x1234]);
    const b = encodeLogRecord(8, ["quokka"]);
    const whole = Buffer.concat([a, b]);
    expect(decodeLog(whole).records).toEqual([{ ordinal: 7, terms: ["wombat", "refresh"], codes: [3, 0x1234] }, { ordinal: 8, terms: ["quokka"], codes: [BOUND_UNKNOWN] }]);
    expect(decodeLog(whole.subarray(0, whole.length - 5))).toEqual({ records: [{ ordinal: 7, terms: ["wombat", "refresh"], codes: [3, 0x1234] }], bytes: a.length });
    const altered = Buffer.from(whole);
    altered[a.length + 10] = (altered[a.length + 10] as number) ^ 1;
    expect(decodeLog(altered).records).toHaveLength(1);
  });

  it("folds the log into the base range by range, as one map of every term would, leaving out sessions no longer live", () => {
    const dir = tempDir("history-merge-");
    const files = { basePath: join(dir, "dictionary.bin"), logPath: join(dir, "dictionary.log"), manifestPath: join(dir, "manifest.json") };
    // Terms spread over many two-byte starts (and one-byte terms, and multi-byte UTF-8), in several ranges.
    const words = (k: number): string[] => Array.from({ length: 60 }, (_, i) => [`${String.fromCharCode(97 + ((i * 7 + k) % 26))}${String.fromCharCode(97 + ((i + k) % 26))}term${String(i % 9)}`, String.fromCharCode(97 + (i % 26)), `ü${String(i % 5)}`][i % 3] as string);
    const first: TermSessions = new Map();
    for (let o = 0; o < 4; o++) addTerms(first, o, words(o));
    const expected: TermSessions = new Map();
    for (let o = 0; o < 9; o++) if (o !== 2) addTerms(expected, o, words(o));
    const log = Buffer.concat(Array.from({ length: 5 }, (_, k) => encodeLogRecord(4 + k, words(4 + k))));
    const live = Array.from({ length: 9 }, (_, o) => ({ ordinal: o === 2 ? -1 : o }) as HistorySession);
    const base = encodeDictionary(first);
    // The log read whole, in windows that cut records (and smaller than one record), with a torn record after the last whole one.
    for (const windowBytes of [1 << 20, 300, 40]) {
      writeFileSync(files.basePath, base);
      writeFileSync(files.logPath, Buffer.concat([log, encodeLogRecord(11, ["torn"]).subarray(0, 20)]));
      expect(mergeDictionary(files, live, true, { rangeTerms: 37, windowBytes })).toBe(true);
      expect(readFileSync(files.basePath).equals(encodeDictionary(expected)), `window ${String(windowBytes)}`).toBe(true);
      expect(readFileSync(files.logPath).length).toBe(0);
    }
  });

  it("refuses a base whose bytes changed, naming the file", () => {
    const bytes = encodeDictionary(map);
    bytes[20] = (bytes[20] as number) ^ 1;
    expect(() => new DictionaryBase(bytes, "/state/dictionary.bin")).toThrow(/\/state\/dictionary\.bin: dictionary checksum/);
    expect(() => new DictionaryBase(Buffer.from("nope"), "x.bin")).toThrow(/x\.bin: not a history dictionary/);
  });
});
