// Which tool result answers which tool call: ranking reads a call's words together with its result's, in
// one session's index and in the history's block tables alike, so the pairing has this one home.
import type { Block } from "@context-fold/ledger-reader";

/**
 * Tool call `#N` → the `#N` of the result answering it (the first tool result after it carrying its tool
 * call id; blocks `skip` says are not history take no part), -1 for every other block.
 */
export function callResultsOf(blocks: readonly Block[], skip: (block: Block) => boolean): Int32Array {
  const out = new Int32Array(blocks.length).fill(-1);
  const calls = new Map<string, number>();
  for (const block of blocks) {
    if (block.toolCallId === undefined || skip(block)) continue;
    if (block.kind === "toolCall") calls.set(block.toolCallId, block.index);
    else if (block.kind === "toolResult") {
      const call = calls.get(block.toolCallId);
      if (call !== undefined && out[call] === -1) out[call] = block.index;
    }
  }
  return out;
}
