// Loads the shipped conformance vectors (conformance/*.json) for the tests.
import { readFileSync } from "node:fs";
import { join } from "node:path";

export const packageDir = join(import.meta.dirname, "..");

export interface ExpectedLine {
  line: number;
  byteOffset: number;
  outcome: "record" | "retract" | "skipped" | "invalid" | "torn-tail";
  schema: "accept" | "reject" | null;
  errorPaths?: string[];
}

export interface RecordCase {
  name: string;
  file: string;
  expected: ExpectedLine[];
  current?: number[];
  archival?: number[];
  nextSeq?: number;
  preserved?: { line: number; pointer: string; value: unknown }[];
  upgraded?: { line: number; spans: unknown[] }[];
}

export function vectors<T>(name: string): T {
  return JSON.parse(readFileSync(join(packageDir, "conformance", name), "utf8")) as T;
}

export const recordCases = (): RecordCase[] => vectors<{ cases: RecordCase[] }>("records.json").cases;
