// `--json` output through writeJson: the bytes of JSON.stringify(value, null, 2), in pieces when the
// document is long; and a document longer than V8's longest string (which JSON.stringify refuses with
// "Invalid string length", the internal error `inventory --json` hit on a 1 GB session) is written whole.
import { describe, expect, it, vi } from "vitest";
import { pieceByPiece, writeJson } from "../src/json-output.js";
import { printJson } from "../src/output.js";

/** A copy keeping functions, symbols, toJSON and undefined members (what the samples test), containers only copied. */
function structuredCopy<T>(value: T): T {
  if (Array.isArray(value)) return value.map((v: unknown) => structuredCopy(v)) as T;
  if (typeof value === "object" && value !== null && !(value instanceof Date)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = structuredCopy(v);
    return out as T;
  }
  return value;
}

function pieces(value: unknown, limit?: number): string[] {
  const out: string[] = [];
  writeJson(value, (p) => out.push(p), limit);
  return out;
}

const SAMPLES: unknown[] = [
  { a: 1, b: [1, 2, { c: "x\ny", d: undefined, e: () => 1 }], f: null, g: [], h: {}, i: NaN, j: new Date(0), k: [undefined, () => 2, Symbol("s")] },
  [[["deep", "er"], { x: { y: { z: [1, 2, 3] } } }], "tail"],
  { toJSON: (key: string) => ({ key, inner: { toJSON: () => [1, 2, "three"] } }) },
  { "2": "integer keys first", b: "then", "1": "in order", long: "é".repeat(100), list: Array.from({ length: 30 }, (_, i) => ({ i, s: "s".repeat(i) })) },
  "a string",
  42,
  null,
];

describe("writeJson", () => {
  it.each(SAMPLES.map((v, i) => [i, v]))("sample %i: byte-identical to JSON.stringify(v, null, 2) whole and in small pieces", (_i, value) => {
    const expected = JSON.stringify(value, null, 2);
    expect(pieces(value).join("")).toBe(expected);
    for (const limit of [1, 8, 40, 200]) expect(pieces(value, limit).join("")).toBe(expected);
  });

  it.each(SAMPLES.map((v, i) => [i, v]))("sample %i marked pieceByPiece: the same bytes", (_i, value) => {
    const expected = JSON.stringify(value, null, 2);
    const marked = typeof value === "object" && value !== null ? pieceByPiece(structuredCopy(value)) : value;
    expect(pieces(marked).join("")).toBe(expected);
  });

  it("a container marked pieceByPiece is never stringified whole: each element of it is read once", () => {
    let reads = 0;
    const rows = Array.from({ length: 50 }, (_, i) => ({ i, text: `row ${String(i)}` }));
    const counted = new Proxy(rows, {
      get(target, key, receiver) {
        if (typeof key === "string" && /^[0-9]+$/.test(key)) reads++;
        return Reflect.get(target, key, receiver) as unknown;
      },
    });
    const doc = pieceByPiece({ head: { n: 50 }, rows: pieceByPiece(counted) });
    // Longer than the piece limit: unmarked, the document and then its rows would each be stringified first.
    expect(pieces(doc, 100).join("")).toBe(JSON.stringify({ head: { n: 50 }, rows }, null, 2));
    expect(reads).toBe(50);
  });

  it("splits a long document, each container piece within the limit", () => {
    const value = { rows: Array.from({ length: 200 }, (_, i) => ({ i, text: `row ${String(i)}` })) };
    const out = pieces(value, 100);
    expect(out.length).toBeGreaterThan(200);
    expect(out.every((p) => p.length <= 100)).toBe(true);
    expect(out.join("")).toBe(JSON.stringify(value, null, 2));
  });

  // Over half a gigabyte through the writer, CPU-bound: its own timeout, so a loaded machine running the
  // suite's other files beside it does not fail it (20 s alone here, 75 s at load 17 on 2 cores).
  it("printJson writes a document longer than the longest string V8 allows (JSON.stringify throws RangeError on it)", { timeout: 240_000 }, () => {
    const mb = "a".repeat(1 << 20);
    const value = { items: Array.from({ length: 520 }, () => mb) };
    let total = 0;
    let head = "";
    const out = vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
      if (head.length < 40) head += String(chunk).slice(0, 40);
      total += chunk.length;
      return true;
    });
    try {
      printJson(value);
    } finally {
      out.mockRestore();
    }
    // '{\n  "items": [' + per item ',\n    "…"' (the first without its comma) + '\n  ]' + '\n}' + '\n'
    expect(total).toBe(`{\n  "items": [`.length + 520 * (6 + 2 + (1 << 20)) - 1 + 4 + 2 + 1);
    expect(total).toBeGreaterThan(2 ** 29 - 24);
    expect(head.startsWith(`{\n  "items": [\n    "aaa`)).toBe(true);
  });
});
