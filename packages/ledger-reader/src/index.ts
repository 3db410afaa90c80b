// Public API of @context-fold/ledger-reader.
export type {
  Block,
  BlockKind,
  CompactionSegment,
  ContextItem,
  Damage,
  Entry,
  FileLocation,
  ResolveResult,
  Salvage,
  Session,
  SessionHeader,
  StreamItem,
} from "./types.js";
export { LedgerError, type LedgerErrorCode } from "./errors.js";
export {
  readSession,
  readSessionShape,
  updateSession,
  parseSessionText,
  streamEntries,
  streamLineage,
  lineageInFileOrder,
  lineageBlocks,
  blockAt,
  blocksOfEntry,
  isOnLineage,
  recoveredLineage,
  lineageRoute,
  streamRoute,
  updateSessionSync,
  SYNC_UPDATE_MAX,
  type LineageRoute,
  type ReadOptions,
  type SessionShape,
  type ShapeOptions,
} from "./read-session.js";
export { contextView, contextEntries, contextRoles, contextRolesGrown, GrowingContextRoles, type ContextRoles } from "./context-view.js";
export { lineageBlocksAfter } from "./lineage-tail.js";
export { resolveAnchor, blocksWithAnchor, anchorBase, withAnchoredBlocks } from "./resolve-anchor.js";
export { walkLineage, walkRecovered } from "./lineage.js";
export { damageEffects, describeConsequence, type DamageConsequence, type DamageEffect } from "./damage-effects.js";
export { blockTextAt, type EntryLocation } from "./block-text-from-file.js";
export {
  assistantPartAnchor,
  assistantView,
  type AssistantView,
  blocksOfMessage,
  type MessageBlock,
  messageRole,
  type PiMessage,
  textPartsLength,
  thinkingText,
  toolResultView,
  type ToolResultView,
} from "./message-blocks.js";
