// Public API of @context-fold/pi-extension: the fold engine (src/fold/, for the bench and embedders). Pi itself
// loads `extensions/context-fold/index.ts`, which re-exports `src/extension.ts` (the default-exported factory).
// The factory Pi loads, for harnesses that drive the handlers as Pi calls them (the bench's turn replay).
export { default as contextFoldExtension } from "./extension.js";
export { applyFolds } from "./fold/apply-folds.js";
export { ContextFolder, type FoldTarget, type ReportedUsage } from "./fold/context-folder.js";
export { estimateMessageTokens, estimateTokens, tokensOfChars } from "./fold/estimate.js";
export { type Failure, FailureReport } from "./failure-report.js";
export { type FoldCandidate, type FoldPlan, foldCandidates, planFold, protectedFrom, STUB_TOKENS, thresholdTokens, type UsageView } from "./fold/fold-planner.js";
export { type RecordedFold, recordFold, type RecordFoldInput } from "./fold/fold-recorder.js";
export { type FoldedSpan, FoldState, UNFOLD_ENTRY, type UnfoldMark } from "./fold/fold-state.js";
export { LedgerTracker } from "./ledger-tracker.js";
export type { PiMessage as ContextMessage } from "@context-fold/ledger-reader";
export { DEFAULT_FOLD_OPTIONS, type FoldOptions, type OptionWarning, type ResolvedOptions, resolveFoldOptions } from "./options.js";
export { RecallService, type SearchRequest } from "./recall-service.js";
export { parseRecallArgs, RECALL_MESSAGE, type RecallArgs } from "./commands.js";
export { renderStub, STUB_FIRST_LINE_MAX, STUB_PREFIX, type StubSpan } from "./fold/stub.js";
// --- compaction (issue 12) ---
export { ARTIFACTS_FILE, type ArtifactsDocument, ArtifactsFileError, type ArtifactsFileErrorCode, artifactsPath, readArtifactsFile, serializeArtifacts, writeArtifactsFile } from "./compaction/artifacts-file.js";
export { CompactionFacts } from "./compaction/compaction-facts.js";
export { checkGate, compactCommand, CompactionRegistry, DIGEST_MESSAGE, registerCompaction, triggerCompaction } from "./compaction/compaction-events.js";
export {
  type CompactionOptions,
  type CompactMode,
  DEFAULT_COMPACTION_OPTIONS,
  type ModelThreshold,
  type NextStepMode,
  parseThresholdConfig,
  type ResolvedCompactionOptions,
  resolveCompactionOptions,
  type ThresholdConfig,
} from "./compaction/compaction-options.js";
export { type CompactionTarget, CompactionSession, type InFlight, type Reinjection, type SeqSource } from "./compaction/compaction-session.js";
export { evaluateGate, type GateInput, type GateVerdict, softLimit } from "./compaction/gate.js";
export { type CompactionDetails, computeHookCompaction, CutMismatchError, type HookCompaction, type HookCompactionInput, LeafMismatchError } from "./compaction/compute-compaction.js";
export { NEXT_STEP_MAX, nextStep, type NextStep } from "./compaction/next-step.js";
export { type ModelRef, type ResolvedThreshold, thresholdFor } from "./compaction/thresholds.js";
// --- memory across sessions (issue 21) ---
export { MemoryService, type MemorySession, type RecalledMemory, projectTag, MEMORY_SOURCE_TAG, MEMORY_MESSAGE } from "./memory/memory-service.js";
export { loadSettings, type MemorySettings } from "./config/settings.js";
export { Outbox, OUTBOX_FILE } from "./memory/outbox.js";
export { projectIdentity, projectBankId, type ProjectIdentity } from "./memory/project-identity.js";
export { renderRecallBlock, type RecallBlock } from "./memory/recall-block.js";
export { redactSecrets, REDACTED } from "./memory/redact-secrets.js";
