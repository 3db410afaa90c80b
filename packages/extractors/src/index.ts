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
  OutstandingItem,
  OutstandingSource,
  SessionFacts,
  Severity,
  TurnLine,
  TypeCatalogEntry,
  UserStatement,
  WorkingCommand,
} from "./facts/types.js";
export { ARTIFACT_PRIORITY } from "./facts/types.js";
// --- end summary facts and durable artifacts ---
