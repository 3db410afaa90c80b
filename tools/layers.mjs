// The layer map of architecture.md, declared once: which workspace packages each package may import.
// tools/check-layers.mjs (manifests, imports, cycles) and eslint.config.js (no-restricted-imports) both
// read it, so a new arrow is drawn here and nowhere else.
//
// durable-fs is the one leaf every package may import (its declared exception to "stands alone"):
// durable writes and the append lock have one home. memory-gardener-client may import hindsight-local:
// which Hindsight API version has which feature is written once, in the package implementing the API.
export const layers = {
  "durable-fs": [],
  "seed-index-format": ["durable-fs"],
  "ledger-reader": ["durable-fs", "seed-index-format"],
  extractors: ["durable-fs", "seed-index-format", "ledger-reader"],
  "summary-formatter": ["durable-fs", "seed-index-format", "ledger-reader", "extractors"],
  "recall-engine": ["durable-fs", "seed-index-format", "ledger-reader"],
  "hindsight-local": ["durable-fs"],
  "memory-gardener-client": ["durable-fs", "hindsight-local"],
};
