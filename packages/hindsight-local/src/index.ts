// Public API of @context-fold/hindsight-local: a Hindsight-API-compatible memory bank on loopback.
export { startLocalBank, DEFAULT_API_VERSION, DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_ITEM_BYTES } from "./server.js";
// The API-version rule has its home in @context-fold/hindsight-api; re-exported so a bank user need not import it.
export { PATCH_MIN_VERSION, versionAtLeast } from "@context-fold/hindsight-api";
export type { LocalBank, LocalBankOptions } from "./server.js";
export { FAULT_HEADER } from "./faults.js";
export type { FaultPlan, FaultController, FaultCounters } from "./faults.js";
export { JournalCorruptError, LocalBankOptionError, SnapshotFailedError } from "./errors.js";
export { JOURNAL_FILE, SNAPSHOT_FILE, type StorageDamage } from "./journal.js";
export { NO_MODEL_LINE } from "./wire-shapes.js";
export { stem, tokenize } from "./lexical-recall.js";
