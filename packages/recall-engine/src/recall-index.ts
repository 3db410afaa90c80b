// The in-memory recall index of one session: built once from its blocks, grown in place as the
// ledger grows, queried with a scope; block text stays in the session, the index holds postings.
import type { Block } from "@context-fold/ledger-reader";
import { type CallPairing, extendCallPairing } from "./call-results.js";
import { RecallError } from "./errors.js";
import { parseQuery, type ParsedQuery } from "./query.js";
import { blockWeight, rankRegex, rankWords, type ScoredDoc } from "./rank.js";
import { buildBrowse, buildPage, labelOf, type SearchResult } from "./results.js";
import { buildScope, parseScope, type ScopeSource, type ScopeView } from "./scope.js";
import { type EntrySource, isNotHistory } from "./not-history.js";
import { quotedSources } from "./quoted-sources.js";
import { TermIndex } from "./term-index.js";
import type { IndexBytes } from "./term-codec.js";
import { queryTerms } from "./tokenizer.js";

/** What the index needs from a read session (`Session` of @context-fold/ledger-reader fits). */
export interface RecallSession extends ScopeSource, EntrySource {
  readonly header: { readonly id: string };
  readonly byteLength: number;
  /** What is not history, per block, when the session keeps it (a block table: block-table.ts); else computed. */
  readonly notHistoryMask?: () => Uint8Array;
  /** Tool call `#N` → its result's `#N`, when the session keeps it (a block table); else computed. */
  readonly callResults?: () => Int32Array;
}

export interface SearchOptions {
  /** `lineage` (default), `all`, `compaction:N`, `compaction:latest`. */
  readonly scope?: string;
  /** 1-based page (default 1). */
  readonly page?: number;
  /** Hits per page (default 5). */
  readonly pageSize?: number;
  /** Take the whole query as a regex (case-insensitive). `/pattern/flags` is a regex without it. */
  readonly regex?: boolean;
  /** Session label put on each hit (searches across sessions). */
  readonly session?: string;
}

/** Where the hash a text was checked against came from; "none": nothing was recorded, so not verified. */
export type VerifiedAgainst = "block-table" | "seed-index" | "none";

export interface ExpandedEntry {
  readonly index: number;
  readonly entryId: string;
  readonly role: string;
  readonly kind: Block["kind"];
  readonly turn: number;
  /** How results label it: `thinking`, `!cmd output`, `tool_result bash`, … */
  readonly label: string;
  readonly anchor?: string;
  /** Full, untruncated block text. */
  readonly text: string;
  /** true when the text (as the ledger holds it now) matches the hash checked against. */
  readonly verified: boolean;
  /** Which recorded hash it was checked against (set by `SessionRecall.expand`); "none": nothing was recorded. */
  readonly verifiedAgainst?: VerifiedAgainst;
  /** Why it is not verified, when it is not. */
  readonly problem?: string;
}

/** Checks one block against the ledger; returns null when it holds, else the problem. */
export type BlockVerifier = (block: Block) => string | null;

export class RecallIndex {
  private session: RecallSession;
  private readonly terms: TermIndex;
  private readonly scopes = new Map<string, ScopeView>();
  private callResults: CallPairing | undefined;
  private skip: Uint8Array | undefined;
  private users: { count: number; docs: readonly number[] } | undefined;
  /** Prose `#N` → the tool outputs it quotes, asked lazily; cleared when blocks are added (rarity changes). */
  private readonly quoted = new Map<number, readonly number[]>();

  private constructor(session: RecallSession, terms: TermIndex) {
    this.session = session;
    this.terms = terms;
  }

  /** Indexes every block of the session (all branches: scopes filter at query time). */
  static build(session: RecallSession): RecallIndex {
    const index = new RecallIndex(session, new TermIndex());
    index.update(session);
    return index;
  }

  /** Wraps postings read from a cache; the caller has checked the cache key against `session`. */
  static fromTerms(session: RecallSession, terms: TermIndex): RecallIndex {
    if (terms.docCount > session.blocks.length) throw new RecallError("BAD_INDEX", `cached index holds ${String(terms.docCount)} blocks, the session only ${String(session.blocks.length)}`);
    const index = new RecallIndex(session, terms);
    index.update(session);
    return index;
  }

  /** The session read this index answers from. */
  get source(): RecallSession {
    return this.session;
  }
  /** Blocks indexed so far. */
  get blockCount(): number {
    return this.terms.docCount;
  }
  get termCount(): number {
    return this.terms.termCount;
  }
  /** The indexed terms with ids `fromId` and up (what the history index's dictionary lists per session). */
  termTexts(fromId = 0): string[] {
    return this.terms.termTexts(fromId);
  }

  /**
   * Blocks holding `word` as a whole token (all branches), 0 when none: how distinctive the word is in
   * this session. A word the tokenizer splits into several tokens is counted by its first.
   */
  documentFrequency(word: string): number {
    const term = queryTerms(word)[0];
    return term === undefined ? 0 : this.terms.documentFrequency(term.primary);
  }

  /** Takes a newer read of the same ledger (e.g. from `updateSession`) and indexes blocks it adds. */
  update(session: RecallSession): number {
    this.session = session;
    this.scopes.clear();
    this.quoted.clear();
    const before = this.terms.docCount;
    const blocks = session.blocks;
    // What is not history keeps its `#N` as an empty document: found by no word, still expandable.
    if (blocks.length > before) this.terms.addDocuments(before, blocks.slice(before).map((b) => (isNotHistory(session, b) ? "" : b.text)));
    return blocks.length - before;
  }

  scope(name?: string): ScopeView {
    const spec = parseScope(name);
    const key = spec.kind === "compaction" ? `compaction:${String(spec.number)}` : spec.kind;
    let view = this.scopes.get(key);
    if (view === undefined) {
      view = buildScope(this.session, spec);
      this.scopes.set(key, view);
    }
    return view;
  }

  /** Every hit of `query` in the scope, ranked (no paging): what `search` pages and cross-session search merges. */
  rank(query: string, options: { scope?: string; regex?: boolean } = {}): { scope: ScopeView; parsed: ParsedQuery; ranked: ScoredDoc[] } {
    const scope = this.scope(options.scope);
    const parsed = parseQuery(query, options.regex === undefined ? {} : { regex: options.regex });
    const textOf = (doc: number): string => (this.session.blocks[doc] as Block).text;
    const weightOf = (doc: number): number => blockWeight((this.session.blocks[doc] as Block).kind, this.session.blocks[doc + 1]?.kind);
    const results = this.resultsOfCalls();
    const resultOf = (doc: number): number => results[doc] ?? -1;
    const skip = this.notHistory();
    const ranked =
      parsed.mode === "regex" ? rankRegex(parsed, scope.docs, textOf, (doc) => skip[doc] === 1) : rankWords(this.terms, parsed, scope.mask, textOf, { weightOf, resultOf, speakerDocs: (word) => (word === "user" ? this.userDocs() : null), sourcesOf: (doc) => this.sourcesOf(doc), failed: (doc) => (this.session.blocks[doc] as Block).isError === true });
    return { scope, parsed, ranked };
  }

  /** The tool outputs prose block `doc` quotes (quoted-sources.ts), memoised. */
  private sourcesOf(doc: number): readonly number[] {
    let sources = this.quoted.get(doc);
    if (sources === undefined) {
      const skip = this.notHistory();
      sources = quotedSources(this.session.blocks, doc, this.terms, (k) => skip[k] === 1);
      this.quoted.set(doc, sources);
    }
    return sources;
  }

  /** `#N` of the user's messages (what a question naming "the user" is about). */
  private userDocs(): readonly number[] {
    const blocks = this.session.blocks;
    const before = this.users;
    if (before?.count === blocks.length) return before.docs;
    // Grown from the blocks appended since, like the pairing above.
    const grown = before !== undefined && before.count < blocks.length;
    const docs = grown ? [...before.docs] : [];
    for (let k = grown ? before.count : 0; k < blocks.length; k++) {
      const block = blocks[k] as Block;
      if (block.kind === "user") docs.push(block.index);
    }
    this.users = { count: blocks.length, docs };
    return docs;
  }

  /**
   * `skip[#N] === 1` for the blocks that are not history (see not-history.ts). Grown, not redone, when
   * blocks are appended: the blocks before are the same (`update` takes a newer read of the same ledger).
   */
  private notHistory(): Uint8Array {
    const blocks = this.session.blocks;
    const before = this.skip;
    if (before?.length === blocks.length) return before;
    const kept = before === undefined ? this.session.notHistoryMask?.() : undefined;
    if (kept?.length === blocks.length) return (this.skip = kept);
    const out = new Uint8Array(blocks.length);
    const from = before === undefined || before.length > blocks.length ? 0 : before.length;
    if (from > 0 && before !== undefined) out.set(before);
    for (let k = from; k < blocks.length; k++) if (isNotHistory(this.session, blocks[k] as Block)) out[k] = 1;
    this.skip = out;
    return out;
  }

  /** Tool call `#N` → the `#N` of the result answering it (by tool call id), -1 for other blocks; grown on appends. */
  private resultsOfCalls(): Int32Array {
    const blocks = this.session.blocks;
    const before = this.callResults;
    if (before?.out.length === blocks.length) return before.out;
    // Kept by a block table: read, not stored (growing it needs the calls by id, which the table does not keep).
    const kept = before === undefined ? this.session.callResults?.() : undefined;
    if (kept?.length === blocks.length) return kept;
    const skip = this.notHistory();
    const pairing = extendCallPairing(before === undefined || before.out.length > blocks.length ? undefined : before, blocks, (block) => skip[block.index] === 1);
    this.callResults = pairing;
    return pairing.out;
  }

  /** Ranked, paged, grouped hits. An empty query browses. */
  search(query: string, options: SearchOptions = {}): SearchResult {
    if (query.trim().length === 0) return this.browse(options);
    const rankOptions: { scope?: string; regex?: boolean } = {};
    if (options.scope !== undefined) rankOptions.scope = options.scope;
    if (options.regex !== undefined) rankOptions.regex = options.regex;
    const { scope, parsed, ranked } = this.rank(query, rankOptions);
    const page: { page?: number; pageSize?: number; session?: string } = {};
    if (options.page !== undefined) page.page = options.page;
    if (options.pageSize !== undefined) page.pageSize = options.pageSize;
    if (options.session !== undefined) page.session = options.session;
    return buildPage(this.session.blocks, scope, parsed, ranked, page);
  }

  /** The last `count` blocks of the scope (default 25). */
  browse(options: { scope?: string; count?: number } = {}): SearchResult {
    return buildBrowse(this.session.blocks, this.scope(options.scope), options.count ?? 25);
  }

  /** Full text of blocks `#N`, each checked by `verify` (see `ledgerVerifier`). Unknown `#N` → BAD_INDEX. */
  expand(indices: readonly number[], verify: BlockVerifier): ExpandedEntry[] {
    const blocks = this.session.blocks;
    return indices.map((n) => {
      const block = Number.isSafeInteger(n) ? blocks[n] : undefined;
      if (block === undefined) {
        throw new RecallError("BAD_INDEX", `#${String(n)} is not a block of this session (it has #0..#${String(blocks.length - 1)})`);
      }
      const problem = verify(block);
      const entry = { index: block.index, entryId: block.entryId, role: block.role, kind: block.kind, turn: block.turn, label: labelOf(block), text: block.text, verified: problem === null };
      const withAnchor = block.anchor === undefined ? entry : { ...entry, anchor: block.anchor };
      return problem === null ? withAnchor : { ...withAnchor, problem };
    });
  }

  /** Cache bytes: the postings plus `meta` (the cache key). */
  serialize(meta: unknown): Buffer {
    return this.terms.serialize(meta);
  }

  /** `serialize` as the file's pieces in order (views of the postings): what a cache write streams. */
  serializeParts(meta: unknown): IndexBytes {
    return this.terms.serializeParts(meta);
  }

  /** A tail record of the blocks indexed since the last `serialize`/`serializeTail` (see `TermIndex.serializeTail`). */
  serializeTail(meta: unknown, chain: Buffer): Buffer | null {
    return this.terms.serializeTail(meta, chain);
  }

  /** false when only a whole `serialize` can save what was indexed since the last save. */
  get canSerializeTail(): boolean {
    return this.terms.canSerializeTail;
  }
}
