// The one pairing of tool calls with their results (call-results.ts), which both the one-session index and
// the history's block tables rank by: the first answering result after the call, skipped blocks left out.
import { describe, expect, it } from "vitest";
import type { Block } from "@context-fold/ledger-reader";
import { callResultsOf, extendCallPairing } from "../src/call-results.js";

function block(index: number, kind: Block["kind"], toolCallId?: string): Block {
  return { index, kind, entryId: `e${String(index)}`, entryPosition: index, role: "assistant", turn: 0, line: index + 2, byteOffset: 0, byteLength: 0, text: "", ...(toolCallId === undefined ? {} : { toolCallId }) } as unknown as Block;
}

describe("callResultsOf", () => {
  it("pairs a call with the first result after it carrying its id, leaving skipped blocks and early results out", () => {
    const blocks = [
      block(0, "toolResult", "a"), // before its call: answers nothing
      block(1, "toolCall", "a"),
      block(2, "toolCall", "b"),
      block(3, "toolResult", "b"),
      block(4, "toolResult", "a"),
      block(5, "toolResult", "a"), // a second result: the first one stands
      block(6, "toolCall", "c"),
      block(7, "toolResult", "c"), // skipped (not history)
      block(8, "text"),
    ];
    expect(Array.from(callResultsOf(blocks, (b) => b.index === 7))).toEqual([-1, 4, 3, -1, -1, -1, -1, -1, -1]);
  });
  it("grown block by block or from any cut, reading only the blocks after it, equals the pairing of the whole", () => {
    const blocks = [
      block(0, "toolCall", "a"),
      block(1, "toolCall", "b"),
      block(2, "toolResult", "b"),
      block(3, "text"),
      block(4, "toolResult", "a"), // answers a call made before a cut
      block(5, "toolResult", "a"), // a second result after the cut: the first one stands
      block(6, "toolCall", "c"),
      block(7, "toolResult", "c"),
    ];
    const skip = (b: Block): boolean => b.index === 7;
    const whole = Array.from(callResultsOf(blocks, skip));
    expect(whole).toEqual([4, 2, -1, -1, -1, -1, -1, -1]);
    for (let cut = 0; cut <= blocks.length; cut++) {
      const read: number[] = [];
      const watch = (b: Block): boolean => {
        read.push(b.index);
        return skip(b);
      };
      const first = extendCallPairing(undefined, blocks.slice(0, cut), skip);
      const grown = extendCallPairing(first, blocks, watch);
      expect(Array.from(grown.out), `cut ${String(cut)}`).toEqual(whole);
      expect(read.every((k) => k >= cut), `cut ${String(cut)}`).toBe(true);
    }
    let one = extendCallPairing(undefined, [], skip);
    for (let k = 1; k <= blocks.length; k++) one = extendCallPairing(one, blocks.slice(0, k), skip);
    expect(Array.from(one.out)).toEqual(whole);
  });
});
