// The seed-extraction outputs pinned by the golden test: every record form (compact over the lineage and
// over compacted history, a fold record, fields both ways, a live accumulator fed turn by turn) of a session.
import type { Block, Session } from "@context-fold/ledger-reader";
import { CodeAssigner } from "@context-fold/seed-index-format";
import { buildCompactRecord, buildFoldRecord, createSeedAccumulator, extractRecordFields, recordBlocks } from "@context-fold/extractors";

const AT = "2026-03-01T12:00:00.000Z";

/** Split blocks where a user message or a new assistant entry starts (one Pi turn per chunk). */
function turnChunks(blocks: readonly Block[]): Block[][] {
  const chunks: Block[][] = [];
  let current: Block[] = [];
  let entry = "";
  for (const block of blocks) {
    const starts = (block.role === "assistant" && block.entryId !== entry) || block.role === "user";
    if (starts && current.length > 0) {
      chunks.push(current);
      current = [];
    }
    if (block.role === "assistant") entry = block.entryId;
    current.push(block);
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

/** Every output form over one session, as JSON lines. */
export function sessionOutputs(session: Session): { input: string; output: string } {
  const lineage = recordBlocks(session, { scope: "lineage" });
  const compacted = recordBlocks(session, { scope: "compacted" });
  const cwd = session.header.cwd;
  const out: unknown[] = [];
  out.push(buildCompactRecord(session, { seq: 0, scope: "lineage", at: AT }));
  out.push(buildCompactRecord(session, { seq: 1, at: AT, codes: new CodeAssigner() }));
  out.push(buildCompactRecord(session, { seq: 2, scope: "lineage", trigger: "threshold", at: AT }));
  out.push(buildFoldRecord({ sessionId: session.header.id, seq: 3, trigger: "cap", blocks: lineage, cwd, at: AT }));
  out.push(extractRecordFields(lineage, { cwd }));
  out.push(extractRecordFields(lineage, { cwd, favourRecent: true }));
  out.push(extractRecordFields(lineage));
  // A live accumulator: records at several points, so incremental state (rarity, df, last) is pinned too.
  const chunks = turnChunks(lineage);
  const acc = createSeedAccumulator({ cwd });
  const codes = new CodeAssigner();
  const every = Math.max(1, Math.floor(chunks.length / 5));
  chunks.forEach((chunk, i) => {
    acc.add(chunk);
    if (i % every === every - 1 || i === chunks.length - 1) {
      out.push(acc.record({ sessionId: session.header.id, seq: 10 + i, trigger: "threshold", codes, at: AT }));
      out.push(acc.fields({ favourRecent: true }));
    }
  });
  return {
    input: JSON.stringify([lineage, compacted]),
    output: out.map((o) => JSON.stringify(o)).join("\n"),
  };
}

