// The one pairing of tool calls with their results (call-results.ts), which both the one-session index and
// the history's block tables rank by: the first answering result after the call, skipped blocks left out.
import { describe, expect, it } from "vitest";
import type { Block } from "@context-fold/ledger-reader";
import { callResultsOf } from "../src/call-results.js";

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
});
