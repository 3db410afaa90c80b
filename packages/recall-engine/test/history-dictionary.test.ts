// The history dictionary's bytes: terms found exactly and by prefix (multi-byte ones too), a torn or
// altered log record ends the log there, and a base whose bytes changed is refused by name.
import { describe, expect, it } from "vitest";
import { closeSync, openSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "@context-fold/test-support";
import { addTerms, decodeLog, DictionaryBase, DictionaryLog, encodeDictionary, encodeLogRecord, logCandidates, type TermSessions } from "../src/history-dictionary.js";

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
    const a = encodeLogRecord(7, ["wombat", "refresh"]);
    const b = encodeLogRecord(8, ["quokka"]);
    const whole = Buffer.concat([a, b]);
    expect(decodeLog(whole).records).toEqual([{ ordinal: 7, terms: ["wombat", "refresh"] }, { ordinal: 8, terms: ["quokka"] }]);
    expect(decodeLog(whole.subarray(0, whole.length - 5))).toEqual({ records: [{ ordinal: 7, terms: ["wombat", "refresh"] }], bytes: a.length });
    const altered = Buffer.from(whole);
    altered[a.length + 10] = (altered[a.length + 10] as number) ^ 1;
    expect(decodeLog(altered).records).toHaveLength(1);
    const log = new DictionaryLog(decodeLog(whole).records);
    expect(found((s) => log.prefixed("wom", s))).toEqual([7]);
    expect(found((s) => log.exact("refresh", s))).toEqual([7]);
  });

  it("refuses a base whose bytes changed, naming the file", () => {
    const bytes = encodeDictionary(map);
    bytes[20] = (bytes[20] as number) ^ 1;
    expect(() => new DictionaryBase(bytes, "/state/dictionary.bin")).toThrow(/\/state\/dictionary\.bin: dictionary checksum/);
    expect(() => new DictionaryBase(Buffer.from("nope"), "x.bin")).toThrow(/x\.bin: not a history dictionary/);
  });
});
