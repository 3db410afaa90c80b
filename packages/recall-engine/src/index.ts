// Public API of @context-fold/recall-engine.
export { RecallError, type RecallErrorCode, RecallPatternError, RecallScopeError } from "./errors.js";
export { emitCompound, type QueryTerm, queryTerms, sameTerm, scanTerms, type TermRangeSink, termHash, type TermSink, termText, tokenize } from "./tokenizer.js";
export { compilePattern, type ParsedQuery, parseQuery, type Phrase, STOPWORDS } from "./query.js";
export { rankRegex, rankWords, SCORE_FLOOR, type ScoredDoc } from "./rank.js";
export { buildScope, parseScope, type ScopeSource, type ScopeSpec, type ScopeView } from "./scope.js";
export { briefOf, buildBrowse, buildPage, excerptOf, labelOf, type RecallHit, type ResultSegment, type SearchResult, type SegmentLine } from "./results.js";
export { renderResults } from "./render.js";
export { CorruptIndexError, type TailRecord, TermIndex } from "./term-index.js";
export { type BlockVerifier, type ExpandedEntry, RecallIndex, type RecallSession, type SearchOptions } from "./recall-index.js";
export { type CacheKey, cacheKeyFor, compareKey, defaultCachePath, ledgerEdges, writeAtomic } from "./index-cache.js";
export { ledgerVerifier } from "./ledger-verify.js";
export { type CacheReport, loadCachedIndex, openRecall, openRecallSnapshot, type OpenRecallOptions, SessionRecall, type SnapshotRecall, tailLogPath } from "./open-recall.js";
export { openSnapshot, snapshotEligible, snapshotPath, type SnapshotSession, SnapshotStaleError, writeSnapshot } from "./snapshot.js";
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
