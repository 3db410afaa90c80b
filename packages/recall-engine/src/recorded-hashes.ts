// "Verified" means the text read from the ledger now matches the hash recorded when the block was first
// indexed: by a seed-index span (full sha256, append-only) or by the recall block table (the first hash
// it saw for that block, kept across rewrites). Never a hash of the same bytes read twice.
import { readFileSync } from "node:fs";
import type { Block } from "@context-fold/ledger-reader";
import { classifyLine, seedIndexPath, sha256Hex } from "@context-fold/seed-index-format";
import { readRecordedShas } from "./snapshot.js";

import type { VerifiedAgainst } from "./recall-index.js";

export type { VerifiedAgainst };

export interface RecordedCheck {
  readonly verified: boolean;
  readonly verifiedAgainst: VerifiedAgainst;
  /** Why it is not verified, when it is not. */
  readonly problem?: string;
}

export interface RecordedHashes {
  /** The block's text (as read now) against the first recorded hash. */
  check(block: Pick<Block, "index" | "entryId" | "anchor" | "text">): RecordedCheck;
  /** true when some hash is recorded for the block. */
  has(block: Pick<Block, "index" | "entryId" | "anchor">): boolean;
}

/** sha256 per anchor from every fold-index record of the seed index (lowest seq first: the first recorded). */
function seedIndexHashes(file: string): Map<string, string> {
  const out = new Map<string, { seq: number; sha: string }>();
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return new Map();
  }
  const lines = text.split("\n");
  lines.forEach((line, i) => {
    const outcome = classifyLine(line, i === lines.length - 1 && !text.endsWith("\n"));
    if (outcome.outcome !== "record") return;
    for (const span of outcome.record.spans) {
      if (span.sha256 === undefined) continue;
      const seen = out.get(span.blockId);
      if (seen === undefined || outcome.record.seq < seen.seq) out.set(span.blockId, { seq: outcome.record.seq, sha: span.sha256 });
    }
  });
  return new Map([...out].map(([k, v]) => [k, v.sha]));
}

/** The recorded hashes of one session: its seed index, and the block table beside `cachePath` (if any). */
export function loadRecordedHashes(sessionFile: string, sessionId: string, cachePath: string | null): RecordedHashes {
  const seed = seedIndexHashes(seedIndexPath(sessionFile, sessionId));
  const table = cachePath === null ? null : readRecordedShas(cachePath);
  const recorded = (block: Pick<Block, "index" | "entryId" | "anchor">): { sha: string; source: "seed-index" | "block-table" } | null => {
    const fromSeed = block.anchor === undefined ? undefined : seed.get(block.anchor);
    if (fromSeed !== undefined) return { sha: fromSeed, source: "seed-index" };
    // Block numbers are stable as the ledger grows; the entry id guards against a table of other bytes.
    if (table !== null && table.entryId[block.index] === block.entryId) {
      const sha = table.sha[block.index];
      if (sha !== undefined) return { sha, source: "block-table" };
    }
    return null;
  };
  return {
    has: (block) => recorded(block) !== null,
    check(block) {
      const found = recorded(block);
      if (found === null) return { verified: false, verifiedAgainst: "none", problem: "no hash was recorded for this block when it was indexed (search it once, or fold it, to record one)" };
      const now = sha256Hex(block.text);
      if (now.startsWith(found.sha)) return { verified: true, verifiedAgainst: found.source };
      return { verified: false, verifiedAgainst: found.source, problem: `its text in the ledger changed since it was first indexed (sha256 ${now.slice(0, 16)}…, the ${found.source} recorded ${found.sha.slice(0, 16)}…)` };
    },
  };
}
