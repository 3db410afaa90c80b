// Public API of @context-fold/memory-gardener-client.

// --- Hindsight client (issue 9) ---
export { HindsightClient, versionAtLeast, PATCH_MIN_VERSION, LIST_ALL_PAGE } from "./client/hindsight-client.js";
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
  PatchBody,
  ServerVersion,
  HindsightApi,
} from "./client/types.js";
// --- end Hindsight client ---
