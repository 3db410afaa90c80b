// The shapes of a kept history: what it records of each session (its manifest), what an update did and
// what a search takes and answers. Apart from the code that reads and writes them, so the index, the
// folder listing and the search helpers share one definition.
import type { CacheKey } from "./index-cache.js";
import type { SessionsSearchResult } from "./sessions.js";

/** Bumped when the manifest, the dictionary or the segments' layout change shape: the history is rebuilt. 4: the dictionary's offset table after its entries (streamed by a merge). 5: block tables hold a turn column. 6: the dictionary keeps a score bound per term and session. 7: and the bound of each term's prefix match, under its union key. 8: block tables keep the block each prose block quotes (and bounds reach a quoted kind's weight only through it). 9: block tables flag a failed tool output (a question asking for a failure reads no block fields). 10: the ledger keys (the hashes of each ledger's head and tail) kept apart from the manifest, in keys.json, which only an update that has work to do reads; the manifest keeps each session's block count. 11: the dictionary keeps, per stem of a session's terms, the bound of the prefix match of a word the session does not hold (`stemKey`). 12: block tables keep their page fields as distinct values and value columns, not deflated JSON (history-table.ts `encodePage`); segments keep their directory starts and document lengths as u32 columns (history-segment.ts `Sparse`). */
export const HISTORY_FORMAT = 12;

/** What the history knows of one session. */
export interface HistorySession {
  /** Path under the sessions folder (how hits name it). */
  readonly path: string;
  readonly id: string;
  /** The project folder (the header's cwd). */
  readonly project: string | null;
  /** The header's timestamp (ISO), null without one. */
  readonly date: string | null;
  /** The first line of the first user message. */
  readonly title: string;
  readonly size: number;
  readonly mtimeMs: number;
  /** The session's number in the dictionary; -1 when it could not be read (`problem` says why). */
  readonly ordinal: number;
  /** Terms of its segment the dictionary already lists (a grown session adds the ones past it). */
  readonly termCount: number;
  /** Parts its growths added to its segment after the first (`<base>.seg.1` …), 0 when absent. */
  readonly parts?: number;
  /** The tag its segment files are named by after its id (history-layout.ts `segmentTag`); absent in a manifest written before it was kept. */
  readonly tag?: string;
  /**
   * Its segment's block count (the ledger key's), where served from a segment: a compound query word held
   * inside a longer token is bounded by it. The ledger key itself (how a grown session is told from a
   * rewritten one) is kept apart, in the history's keys.json: a search does not read it.
   */
  readonly blocks?: number;
  /** Not served from a segment (a ledger of an older version, or damaged: its bytes are not the blocks' source): read in full when searched. */
  readonly full?: boolean;
  readonly problem?: string;
}

/** The ledger key of each session served from a segment, by path, with the size and time the manifest has for it (keys.json). */
export interface LedgerKeys {
  readonly format: number;
  readonly sessions: Readonly<Record<string, { readonly size: number; readonly mtimeMs: number; readonly key: CacheKey }>>;
}

export interface Manifest {
  readonly format: number;
  /** The recall index format (tokenization) the segments were built with: another one rebuilds the history. */
  readonly indexFormat: number;
  readonly sessionsDir: string;
  readonly nextOrdinal: number;
  readonly sessions: readonly HistorySession[];
}

export interface HistoryUpdate {
  readonly added: number;
  readonly grown: number;
  readonly replaced: number;
  readonly removed: number;
  readonly unchanged: number;
  readonly unreadable: number;
  /** The dictionary was rewritten whole this time (the log folded in, or a format change). */
  readonly merged: boolean;
}

export interface HistoryFilters {
  /** Only sessions started in this folder (the header's cwd). */
  readonly project?: string;
  /** Only sessions whose header time is at or after / before this (ms since the epoch). */
  readonly since?: number;
  readonly until?: number;
}

export interface HistorySearchOptions extends HistoryFilters {
  /**
   * A project folder whose sessions' hits come first, then every other session's (each group by score):
   * the default inside a project folder. Unlike `project`, it leaves no session out.
   */
  readonly first?: string;
  /** Per session: `lineage` (default) or `all`. */
  readonly scope?: string;
  readonly page?: number;
  readonly pageSize?: number;
  readonly regex?: boolean;
}

export interface HistorySearchResult extends SessionsSearchResult {
  /** Sessions the dictionary pointed to and that were opened and ranked. */
  readonly searched: number;
  /**
   * Always present. True: every session the dictionary pointed to was ranked, `total` and `pages` count
   * every hit. False: sessions whose score bound (rank.ts `wordsScoreBound`) showed they could not reach
   * the requested page were left unranked, so `total` (and `pages`) is a lower bound; the page's hits
   * are still those of ranking every session.
   */
  readonly totalExact: boolean;
  /** What each hit's session is: project folder, date, title, keyed by the label the hits carry. */
  readonly named: Readonly<Record<string, { readonly file: string; readonly id: string; readonly project: string | null; readonly date: string | null; readonly title: string }>>;
  readonly update: HistoryUpdate;
}

export interface HistoryOptions {
  /** Where histories are kept (default `historyRoot()`). */
  readonly root?: string;
  /** Called as sessions are brought up to date: (done, total, file). */
  readonly onProgress?: (done: number, total: number, file: string) => void;
  /**
   * Called once an update finds work to do (a session added, grown, changed or gone, or no history yet),
   * before it does it: an update may index for seconds, or minutes on a first build, where a search of a
   * history already up to date takes milliseconds (a CLI process lets V8's optimizing compiler work again
   * then; see apps/cli compile-tiers.ts).
   */
  readonly onUpdateWork?: () => void;
  /** Sessions kept open (segment and block table) between searches of one process (default 2,048). */
  readonly keepOpen?: number;
}
