// Hand-built sessions for the pure search core: blocks as the ledger reader shapes them.
import type { Block } from "@context-fold/ledger-reader";
import type { RecallSession } from "@context-fold/recall-engine";

export interface FakeBlock {
  kind: Block["kind"];
  text: string;
  entryId?: string;
  toolName?: string;
  args?: Record<string, unknown>;
  exitCode?: number;
}

/** Blocks in order; each gets its own entry unless `entryId` is given; turn counts user blocks. */
export function fakeSession(list: readonly FakeBlock[], options: { offLineage?: readonly string[]; compactions?: RecallSession["compactions"] } = {}): RecallSession {
  let turn = 0;
  const blocks: Block[] = list.map((b, index) => {
    if (b.kind === "user") turn++;
    const role = b.kind === "user" ? "user" : b.kind === "toolResult" ? "toolResult" : b.kind === "bash" ? "bashExecution" : "assistant";
    const block: Block = {
      index,
      entryId: b.entryId ?? `e${String(index).padStart(4, "0")}`,
      entryPosition: index,
      kind: b.kind,
      role,
      turn,
      text: b.text,
      timestamp: undefined,
      line: index + 2,
      byteOffset: index * 100,
      ...(b.toolName === undefined ? {} : { toolName: b.toolName }),
      ...(b.args === undefined ? {} : { args: b.args }),
      ...(b.exitCode === undefined ? {} : { exitCode: b.exitCode }),
    };
    return block;
  });
  const off = new Set(options.offLineage ?? []);
  return {
    header: { id: "fake-session" },
    byteLength: 0,
    blocks,
    lineageIds: new Set(blocks.map((b) => b.entryId).filter((id) => !off.has(id))),
    compactions: options.compactions ?? [],
  };
}
