// Small typed arrays carved out of shared chunks (small-arrays.ts, issue 27): each starts zeroed, holds
// its own bytes (no two overlap), is aligned for its element size, and a large one gets a store of its own.
import { describe, expect, it } from "vitest";
import { smallCopy, smallFloat64, smallUint32, smallUint8 } from "../src/small-arrays.js";

describe("small arrays", () => {
  it("are zeroed, apart and aligned, many to a chunk", () => {
    const made: ArrayBufferView[] = [];
    for (let i = 0; i < 200; i++) {
      const u8 = smallUint8(3 + (i % 5));
      const u32 = smallUint32(1 + (i % 7));
      const f64 = smallFloat64(2 + (i % 3));
      for (const a of [u8, u32, f64]) {
        expect([...(a as Uint8Array)].every((v) => v === 0)).toBe(true);
        expect(a.byteOffset % 8).toBe(0);
      }
      u8.fill(0xff);
      u32.fill(0xffffffff);
      f64.fill(-1);
      made.push(u8, u32, f64);
    }
    // Shared: fewer stores than arrays.
    expect(new Set(made.map((a) => a.buffer)).size).toBeLessThan(made.length / 10);
    // Apart: no two arrays of a store overlap.
    const byStore = new Map<ArrayBufferLike, [number, number][]>();
    for (const a of made) byStore.set(a.buffer, [...(byStore.get(a.buffer) ?? []), [a.byteOffset, a.byteOffset + a.byteLength]]);
    for (const ranges of byStore.values()) {
      ranges.sort((x, y) => x[0] - y[0]);
      for (let k = 1; k < ranges.length; k++) expect((ranges[k] as [number, number])[0]).toBeGreaterThanOrEqual((ranges[k - 1] as [number, number])[1]);
    }
  });

  it("a large one has a store of its own", () => {
    const big = smallUint32(100_000);
    expect(big.byteOffset).toBe(0);
    expect(big.buffer.byteLength).toBe(400_000);
    expect(big.every((v) => v === 0)).toBe(true);
  });

  it("a copy holds the bytes, apart from where they came from", () => {
    const source = Buffer.from("a directory's first terms");
    const copy = smallCopy(source.subarray(2, 11));
    expect(copy.toString()).toBe("directory");
    source.fill(0);
    expect(copy.toString()).toBe("directory");
    expect(Buffer.isBuffer(copy)).toBe(true);
    const large = Buffer.alloc(20_000, 7);
    expect(smallCopy(large).equals(large)).toBe(true);
  });
});
