// Public API of @context-fold/session-gen: deterministic, realistic Pi sessions with a ground-truth manifest.
export { generateSession, GenerateOptionsError, DEFAULT_CWD, DEFAULT_START_TIME } from "./generate.js";
export { writeManifest } from "./manifest.js";
export type { GenerateOptions, DamageOptions, DamageReport, Manifest, Needle } from "./manifest.js";
export { parseSize, SizeParseError } from "./size.js";
export { DamageError } from "./damage.js";
export { ReplicationError, REPLICATION_THRESHOLD_BYTES, REPLICATION_BASE_BYTES } from "./replicate.js";
