// The streamed handoff's packed anchors give back every (#N, anchor) added, in order, across chunks.
import { describe, expect, it } from "vitest";
import { AnchorsByIndex } from "../src/handoff/anchors-by-index.js";

describe("AnchorsByIndex", () => {
  it("gives back what was added, in order, across chunks, with two-byte and empty anchors", () => {
    const added: { index: number; anchor: string }[] = [];
    const anchors = new AnchorsByIndex();
    for (let i = 0; i < 10_000; i++) {
      const anchor = i % 97 === 0 ? `r:é${String(i)}` : i % 1000 === 1 ? "" : `a:msg_${String(i * 7)}:p${String(i % 3)}`;
      added.push({ index: 3 * i + 1, anchor });
      anchors.add(3 * i + 1, anchor);
    }
    expect([...anchors]).toEqual(added);
    // Iterated again (the doc reads once; a second walk must not change anything).
    expect([...anchors]).toEqual(added);
    expect([...new AnchorsByIndex()]).toEqual([]);
  });
});
