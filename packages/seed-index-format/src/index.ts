// Public API of @context-fold/seed-index-format: the seed-index v2 record contract.
export { type Anchor, type AnchorParse, formatAnchor, isEditedAnchor, isEditId, parseAnchor, partAnchor, resultAnchor } from "./anchors.js";
export { assistantPartText, blockLog, joinTextParts, sha256Hex, type SpanTextCheck, verifySpanText } from "./block-text.js";
export { base32Lower, CodeAssigner, codeFor, CompactBlockSet, CompactCodeAssigner } from "./codes.js";
export {
  AnchorError,
  CodeCollisionError,
  InvalidRecordError,
  InvalidSessionIdError,
  SeedIndexError,
  type SeedIndexErrorCode,
  SeedIndexUnreadableError,
} from "./errors.js";
export { handoffPath, type ResolvedPath, resolveFullOutputPath, seedIndexPath } from "./paths.js";
export { classifyLine, type LineOutcome, type ReadOutcome, readSeedIndex, readSeedIndexFile, upgradeV1Record } from "./reader.js";
export {
  forEachSpan,
  type LeanReadOptions,
  type LeanReadOutcome,
  readSeedIndexFileLean,
  readSeedIndexLean,
  type RecordSpans,
  recordSpans,
  type SpansInFile,
} from "./record-stream.js";
export { SpanSpool, type SpanSpoolOptions } from "./span-spool.js";
export {
  type FoldIndexRecord,
  FoldIndexRecordSchema,
  type FoldIndexV1Record,
  FoldIndexV1RecordSchema,
  type FoldRetractRecord,
  FoldRetractRecordSchema,
  HARNESS,
  type RecordValidation,
  schemaDocument,
  SEED_INDEX_VERSION,
  type SeedTrigger,
  SeedTriggerSchema,
  type ShapeError,
  type Span,
  type SpanLog,
  SpanLogSchema,
  SpanSchema,
  type Usage,
  UsageSchema,
  type UserMessageRef,
  UserMessageSchema,
  type V1Span,
  V1SpanSchema,
  validateRecord,
  validateSpan,
  validateV1Record,
} from "./records.js";
export { archivalUnion, currentView, nextSeq } from "./union.js";
export { type AppendOptions, type AppendTail, appendNextRecord, appendNextRecordStreamed, appendRecord, appendRecordStreamed, nextSeqFromTail, SpanTexts } from "./writer.js";
