// Public API of @context-fold/pi-extension: the fold engine (for the bench and embedders). Pi itself
// loads `src/extension.ts` (the default-exported factory).
export { applyFolds } from "./apply-folds.js";
export { ContextFolder, type FoldTarget, type ReportedUsage } from "./context-folder.js";
export { estimateMessageTokens, estimateTokens, tokensOfChars } from "./estimate.js";
export { type Failure, FailureReport } from "./failure-report.js";
export { type FoldCandidate, type FoldPlan, foldCandidates, planFold, protectedFrom, STUB_TOKENS, thresholdTokens, type UsageView } from "./fold-planner.js";
export { type RecordedFold, recordFold, type RecordFoldInput } from "./fold-recorder.js";
export { type FoldedSpan, FoldState, UNFOLD_ENTRY, type UnfoldMark } from "./fold-state.js";
export { LedgerTracker } from "./ledger-tracker.js";
export type { ContextMessage } from "./message-view.js";
export { DEFAULT_FOLD_OPTIONS, type FoldOptions, type OptionWarning, type ResolvedOptions, resolveFoldOptions } from "./options.js";
export { RecallService, type SearchRequest } from "./recall-service.js";
export { parseRecallArgs, RECALL_MESSAGE, type RecallArgs } from "./commands.js";
export { renderStub, STUB_FIRST_LINE_MAX, STUB_PREFIX, type StubSpan } from "./stub.js";
