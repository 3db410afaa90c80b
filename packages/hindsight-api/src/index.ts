// Public API of @context-fold/hindsight-api: what the Hindsight HTTP API is, shared by the local bank
// (hindsight-local) and the client (memory-gardener-client) without either importing the other.
export { PATCH_MIN_VERSION, versionAtLeast } from "./api-version.js";
