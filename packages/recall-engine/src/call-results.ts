// Which tool result answers which tool call: ranking reads a call's words together with its result's, in
// one session's index and in the history's block tables alike, so the pairing has this one home.
import type { Block } from "@context-fold/ledger-reader";

/**
 * The pairing so far, grown as blocks are appended: `out[#N]` of each call read, and the calls by tool
 * call id (a result arriving later finds its call there).
 */
export interface CallPairing {
  readonly out: Int32Array;
  readonly calls: Map<string, number>;
}

/**
 * Tool call `#N` → the `#N` of the result answering it (the first tool result after it carrying its tool
 * call id; blocks `skip` says are not history take no part), -1 for every other block.
 */
export function callResultsOf(blocks: readonly Block[], skip: (block: Block) => boolean): Int32Array {
  return extendCallPairing(undefined, blocks, skip).out;
}

/**
 * `pairing` (of the first `pairing.out.length` blocks, or none) extended to every block of `blocks`,
 * reading only the blocks after it: what an index grown by an append pays, instead of the whole session.
 * The earlier blocks must be the ones `pairing` was made from. `pairing.calls` is taken over.
 */
export function extendCallPairing(pairing: CallPairing | undefined, blocks: readonly Block[], skip: (block: Block) => boolean): CallPairing {
  const from = pairing?.out.length ?? 0;
  const out = new Int32Array(blocks.length).fill(-1);
  if (pairing !== undefined) out.set(pairing.out.subarray(0, Math.min(from, blocks.length)));
  const calls = pairing?.calls ?? new Map<string, number>();
  for (let k = from; k < blocks.length; k++) {
    const block = blocks[k] as Block;
    if (!skip(block)) pairBlock(out, calls, block);
  }
  return { out, calls };
}

/**
 * The pairing rule, one block at a time (blocks in `#N` order, those that are not history left out): a
 * call is remembered by its id, the first result after it carrying the id is its result. A call once
 * answered is forgotten: a later result with its id would not replace the first, a later call with it
 * is remembered anew.
 */
export function pairBlock(out: Int32Array, calls: Map<string, number>, block: Block): void {
  const id = block.toolCallId;
  if (id === undefined) return;
  if (block.kind === "toolCall") calls.set(id, block.index);
  else if (block.kind === "toolResult") {
    const call = calls.get(id);
    if (call !== undefined && out[call] === -1) {
      out[call] = block.index;
      calls.delete(id);
    }
  }
}
