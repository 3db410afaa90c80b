// Public API of @context-fold/extractors.

// --- summary facts and durable artifacts (issue 6) ---
export type {
  Anchors,
  ArtifactCategory,
  CommitFact,
  CommitKind,
  CurrentStatus,
  DurableArtifacts,
  ErrorLedgerEntry,
  ExtractOptions,
  FactsAccumulator,
  FactsBlock,
  FileFact,
  FileStatus,
  HexConstant,
  OutsideFacts,
  OutstandingItem,
  OutstandingSource,
  SessionFacts,
  Severity,
  TurnLine,
  TypeCatalogEntry,
  UserStatement,
  UserStatementFact,
  WorkingCommand,
} from "./facts/types.js";
export { ARTIFACT_PRIORITY } from "./facts/types.js";
export {
  TYPE_CATALOG_FILES,
  TYPE_CATALOG_PER_FILE,
  createFactsAccumulator,
  extractArtifacts,
  extractFacts,
} from "./facts/accumulator.js";
export { type BlocksOfEntry, createSaidAlong, PROMPT_FIELD_MIN_PAIRS, type SaidAlongCollector, saidAlong, type SaidCarry, saidElsewhere, saidElsewhereOn } from "./facts/said-elsewhere.js";
export { branchPath, cutOffBlocks } from "./facts/cut-off-blocks.js";
export { commitKindOf, parseGitCommits, reportedCommits, type ParsedCommit } from "./facts/git-commits.js";
export { diagnosticsGist, failureGist, parseDiagnostics, trailingExitCode, type Diagnostic, type DiagnosticKind } from "./facts/diagnostics.js";
export {
  checksRemovedPaths,
  commandDir,
  commandKey,
  isSearchCommand,
  isTestCommand,
  printsFileContent,
  programOf,
  shellWrites,
  type ShellWrite,
} from "./facts/shell-command.js";
export {
  BARE_WEIGHT,
  blockerLine,
  firstSentence,
  isBareMessage,
  isCorrection,
  isScopeChange,
  nextSteps,
  preferenceSentences,
  statementKey,
  textWeight,
} from "./facts/user-text.js";
export { memoizeText } from "./text-memo.js";
export { hexLiterals, hexTokens, isCommitHash } from "./artifacts/hex-constants.js";
export { extractSymbols, languageOf, type SymbolLanguage, type SymbolScan } from "./symbols/extract-symbols.js";
// --- end summary facts and durable artifacts ---

// --- lexicon and seed-index record extraction (issue 5) ---
export { ERROR_LINE_MAX, clipLine, errorLines, isErrorLine, isFalseAlarm } from "./lexicon/errors.js";
export { PATH_MAX, cleanPath, filePathsOfList, isPathToken, normalizePath, pathTokens, withoutDirectories } from "./lexicon/paths.js";
export { IDENTIFIER_MAX, identifierTokens, scanIdentifierRanges, scanIdentifiers } from "./lexicon/identifiers.js";
export { scanOutputTokens } from "./lexicon/output-tokens.js";
export {
  createSeedAccumulator,
  ERROR_CAP,
  FIRST_LINE_MAX,
  firstLine,
  IDENTIFIER_CAP,
  LARGE_OUTPUT_CHARS,
  MissingTimeError,
  type SeedAccumulator,
  type SeedAccumulatorOptions,
  type SeedFields,
  type SeedFieldsOptions,
  type SeedRecordParams,
  type SpanSink,
} from "./seed/accumulator.js";
export { createSeedScanCache, type SeedScanCache } from "./seed/scan-cache.js";
export { buildFoldRecord, type ExtractFieldsOptions, extractRecordFields, type FoldRecordInput } from "./seed/build-record.js";
export { classifyTool, isContentTool, newContent, PATH_KEYS, toolCommand, toolNames, toolPath, type ToolClass } from "./tool-calls/tool-class.js";
export {
  buildCompactRecord,
  buildCompactRecordStreamed,
  lastEntryTime,
  recordBlocks,
  recordBlocksAmong,
  type SessionBlocksOptions,
  type SessionRecordOptions,
  planRecordStream,
  type RecordStreamPlan,
  streamCompactRecord,
  streamPlannedRecord,
} from "./seed/session-record.js";
export {
  planSpanVerification,
  type SeedVerification,
  type SpanProblem,
  type SpanVerificationPlan,
  type StreamedRecord,
  verifyPlannedSpans,
  verifySpans,
  verifySpansStreamed,
} from "./seed/verify.js";
// --- end lexicon and seed-index record extraction ---

// --- context inventory (issue 13) ---
export type {
  BucketAccount,
  ContextInventory,
  FloorAccount,
  FloorInput,
  InventoryBlock,
  InventoryBucket,
  InventoryItem,
  InventoryOptions,
  RedundantReason,
  ToolSummary,
} from "./inventory/types.js";
export { DORMANT_TURNS, INVENTORY_STUB_TOKENS, buildInventory, InventoryAccumulator, type InventoryResultOptions } from "./inventory/build-inventory.js";
export { INVENTORY_ESTIMATOR, estimateTextTokens } from "./inventory/estimate.js";
export { contextBlocks, contextBlocksStreamed, contextEntryIds } from "./inventory/context-blocks.js";
export { INVENTORY_IMAGE_TOKENS, messageBlocks, type MessageBlocksOptions } from "./inventory/message-blocks.js";
export { inventoryAlong, inventoryPlan, type InventoryPlan, sessionInventory, sessionInventoryStreamed } from "./inventory/session-inventory.js";
export { renderInventory, type RenderInventoryOptions } from "./inventory/render-inventory.js";
// --- end context inventory ---
