// Public API of @context-fold/recall-engine.
export { CorruptIndexError, RecallError, type RecallErrorCode, RecallPatternError, RecallScopeError, SnapshotStaleError } from "./errors.js";
export { emitCompound, isCjk, type QueryTerm, queryTerms, sameTerm, scanTerms, type TermRangeSink, termHash, type TermSink, termText, tokenize } from "./tokenizer.js";
export { compilePattern, looksLikeRegex, type ParsedQuery, parseQuery, type Phrase, piecesOf, STOPWORDS } from "./query.js";
export { type BlockFacts, kindWeight, rankRegex, rankWords, SCORE_FLOOR, type ScoredDoc, wordsScoreBound } from "./rank.js";
export { stemOf } from "./stem.js";
export {
  DIGEST_MESSAGE_TYPE,
  type EntrySource,
  INJECTED_MESSAGE_TYPES,
  isNotHistory,
  MEMORY_MESSAGE_TYPE,
  RECALL_MESSAGE_TYPE,
  RECALL_TOOL_NAMES,
} from "./not-history.js";
export { buildScope, parseScope, type ScopeSource, type ScopeSpec, type ScopeView } from "./scope.js";
export { briefOf, buildBrowse, buildPage, excerptOf, labelOf, type RecallHit, type ResultSegment, type SearchResult, type SegmentLine } from "./results.js";
export { type PageSyntax, renderResults } from "./render.js";
export { renderSalvaged, type SalvagedHit, searchSalvaged } from "./salvaged.js";
export { type TailRecord, TermIndex } from "./term-index.js";
export { type BlockVerifier, type ExpandedEntry, RecallIndex, type RecallSession, type SearchOptions } from "./recall-index.js";
export { type CacheKey, cacheKeyFor, compareKey, defaultCachePath, ledgerEdges } from "./index-cache.js";
export { writeAtomic } from "./cache-write.js";
export { ledgerVerifier } from "./ledger-verify.js";
export { loadRecordedHashes, type RecordedCheck, type RecordedHashes, type VerifiedAgainst } from "./recorded-hashes.js";
export { type CacheReport, openRecall, type OpenRecallOptions, SessionRecall } from "./open-recall.js";
export { loadCachedIndex, openRecallSnapshot, type SnapshotRecall, tailLogPath } from "./snapshot-recall.js";
export { formerSnapshotPath, openSnapshot, readRecordedShas, snapshotEligible, snapshotPath, type SnapshotSession } from "./snapshot.js";
export { writeSnapshot } from "./snapshot-write.js";
export { buildRecallFilesStreamed, type RecallShape, recallShapeOf, STREAM_ABOVE, type StreamedBuild, type StreamedBuildOptions } from "./streamed-build.js";
export { RUN_CHARS } from "./spilled-index.js";
export {
  pickSpans,
  type RecalledSpan,
  scanFile,
  type ScanLine,
  type ScanResult,
  spanRecall,
  type SpanRecallOptions,
  type SpanRecallResult,
  type SpanScan,
} from "./span-recall.js";
export { markChanged, recallFile } from "./recall-file.js";
export type { RecallAnswer, RecallNotes, RecallRequest } from "./recall-request.js";
export { renderExpanded, renderSessionNames, renderSpans } from "./render-entries.js";
export { historyDirFor, type HistoryListing, historyRoot, listHistories } from "./history-folders.js";
export { HistoryIndex } from "./history-index.js";
export {
  HISTORY_FORMAT,
  type HistoryFilters,
  type HistoryOptions,
  type HistorySearchOptions,
  type HistorySearchResult,
  type HistorySession,
  type HistoryUpdate,
} from "./history-types.js";
export { listSessionFiles, searchSessions, type SessionsSearchOptions, type SessionsSearchResult } from "./sessions.js";
export {
  defaultSessionsDir,
  LATEST,
  listSessionHeads,
  piAgentDir,
  piSessionsDir,
  readSessionHead,
  resolveSessionName,
  SessionNameError,
  type SessionHead,
  type SessionNameErrorCode,
  type SessionPlace,
} from "./session-names.js";
