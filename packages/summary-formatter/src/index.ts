// Public API of @context-fold/summary-formatter.
export type {
  AnchorsDoc,
  CatalogFile,
  CommitItem,
  FileItem,
  FileStatus,
  FooterDoc,
  LineItem,
  Omission,
  OutstandingDoc,
  OutstandingTag,
  PreviousSummaryDoc,
  StatusDoc,
  SummaryDoc,
  VerbatimItem,
} from "./summary-doc.js";
export { emptyDoc } from "./summary-doc.js";
export { estimateTokens, tokensOfBytes, utf8Bytes } from "./tokens.js";
export { SummaryError, type SummaryErrorCode } from "./errors.js";
export { SUMMARY_MARKER, RECALL_HINT } from "./summary-syntax.js";
export { renderBrackets, renderBracketsBody } from "./render-brackets.js";
export { renderPiLayout, renderPiBody } from "./render-pi.js";
export { isOwnSummary, parseOwnSummary, parseSummary } from "./parse-summary.js";
export { mergeSummaries, type MergeOptions } from "./merge-summaries.js";
export { windowActivity, type WindowActivity } from "./carry-outstanding.js";
export { docFromFacts } from "./build-doc.js";
export { briefLines, briefTail, toolCallLine, type BriefBlock } from "./brief.js";
export {
  applyCaps,
  fitToBudget,
  TRIM_ORDER,
  BRIEF_MAX_LINES,
  EARLIER_TURNS_MAX,
  OUTSTANDING_MAX,
  PREFERENCES_MAX,
  SCOPE_CHANGES_MAX,
  type FitReport,
} from "./fit-budget.js";
export { foreignDoc, splitForeignSummary, withForeignFiles, type ForeignSection, type ForeignSummary } from "./foreign-summary.js";
export { planCut, AUTO_TAIL_MAX_TOKENS, type BlockBytes, type CutPlan, type KeepTail, type PlanCutOptions } from "./plan-cut.js";
export { baseApplies, foldPrevious, type PreviousBase, type PreviousSummaryInput } from "./previous-base.js";
export { compactSessionStreamed } from "./compact-streamed.js";
export { SummaryParts } from "./summary-parts.js";
export { buildDigest, DEFAULT_DIGEST_BUDGET, type Digest, type DigestStats } from "./build-digest.js";
export {
  buildSummary,
  compactSession,
  compactWithFacts,
  lineagePrevious,
  prepareCut,
  prepareCutParts,
  prepareSummaryParts,
  type SummaryPartsInput,
  DEFAULT_SUMMARY_BUDGET,
  MIN_SUMMARY_BUDGET,
  type BuildSummaryInput,
  type BuiltSummary,
  type CompactOptions,
  type CompactResult,
  type CompactStats,
  type SummaryFormat,
  type SummaryStats,
  type SummaryWindow,
} from "./compact-session.js";

// --- handoff seed (issue 13) ---
export {
  buildHandoffDoc,
  HANDOFF_MAX_SPANS,
  HANDOFF_VERBATIM_MAX,
  shellQuote,
  type DecisionKind,
  type HandoffDecision,
  type HandoffDoc,
  type HandoffInput,
  type HandoffPointer,
  type SeedSpanWalk,
} from "./handoff/handoff-doc.js";
export { buildHandoff, renderHandoff } from "./handoff/render-handoff.js";
export { sessionHandoff, sessionHandoffStreamed, type SessionHandoff, type SessionHandoffOptions } from "./handoff/session-handoff.js";
export { writeHandoff, type WriteHandoffOptions, type WrittenHandoff } from "./handoff/write-handoff.js";
export { writeFileAtomically } from "./write-file.js";
export { HandoffError, type HandoffErrorCode } from "./handoff/errors.js";
// --- end handoff seed ---
