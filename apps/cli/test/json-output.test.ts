// `--json` output through writeJson: the bytes of JSON.stringify(value, null, 2), in pieces when the
// document is long; and a document longer than V8's longest string (which JSON.stringify refuses with
// "Invalid string length", the internal error `inventory --json` hit on a 1 GB session) is written whole.
import { describe, expect, it, vi } from "vitest";
import { writeJson } from "../src/json-output.js";
import { printJson } from "../src/output.js";

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
