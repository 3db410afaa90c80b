// Public API of @context-fold/memory-gardener-client.

// --- Hindsight client (issue 9) ---
export { HindsightClient, LIST_ALL_PAGE } from "./client/hindsight-client.js";
// The API-version rule has its home in @context-fold/hindsight-api (shared with the local bank, so this
// client never depends on the bank); re-exported here because a client user asks it of a real server.
export { PATCH_MIN_VERSION, versionAtLeast } from "@context-fold/hindsight-api";
export type { HindsightClientOptions } from "./client/hindsight-client.js";
export { normalizeMemory, parseEntities, HindsightShapeError } from "./client/normalize-memory.js";
export { HindsightError } from "./client/types.js";
export type {
  FactType,
  MemoryState,
  Memory,
  ListQuery,
  ListPage,
  RecallQuery,
  RecallHit,
  RetainItem,
  ReflectQuery,
  ReflectFact,
  ReflectAnswer,
  DocumentInfo,
  PatchBody,
  ServerVersion,
  HindsightApi,
} from "./client/types.js";
// --- end Hindsight client ---

// --- Memory gardener (issue 10) ---
export { runGardener } from "./gardener/run-gardener.js";
export type { GardenerOptions, GardenerProgress } from "./gardener/run-gardener.js";
export { runManifestPhase, assignBlocks, packShards, validateSampling, DEFAULT_SHARD_SIZE, PREVIEW_CHARS } from "./gardener/manifest.js";
export type { ManifestOptions, BlockAssignment } from "./gardener/manifest.js";
export { runShardPhase, readManifest, readShardFiles } from "./gardener/shards.js";
export type { ShardOptions } from "./gardener/shards.js";
export { runJudgePhase, readActions, MAX_JUDGE_PARALLEL, JUDGE_BATCH_SIZE } from "./gardener/judge-phase.js";
export type { JudgeOptions } from "./gardener/judge-phase.js";
export { defaultJudge, enforceRules, pickSurvivor } from "./gardener/judge.js";
export type { Judge, JudgeBatch, JudgeVerdict, ClusterVerdicts, EnforcedCluster } from "./gardener/judge.js";
export { runApplyPhase, readApply, resolveCap, applyCandidates, MAX_APPLY_CAP, APPLY_BATCH_SIZE } from "./gardener/apply.js";
export type { ApplyOptions } from "./gardener/apply.js";
export { runReportPhase, buildReport, renderReport, reportJson, EXAMPLES_PER_ACTION } from "./gardener/report.js";
export type { ReportOptions } from "./gardener/report.js";
export { findClusters, comparePair, isExpiredEphemera, memoryDate, EPHEMERA_MAX_AGE_MS, MAX_BLOCK_COMPARE } from "./gardener/clustering.js";
export { analyzeText, jaccard, stem } from "./gardener/text-analysis.js";
export type { TextAnalysis, ClaimValue, ValueKind, Polarity } from "./gardener/text-analysis.js";
export { relateClaims, claimPair, canSupersede, assertSupersedable, ClaimInvariantError } from "./gardener/claim.js";
export type { Claim, ClaimRelation } from "./gardener/claim.js";
export { writeFileAtomic, phasePaths } from "./gardener/phase-files.js";
export { RunLedger, GardenerLedgerError, defaultLedgerDir, ledgerFileFor, writeLedgerText, LEDGER_RUNS_KEPT } from "./gardener/run-ledger.js";
export type { LedgerRun, LedgerTarget, ApplyOutcome } from "./gardener/run-ledger.js";
export { generateExampleBank } from "./gardener/example-bank.js";
export type { ExampleBank, ExampleBankTruth } from "./gardener/example-bank.js";
export { GardenerOptionsError, GardenerStateError } from "./gardener/types.js";
export type {
  SamplingMode,
  ClusterKind,
  GardenAction,
  ManifestEntry,
  ManifestFile,
  ManifestAck,
  ClusterMember,
  CandidateCluster,
  ShardFile,
  ShardAck,
  MemberAction,
  ActionsFile,
  JudgeAck,
  FailedApply,
  ApplyFile,
  ApplyAck,
  ReportExample,
  GardenerReport,
  GardenerReportJson,
} from "./gardener/types.js";
// --- end memory gardener ---
