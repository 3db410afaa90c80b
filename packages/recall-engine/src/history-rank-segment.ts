// Ranking a word query over one history session's segment, without reading its ledger: the one-session
// ranking (rank.ts) over the segment's postings read in place and its block table's facts, so a hit ranks
// the same as when its session is searched alone.
import type { Block } from "@context-fold/ledger-reader";
import type { SegmentParts } from "./history-segment-parts.js";
import type { BlockTable } from "./history-table.js";
import type { HistorySession } from "./history-types.js";
import type { ParsedQuery } from "./query.js";
import { isProse, quotedSources } from "./quoted-sources.js";
import { blockWeight, rankWords } from "./rank.js";
import { buildScope, parseScope, type ScopeView } from "./scope.js";
import type { RankedSession } from "./sessions.js";
import type { TermIndex } from "./term-index.js";

/**
 * A word query over one session's segment: the one-session ranking (rank.ts) over its postings, read in
 * place, with its block table's facts (kind weights, call/result pairs, the user's messages, the scope's
 * blocks). Blocks and the scope's segments are built only if a page of results shows the session.
 */
export function rankSegment(file: string, s: HistorySession, segment: { readonly reader: SegmentParts; readonly table: BlockTable }, parsed: Extract<ParsedQuery, { mode: "words" }>, scopeName: string | undefined): { item: RankedSession; scope: string } {
  const { reader, table } = segment;
  const spec = parseScope(scopeName);
  const n = table.count;
  let scope: ScopeView | undefined;
  const fullScope = (): ScopeView => (scope ??= buildScope(table.source().source, spec));
  let mask: Uint8Array;
  let name: string;
  if (spec.kind === "all") {
    mask = new Uint8Array(n).fill(1);
    name = "all";
  } else if (spec.kind === "lineage") {
    mask = table.lineageMask();
    name = "lineage";
  } else {
    mask = fullScope().mask;
    name = fullScope().name;
  }
  const users = table.blocksOfKind("user");
  // The segment's parts answer what rank.ts asks of a term index (see SegmentParts).
  const terms = reader as unknown as TermIndex;
  // The outputs a prose block quotes, as the one-session index finds them (quoted-sources.ts), unless the
  // table keeps them. Blocks that are not history are empty documents in the segment as in that index, so
  // they share no value and need no skip list. The blocks are the table's columns (kind, turn, text read back): the page
  // fields are decoded only for sessions a page shows. quotedSources reads only a block's kind, turn and
  // text (QuoteBlock's fields), hence the cast.
  const quoted = new Map<number, readonly number[]>();
  const sourcesOf = (doc: number): readonly number[] => {
    if (!isProse(table.kindOf(doc))) return [];
    // Kept by the table when it was written with its whole segment: the same blocks, no prose text read.
    const kept = table.quotedBy(doc);
    if (kept !== null) return kept;
    let sources = quoted.get(doc);
    if (sources === undefined) {
      sources = quotedSources(table.quoteBlocks() as unknown as readonly Block[], doc, terms, () => false);
      quoted.set(doc, sources);
    }
    return sources;
  };
  // Texts read for ranking are not hashed (history-table.ts `rankText`); those a page shows are.
  const ranked = rankWords(terms, parsed, mask, (doc) => table.rankText(doc), {
    weightOf: (doc) => blockWeight(table.kindOf(doc), doc + 1 < n ? table.kindOf(doc + 1) : undefined),
    resultOf: (doc) => table.resultOf(doc),
    speakerDocs: (word) => (word === "user" ? users : null),
    sourcesOf,
    // Asked of the best blocks of a question about a failure: the table's flags say it (no block field decoded).
    failed: (doc) => table.failed(doc),
  });
  const rank = {
    parsed,
    ranked,
    get scope(): ScopeView {
      return fullScope();
    },
  };
  const item: RankedSession = {
    label: s.path,
    file,
    get blocks(): readonly Block[] {
      return table.source().blocks;
    },
    rank,
  };
  return { item, scope: name };
}
